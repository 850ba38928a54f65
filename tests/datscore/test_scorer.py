"""DATScore on a tiny random M2M-100 built locally: parity of direction scores and entropy
weights with plain transformers computations, batch-size invariance, one-vs-rest weights by
hand, the small-corpus fallback, fixed weights, sharding, caching, modes and bad input."""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from nlgmetrics.core.models import ModelUnavailableError
from nlgmetrics.datscore import ALL_DIRECTIONS, DATScore, augmentation_languages
from nlgmetrics.datscore.seq2seq import Seq2SeqLM

ROOT = Path(__file__).resolve().parents[2]

SOURCES = ["Le chat est assis sur le tapis.", "Le gouvernement a annoncé de nouvelles mesures.",
           "Des scientifiques ont découvert une nouvelle espèce.", "Il pleut.", "Le chat est assis sur le tapis."]
REFERENCES = ["The cat sat on the mat.", "The government announced new measures.",
              "Scientists discovered a new species.", "It rains.", "The cat sat on the mat."]
PREDICTIONS = ["The cat is on the mat.", "The government announced measures to support businesses.",
               "A new frog was found by scientists.", "Rain.", "A cat sat on a mat and looked at the garden."]
# bad input: empty, one word, emoji, non-Latin scripts
ODD = {"predictions": ["", "cat", "🙂🙂 the cat 🙂", "猫坐在垫子上。", "Кошка сидит."],
       "references": ["The cat sat on the mat.", "", "The cat 🙂", "猫坐在垫子上看着花园。", "Кошка сидит на коврике."],
       "sources": ["Le chat.", "Le chat est assis.", "", "Le chat 猫", "Кошка"]}

FAST = {"beam_size": 2, "max_new_tokens": 6, "device": "cpu", "quiet": True}

# a random model's translations run to the cap, and these corpora are below the one-vs-rest
# minimum: both warnings are expected here (tests/test_datscore_hardening.py checks them)
pytestmark = [pytest.mark.filterwarnings("ignore:.*generation limit:UserWarning",
                                         "ignore:.*one-vs-rest weights need:UserWarning"),
              pytest.mark.usefixtures("one_torch_thread")]


def make(tiny_m2m100: str, **options) -> DATScore:
    return DATScore(model=tiny_m2m100, **{"source_lang": "fr", "target_lang": "en", **FAST, **options})


def plain_scores(model_dir: str, xs, x_lang, ys, y_lang):
    """Independent computation: one transformers forward pass per pair; per target token
    (forced language token excluded, </s> included) the log-probability and the entropy."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSeq2SeqLM.from_pretrained(model_dir).eval()
    tok.src_lang, tok.tgt_lang = x_lang, y_lang
    out = []
    for x, y in zip(xs, ys):
        enc = tok(x, text_target=y, return_tensors="pt")
        with torch.no_grad():
            logits = model(**enc).logits[0].double()
        probs = torch.softmax(logits, -1)
        logp = torch.log(probs)
        labels = enc["labels"][0]
        token_logp = logp[torch.arange(len(labels)), labels][1:]
        entropy = -(probs * logp).sum(-1)[1:]
        out.append((token_logp.numpy(), entropy.numpy()))
    return out


def test_direction_scores_uniform_equal_plain_forward(tiny_m2m100):
    scorer = make(tiny_m2m100, token_weights="uniform", directions=["src->hypo", "ref->hypo", "hypo->ref"])
    preds, refs, srcs = PREDICTIONS + ODD["predictions"], REFERENCES + ODD["references"], SOURCES + ODD["sources"]
    result = scorer.score(preds, refs, srcs)
    for name, (xs, xl, ys, yl) in {"src->hypo": (srcs, "fr", preds, "en"), "ref->hypo": (refs, "en", preds, "en"),
                                   "hypo->ref": (preds, "en", refs, "en")}.items():
        expected = [lp.mean() for lp, _ in plain_scores(tiny_m2m100, xs, xl, ys, yl)]
        got = [d["directions"][name] for d in result.details]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)


def test_entropy_weights_equal_minus_sum_p_log_p(tiny_m2m100):
    lm = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True)
    pairs = list(zip(lm.sequences(SOURCES, "fr"), lm.sequences(PREDICTIONS, "en")))
    scores = lm.score_pairs(pairs)
    for ts, (lp, ent) in zip(scores, plain_scores(tiny_m2m100, SOURCES, "fr", PREDICTIONS, "en")):
        np.testing.assert_allclose(ts.entropies, ent, rtol=0, atol=1e-5)
        np.testing.assert_allclose(ts.logprobs, lp, rtol=0, atol=1e-5)
        assert ent.std() > 0.05  # the tiny_m2m100 model's steps really differ in entropy
        assert ts.mean("entropy") == pytest.approx((ent * lp).sum() / ent.sum(), abs=1e-5)
    # the scorer uses entropy weights by default
    result = make(tiny_m2m100, directions=["src->hypo"]).score(PREDICTIONS, REFERENCES, SOURCES)
    assert [d["directions"]["src->hypo"] for d in result.details] == [ts.mean("entropy") for ts in scores]


def test_scores_identical_for_batch_sizes_1_3_16(tiny_m2m100):
    preds, refs, srcs = PREDICTIONS + ODD["predictions"], REFERENCES + ODD["references"], SOURCES + ODD["sources"]
    results = {bs: make(tiny_m2m100, batch_size=bs, return_translations=True).score(preds, refs, srcs) for bs in (1, 3, 16)}
    base = results[1]
    for bs in (3, 16):
        assert [d["translations"] for d in results[bs].details] == [d["translations"] for d in base.details]
        for a, b in zip(results[bs].details, base.details):
            for name in ALL_DIRECTIONS:
                # bit-identical on the development machine (width-bucketed padding); allow
                # float rounding elsewhere
                assert abs(a["directions"][name] - b["directions"][name]) <= 1e-6
        np.testing.assert_allclose(results[bs].scores, base.scores, rtol=0, atol=1e-6)


def test_one_vs_rest_weights_equal_hand_computed_correlations(tiny_m2m100):
    scorer = make(tiny_m2m100)
    rng = np.random.default_rng(0)
    base = rng.normal(size=12)
    matrix = np.stack([base + rng.normal(scale=s, size=12) for s in (0.1, 0.3, 0.5, 1.0, 2.0, 0.2, 0.4, 0.7)], axis=1)
    matrix[:, 5] = -base + rng.normal(scale=0.1, size=12)  # anti-correlated: negative sum, clipped to 0
    records = [{"id": i, "directions": dict(zip(ALL_DIRECTIONS, row.tolist()))} for i, row in enumerate(matrix)]
    result = scorer.reduce(records[::-1])  # any order
    corr = np.corrcoef(matrix, rowvar=False)
    raw = corr.sum(axis=1) - 1.0
    assert raw[5] < 0
    expected = np.clip(raw, 0, None) / np.clip(raw, 0, None).sum()
    got = np.array([result.corpus["direction_weights"][d] for d in ALL_DIRECTIONS])
    np.testing.assert_allclose(got, expected, atol=1e-12)
    np.testing.assert_allclose([result.corpus["one_vs_rest_raw"][d] for d in ALL_DIRECTIONS], raw, atol=1e-12)
    assert got[5] == 0.0 and got.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(result.scores, matrix @ expected, atol=1e-12)
    assert result.score == pytest.approx(float(np.mean(matrix @ expected)))
    assert result.corpus["direction_weighting"] == "one-vs-rest" and "weights_note" not in result.corpus


def test_small_corpus_falls_back_to_uniform(tiny_m2m100):
    result = make(tiny_m2m100).score(PREDICTIONS[:2], REFERENCES[:2], SOURCES[:2])
    assert set(result.corpus["direction_weights"].values()) == {1 / 8}
    assert "fewer" in result.corpus["weights_note"] or "at least 3" in result.corpus["weights_note"]
    means = [np.mean(list(d["directions"].values())) for d in result.details]
    np.testing.assert_allclose(result.scores, means, atol=1e-12)
    # constant directions (identical segments) have no defined correlation: uniform, said so
    same = make(tiny_m2m100).score(PREDICTIONS[:1] * 4, REFERENCES[:1] * 4, SOURCES[:1] * 4)
    assert set(same.corpus["direction_weights"].values()) == {1 / 8} and "weights_note" in same.corpus


def test_fixed_weights_freeze_calibration(tiny_m2m100):
    calibration = make(tiny_m2m100).score(PREDICTIONS, REFERENCES, SOURCES)
    frozen = calibration.corpus["direction_weights"]
    scorer = make(tiny_m2m100, direction_weights=frozen)
    for lo, hi in ((0, 2), (2, 3), (3, 5)):  # small batches, as in a training loop
        part = scorer.score(PREDICTIONS[lo:hi], REFERENCES[lo:hi], SOURCES[lo:hi])
        np.testing.assert_allclose(part.scores, calibration.scores[lo:hi], atol=1e-12)
        assert part.corpus["direction_weighting"] == "fixed"
        assert "|dirw:" + ",".join(f"{d}=0.125" for d in sorted(ALL_DIRECTIONS)) + "|" in part.signature
    # weights are normalised; uniform weights give the plain mean of the directions
    doubled = make(tiny_m2m100, direction_weights={d: 2.0 for d in ALL_DIRECTIONS}).score(PREDICTIONS, REFERENCES, SOURCES)
    uniform = make(tiny_m2m100, direction_weights="uniform").score(PREDICTIONS, REFERENCES, SOURCES)
    np.testing.assert_allclose(doubled.scores, uniform.scores, atol=1e-12)
    np.testing.assert_allclose(uniform.scores, [np.mean(list(d["directions"].values())) for d in uniform.details],
                               atol=1e-12)
    with pytest.raises(ValueError, match="exactly the scored directions"):
        make(tiny_m2m100, direction_weights={"ref->hypo": 1.0}).score(PREDICTIONS, REFERENCES, SOURCES)
    with pytest.raises(ValueError, match="unknown directions"):
        make(tiny_m2m100, direction_weights={"ref->src": 1.0})
    with pytest.raises(ValueError, match="non-negative"):
        make(tiny_m2m100, direction_weights={d: -1.0 for d in ALL_DIRECTIONS})


def test_shards_reduce_to_the_same_result(tiny_m2m100):
    scorer = make(tiny_m2m100)
    whole = scorer.score(PREDICTIONS, REFERENCES, SOURCES)
    inputs = scorer.validate(PREDICTIONS, REFERENCES, SOURCES)
    from nlgmetrics.core.inputs import Inputs
    records = []
    for ids in ([0, 2, 4], [1, 3]):
        part = Inputs([inputs.predictions[i] for i in ids], [inputs.references[i] for i in ids],
                      [inputs.sources[i] for i in ids], ids)
        records += scorer.score_segments(part)
    merged = scorer.reduce(records)
    assert merged.scores == whole.scores
    assert merged.corpus["direction_weights"] == whole.corpus["direction_weights"]


def test_modes_reference_and_bartscore(tiny_m2m100):
    four = make(tiny_m2m100).score(PREDICTIONS, REFERENCES)  # no sources: the 4-direction mode
    assert four.corpus["directions"] == ["ref->hypo", "hypo->ref", "trans2->hypo", "hypo->trans2"]
    assert four.corpus["languages"] == {"ref": "en", "hypo": "en", "trans2": "es"}
    assert "dirs:4" in four.signature
    eight = make(tiny_m2m100).score(PREDICTIONS, REFERENCES, SOURCES)
    assert "dirs:8" in eight.signature and eight.corpus["languages"]["trans1"] == "en"
    for d4, d8 in zip(four.details, eight.details):  # the shared directions do not depend on the mode
        for name in four.corpus["directions"]:
            assert d4["directions"][name] == d8["directions"][name]
    bart = make(tiny_m2m100, directions="bartscore").score(PREDICTIONS, REFERENCES)
    assert bart.corpus["directions"] == ["ref->hypo", "hypo->ref"]
    assert bart.corpus["token_weights"] == "uniform" and bart.corpus["direction_weighting"] == "uniform"
    lm = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True)
    refs, hyps = lm.sequences(REFERENCES, "en"), lm.sequences(PREDICTIONS, "en")
    p = lm.score_pairs(list(zip(refs, hyps)))
    r = lm.score_pairs(list(zip(hyps, refs)))
    np.testing.assert_allclose(bart.scores, [(a.logprobs.mean() + b.logprobs.mean()) / 2 for a, b in zip(p, r)],
                               atol=1e-6)
    seven = make(tiny_m2m100, exclude_directions=["trans1->hypo"]).score(PREDICTIONS, REFERENCES, SOURCES)
    assert "trans1->hypo" not in seven.corpus["directions"] and len(seven.corpus["directions"]) == 7


def test_augmentation_language_rule():
    assert augmentation_languages("de", "en") == ("en", "es")   # to English
    assert augmentation_languages("en", "de") == ("es", "en")   # from English
    assert augmentation_languages("fr", "de") == ("en", "es")   # no English
    assert augmentation_languages("fr", "es") == ("en", "en")   # Trans2 must leave the target language
    assert augmentation_languages(None, "en") == ("en", "es")


def test_each_unique_text_is_translated_and_encoded_once(tiny_m2m100, monkeypatch, tmp_path):
    scorer = make(tiny_m2m100, cache_dir=str(tmp_path), return_translations=True)
    lm = scorer.lm
    generated, encoded = [], []
    real_generate, real_encode = lm.model.generate, lm._encode

    def count_generate(*args, **kwargs):
        generated.append(kwargs["attention_mask"].shape[0])
        return real_generate(*args, **kwargs)

    def count_encode(sources):
        encoded.extend(sources)
        return real_encode(sources)

    monkeypatch.setattr(lm.model, "generate", count_generate)
    monkeypatch.setattr(lm, "_encode", count_encode)
    # three systems sharing sources and references (which repeat once themselves)
    preds = [p + suffix for suffix in ("", " one", " two") for p in PREDICTIONS]
    refs, srcs = REFERENCES * 3, SOURCES * 3
    first = scorer.score(preds, refs, srcs)
    assert sum(generated) == len(set(SOURCES)) + len(set(REFERENCES))
    trans1 = [d["translations"]["trans1"] for d in first.details]
    trans2 = [d["translations"]["trans2"] for d in first.details]
    expected = {*lm.sequences(preds, "en"), *lm.sequences(srcs, "fr"), *lm.sequences(refs, "en"),
                *lm.sequences(trans1, "en"), *lm.sequences(trans2, "es")}
    # each encoder input once: the states made for translating sources and references serve scoring
    assert len(encoded) == len(expected) and set(encoded) == expected
    assert len(lm._states) == 0  # and are let go after scoring
    # again: translations come from the memory cache
    generated.clear()
    again = scorer.score(preds, refs, srcs)
    assert generated == [] and again.scores == first.scores
    # a new model object with the same cache_dir reads them from disk
    fresh = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True, cache_dir=str(tmp_path))
    monkeypatch.setattr(fresh.model, "generate", lambda *a, **k: pytest.fail("translated again"))
    assert fresh.translate(srcs, "fr", "en", beam_size=2, max_new_tokens=6) == trans1
    assert (tmp_path / "translations.sqlite").exists()


def test_bad_input_gives_finite_scores_and_truncation_warns(tiny_m2m100):
    result = make(tiny_m2m100).score(ODD["predictions"], ODD["references"], ODD["sources"])
    assert all(math.isfinite(s) and s < 0 for s in result.scores)
    assert all(math.isfinite(v) for d in result.details for v in d["directions"].values())
    with pytest.warns(UserWarning, match="truncated"):
        long = make(tiny_m2m100, max_length=8).score(["the cat " * 50], ["the cat sat"], ["le chat " * 50])
    assert math.isfinite(long.scores[0])
    assert long.details[0]["truncated"] is True  # the model's subword cut is flagged like the budget's
    with warnings.catch_warnings():  # a short segment beside a cut one: only the cut one is flagged
        warnings.simplefilter("ignore")
        pair = make(tiny_m2m100, max_length=8).score(["the cat " * 50, "a cat"], ["the cat sat", "a cat"],
                                                     ["le chat", "un chat"])
    assert pair.details[0]["truncated"] is True and "truncated" not in pair.details[1]


def test_option_and_input_errors(tiny_m2m100):
    with pytest.raises(ValueError, match="source_lang is required"):
        DATScore(model=tiny_m2m100, **FAST).score(PREDICTIONS, REFERENCES, SOURCES)
    with pytest.raises(ValueError, match="need sources"):
        make(tiny_m2m100, directions="all").score(PREDICTIONS, REFERENCES)
    with pytest.raises(ValueError, match="not known"):
        make(tiny_m2m100, target_lang="xx")
    with pytest.raises(ValueError, match="token_weights"):
        make(tiny_m2m100, token_weights="idf")
    with pytest.raises(ValueError, match="unknown directions"):
        make(tiny_m2m100, directions=["src->ref"])
    with pytest.raises(ValueError, match="profile"):
        make(tiny_m2m100, profile="lite")


def test_offline_hub_model_gives_clean_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailableError) as err:
        DATScore(model="facebook/m2m100_418M", quiet=True)
    assert "facebook/m2m100_418M" in str(err.value) and "local directory" in str(err.value)


def test_evaluate_module_matches_core_scorer(tiny_m2m100):
    import evaluate

    options = {"model": tiny_m2m100, "source_lang": "fr", **{k: v for k, v in FAST.items() if k != "quiet"}}
    module = evaluate.load(str(ROOT / "metrics" / "datscore"))
    out = module.compute(predictions=PREDICTIONS, references=REFERENCES, sources=SOURCES, return_details=True,
                         **options)
    core = make(tiny_m2m100).score(PREDICTIONS, REFERENCES, SOURCES)
    assert out["scores"] == core.scores and out["score"] == core.score
    assert out["corpus"]["direction_weights"] == core.corpus["direction_weights"]
    ref_only = evaluate.load(str(ROOT / "metrics" / "datscore"), "reference")
    out4 = ref_only.compute(predictions=PREDICTIONS, references=REFERENCES, **options)
    assert out4["scores"] == make(tiny_m2m100).score(PREDICTIONS, REFERENCES).scores
    assert "dirs:4" in out4["signature"]


def test_bf16_runs_and_stays_close_to_fp32(tiny_m2m100):
    fp32 = make(tiny_m2m100, directions="reference").score(PREDICTIONS, REFERENCES)
    bf16 = make(tiny_m2m100, directions="reference", dtype="bf16").score(PREDICTIONS, REFERENCES)
    assert "bf16" in bf16.signature and all(math.isfinite(s) for s in bf16.scores)
    # bf16 keeps about 3 significant digits; translations may differ, so compare Ref <-> Hypo
    for a, b in zip(fp32.details, bf16.details):
        for name in ("ref->hypo", "hypo->ref"):
            assert a["directions"][name] == pytest.approx(b["directions"][name], rel=0.05)

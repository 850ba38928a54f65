"""DiscoTK scorer: features, per-test-set normalisation in reduce (shard-safe), tuned and
uniform combinations, the fit API, external RST input, bad input, the evaluate wrapper."""
from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from nlgmetrics.discotk import (
    EXTRA_MEMBERS,
    PARTY_MEMBERS,
    REPRESENTATIONS,
    DiscoTK,
    PairwiseModel,
    asiya_normalize,
    dependency_overlap,
    fit_pairwise,
    hwcm,
    shipped_model,
)

ROOT = Path(__file__).resolve().parents[2]
REF = "If it rains tomorrow, we will stay at home because the roads are dangerous."
HYPS = ["If it rains tomorrow, we will stay at home because the roads are dangerous.",
        "If it rains tomorrow, we stay home because roads are dangerous.",
        "Tomorrow rain, we home stay, roads danger.",
        "The weather was nice."]


@pytest.fixture(scope="module")
def light():
    return DiscoTK(variant="light", quiet=True)


@pytest.fixture(scope="module")
def party_uniform():
    return DiscoTK(variant="party", members="asiya", weights="uniform", quiet=True)


def test_asiya_normalisation_rule():
    assert asiya_normalize([0.2, 0.5, 1.0, 0.0]).tolist() == pytest.approx([0.2, 0.5, 1.0, 0.0])
    assert asiya_normalize([0.1, 0.4]).tolist() == pytest.approx([0.25, 1.0])
    # min < 0: (s + |min|) / (max + |min|)
    assert asiya_normalize([-0.5, 0.0, 1.5]).tolist() == pytest.approx([0.0, 0.25, 1.0])
    assert asiya_normalize([0.0, 0.0]).tolist() == [0.0, 0.0]


def test_normalised_means_of_many_resamples_are_column_by_column():
    from nlgmetrics.discotk.combine import NormalizedMeans

    rng = np.random.default_rng(4)
    matrix = rng.normal(0.3, 0.5, size=(9, 5))  # 9 segments x 5 features
    matrix[:, 0] = 0.0  # an all-zero column
    matrix[:, 1] = -0.25  # a constant negative column
    matrix[:, 2] = np.abs(matrix[:, 2])  # min >= 0: s / max
    matrix[3, 4] = matrix[6, 4]  # ties
    positions = np.vstack([rng.integers(0, 9, size=(40, 9)), np.full((1, 9), 3), np.arange(9)[None]])
    want = [np.column_stack([asiya_normalize(col) for col in matrix[row].T]).mean() for row in positions]
    np.testing.assert_allclose(NormalizedMeans(matrix)(positions), want, rtol=1e-12, atol=1e-15)
    # the by-hand case: segments 0 and 1 drawn as (0, 0, 1) on one feature [0.5, -1.0]:
    # min -1 < 0, so (s + 1) / (0.5 + 1): means (1.5 + 1.5 + 0) / 3 / 1.5 = 2/3
    assert NormalizedMeans(np.array([[0.5], [-1.0]]))(np.array([[0, 0, 1]]))[0] == pytest.approx(2 / 3)
    assert NormalizedMeans(matrix)(np.zeros((0, 9), dtype=int)).shape == (0,)
    # approximate randomisation on pooled records (baseline 0..8, system 9..17): each trial's
    # difference equals normalising both sides' rows column by column
    system = np.clip(matrix + rng.normal(0, 0.2, size=matrix.shape), -0.3, None)
    pooled = NormalizedMeans(np.vstack([matrix, system]))
    swaps = rng.random((30, 9)) < 0.5
    swaps[0], swaps[1] = False, True  # nothing swapped; everything swapped
    base = np.arange(9)
    sides = [(np.where(row, base, base + 9), np.where(row, base + 9, base)) for row in swaps]
    by_rows = [pooled(side[None])[0] - pooled(other[None])[0] for side, other in sides]
    np.testing.assert_allclose(pooled.swap_differences(swaps), by_rows, rtol=1e-12, atol=1e-15)
    want_none = (np.column_stack([asiya_normalize(c) for c in system.T]).mean()
                 - np.column_stack([asiya_normalize(c) for c in matrix.T]).mean())
    assert pooled.swap_differences(swaps[:2]) == pytest.approx([want_none, -want_none], abs=1e-12)


def test_identical_texts_score_one(light):
    result = light.score([REF], [REF])
    assert result.scores == [pytest.approx(1.0)]
    assert all(v == pytest.approx(1.0) for v in result.details[0]["features"].values())


def test_light_orders_hypotheses_and_normalises_per_test_set(light):
    result = light.score(HYPS, [REF] * len(HYPS))
    raw = np.array([[d["features"][f] for f in REPRESENTATIONS] for d in result.details])
    expected = np.column_stack([col / col.max() for col in raw.T]).mean(axis=1)
    assert result.scores == pytest.approx(expected.tolist())
    assert result.scores[0] == pytest.approx(1.0)
    assert result.scores[0] > result.scores[1] > result.scores[3]
    assert "variant:light" in result.signature and "norm:per-test-set" in result.signature


def test_reduce_is_shard_safe(light):
    inputs = light.validate(HYPS, [REF] * len(HYPS))
    records = light.score_segments(inputs)
    whole = light.reduce(records)
    shuffled = list(records)
    random.Random(0).shuffle(shuffled)
    shards = [light.score_segments(light.validate([h], [REF], ids=[i])) for i, h in enumerate(HYPS)]
    sharded = light.reduce([r for shard in shards for r in shard])
    assert light.reduce(shuffled).scores == whole.scores
    assert sharded.scores == pytest.approx(whole.scores)
    json.dumps(records)  # records are JSON-serialisable


def test_party_features_and_uniform_combination(party_uniform):
    result = party_uniform.score(HYPS, [REF] * len(HYPS))
    assert result.corpus["features"] == list(REPRESENTATIONS + PARTY_MEMBERS)
    first = result.details[0]["features"]
    # METEOR keeps its fragmentation penalty 0.5 * (1 / matches) ** 3 on an exact copy
    assert all(first[f] == pytest.approx(1.0, abs=1e-3) for f in PARTY_MEMBERS)
    worst = result.details[3]["features"]
    assert worst["ter"] < first["ter"] and worst["meteor"] < first["meteor"]
    assert result.scores[0] == pytest.approx(1.0, abs=1e-4)
    assert result.scores[0] > result.scores[2] > result.scores[3]


def test_hwcm_and_overlap_hand_cases():
    hyp = {1: Counter({("NOUN",): 2, ("VERB",): 1}), 2: Counter({("VERB", "NOUN"): 2})}
    ref = {1: Counter({("NOUN",): 1, ("VERB",): 1}), 2: Counter({("VERB", "NOUN"): 1})}
    # length 1: matched 2, p = 2/3, r = 1 -> F = 0.8; length 2: p = 1/2, r = 1 -> F = 2/3
    assert hwcm(hyp, ref) == pytest.approx((0.8 + 2 / 3) / 2)
    assert hwcm({1: Counter()}, {1: Counter()}) == 1.0
    over = dependency_overlap({"nsubj": Counter({"cat": 1}), "dobj": Counter({"mat": 1})},
                              {"nsubj": Counter({"cat": 1, "dog": 1})})
    assert over == pytest.approx((0.5 + 0.0) / 2)
    assert dependency_overlap({}, {}) == 1.0


def test_dependency_overlap_does_not_depend_on_the_hash_seed():
    """DP-Or averages over a set of relation names; the set's order follows the process's
    string hash seed, and a plain float sum in that order gave different last bits in
    different processes (three distinct values over eight seeds for this input)."""
    import subprocess
    import sys
    rels = ("nsubj obj amod det case nmod advmod aux cop mark conj cc compound obl xcomp ccomp acl "
            "nummod appos punct").split()
    script = (
        "from collections import Counter\n"
        "from nlgmetrics.discotk import dependency_overlap\n"
        f"rels = {rels!r}\n"
        "hyp = {r: Counter({'a': i % 3 + 1, 'b': 1}) for i, r in enumerate(rels)}\n"
        "ref = {r: Counter({'a': 1, 'c': i % 5 + 1}) for i, r in enumerate(rels)}\n"
        "print(repr(dependency_overlap(hyp, ref)))\n")
    outputs = set()
    for seed in range(8):
        env = dict(__import__("os").environ, PYTHONHASHSEED=str(seed))
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        outputs.add(run.stdout.strip())
    assert len(outputs) == 1, outputs
    # the exact mean of the 20 per-relation ratios, computed with fractions
    from fractions import Fraction
    # (per relation: min counts sum to 1 ('a'); max counts to (i % 3 + 1) + 1 + (i % 5 + 1))
    exact = sum(Fraction(1, (i % 3 + 1) + 1 + (i % 5 + 1)) for i in range(20)) / 20
    assert float(outputs.pop()) == pytest.approx(float(exact), rel=1e-15)


def test_tuned_party_uses_shipped_weights():
    assert shipped_model("party").features == REPRESENTATIONS + PARTY_MEMBERS
    model = shipped_model("party", "flat", "asiya+extra")
    assert model.features == REPRESENTATIONS + PARTY_MEMBERS + EXTRA_MEMBERS
    assert all(math.isfinite(w) and w >= 0 for w in model.weights)
    scorer = DiscoTK(quiet=True)  # party, members asiya+extra, tuned
    result = scorer.score(HYPS, [REF] * len(HYPS))
    raw = np.array([[d["features"][f] for f in model.features] for d in result.details]) @ \
        np.array(model.weights) + model.bias
    assert result.scores == pytest.approx((1 / (1 + np.exp(-raw))).tolist())
    assert all(0 < s < 1 for s in result.scores)
    assert result.scores[0] > result.scores[3]
    assert "weights:tuned" in result.signature and "members:asiya+extra" in result.signature


def test_fit_pairwise_recovers_a_known_ranking():
    rng = np.random.default_rng(0)
    names = ("a", "b", "c")
    better, worse = rng.normal(size=(400, 3)), rng.normal(size=(400, 3))
    truth = np.array([2.0, -1.0, 0.0])
    swap = (better - worse) @ truth < 0
    better[swap], worse[swap] = worse[swap].copy(), better[swap].copy()
    model = fit_pairwise(better, worse, names, c=10.0)
    assert model.weights[0] > 0 > model.weights[1]
    assert abs(model.weights[2]) < 0.25 * model.weights[0]
    assert model.meta["train_pair_accuracy"] > 0.95


def test_fit_api_with_feature_vectors_and_text_triples():
    scorer = DiscoTK(variant="light", quiet=True)
    d = len(scorer.features_used)
    vectors = [([1.0] * d, [0.0] * d), ([0.9] * d, [0.2] * d)]
    model = scorer.fit(vectors)
    assert isinstance(model, PairwiseModel) and all(w > 0 for w in model.weights)
    assert model.weights == pytest.approx([model.weights[0]] * d, rel=1e-6)  # identical columns, equal weights
    expected = fit_pairwise(np.array([v[0] for v in vectors]), np.array([v[1] for v in vectors]), scorer.features_used)
    assert model.weights == expected.weights and model.bias == expected.bias
    assert scorer.weights_name == "fitted"
    triples = [(HYPS[1], HYPS[3], REF), (HYPS[0], HYPS[2], REF), (HYPS[1], HYPS[2], REF)]
    model = scorer.fit(triples, c=0.5)
    # the model is the pairwise fit on the triples' (better, worse) feature rows, one text at a time
    better = np.array([scorer.features([b], [r])[0] for b, _, r in triples])
    worse = np.array([scorer.features([w], [r])[0] for _, w, r in triples])
    assert np.ptp(better - worse, axis=0).max() > 0  # the pairs differ in their features
    expected = fit_pairwise(better, worse, scorer.features_used, c=0.5)
    assert model.features == expected.features == scorer.features_used
    assert model.weights == pytest.approx(expected.weights, abs=1e-9) and model.bias == pytest.approx(expected.bias, abs=1e-9)
    assert model.meta["c"] == 0.5 and model.meta["pairs"] == 3 and scorer.model is model
    result = scorer.score(HYPS, [REF] * len(HYPS))
    raw = scorer.features(HYPS, [REF] * len(HYPS)) @ np.array(model.weights) + model.bias
    assert result.scores == pytest.approx((1 / (1 + np.exp(-raw))).tolist(), abs=1e-9)
    assert result.scores[0] > result.scores[3] and "weights:fitted" in result.signature
    with pytest.raises(ValueError):
        scorer.fit([(HYPS[0], HYPS[1])])
    with pytest.raises(ValueError):
        DiscoTK(variant="light", weights={"meteor": 1.0})  # light has no METEOR


def test_fit_while_another_thread_reduces_gives_one_set_of_weights(monkeypatch):
    """A reduction's scores, corpus and signature come from one set of weights: fit(use=True)
    from another thread in the middle of a reduction waits for it (before, the reduction scored
    with the old weights and signed itself ``weights:fitted``)."""
    import threading

    from nlgmetrics.discotk import scorer as module

    scorer = DiscoTK(variant="light", quiet=True)
    d = len(scorer.features_used)
    records = scorer.score_segments(scorer.validate(HYPS, [REF] * len(HYPS)))
    real, fitter = module.asiya_normalize, []

    def normalize_while_fitting(column):  # runs inside the reduction (per-test-set normalisation)
        if not fitter:
            fitter.append(threading.Thread(target=scorer.fit, args=([([1.0] * d, [0.0] * d)],)))
            fitter[0].start()
            fitter[0].join(timeout=1.0)
        return real(column)

    monkeypatch.setattr(module, "asiya_normalize", normalize_while_fitting)
    result = scorer.reduce(records)
    fitter[0].join()
    assert result.corpus["weights"] in result.signature and "weights:fitted" not in result.signature
    assert "weights_by_feature" not in result.corpus
    after = scorer.reduce(records)
    assert "weights:fitted" in after.signature and "weights_by_feature" in after.corpus


def test_explicit_weights_mapping():
    scorer = DiscoTK(variant="light", weights={"dr-lex1": 2.0, "bias": -1.0}, quiet=True)
    result = scorer.score([REF], [REF])
    assert result.scores[0] == pytest.approx(1 / (1 + math.exp(-(2.0 - 1.0))))


def test_external_rst_input():
    scorer = DiscoTK(variant="light", normalization="none", quiet=True)
    ref = "(Attribution[S][N] _!Ann said!_ (Enablement[N][S] _!we left!_ _!to win.!_))"
    same_words_other_tree = "(Joint[N][N] _!Ann said!_ (Enablement[N][S] _!we left!_ _!to win.!_))"
    result = scorer.score([ref, same_words_other_tree], [ref, ref])
    assert result.scores[0] == pytest.approx(1.0)
    assert result.scores[1] < 1.0
    assert result.details[1]["features"]["dr-nolex"] < 1.0
    assert "parser:heuristic" in result.signature
    forced = DiscoTK(variant="light", input_format="rst", quiet=True)
    assert "parser:external-rst" in forced.signature
    with pytest.raises(ValueError):
        forced.score(["not a tree"], [ref])


def test_bad_inputs_give_documented_finite_scores(party_uniform):
    preds = ["", "word", "!!!", "😀", "这是一个测试。", "long " * 300, REF]
    refs = [REF, "word", "!!!", REF, "这是一个测试。", REF, ""]
    result = party_uniform.score(preds, refs)
    assert all(math.isfinite(s) for s in result.scores)
    feats = [d["features"] for d in result.details]
    assert all(v == 0.0 for v in feats[0].values())  # empty hypothesis
    assert feats[1]["dr-lex1"] == 1.0 and feats[2]["dr-nolex"] == 1.0  # equal (empty) trees
    assert all(v == 0.0 for k, v in feats[6].items() if k in REPRESENTATIONS)  # empty reference


def test_long_texts_are_truncated_with_a_warning():
    scorer = DiscoTK(variant="light", max_words=50, quiet=True)
    rng = random.Random(0)
    long_text = " ".join(rng.choice(["cats", "dogs", "sleep", "run", "and", "often"]) for _ in range(400))
    with pytest.warns(UserWarning, match="truncated"):
        result = scorer.score([long_text], [long_text])
    assert result.scores == [pytest.approx(1.0)]
    assert len(scorer.analyze([long_text])[0].plain.split()) == 50


def test_option_validation():
    for bad in ({"max_words": 0}, {"variant": "heavy"}, {"decay": 0.0}, {"normalization": "zscore"},
                {"input_format": "xml"}, {"lexical_layer": "tree"}, {"weights": 3}):
        with pytest.raises(ValueError):
            DiscoTK(**bad)


def test_evaluate_wrapper_matches_core():
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(ROOT / "metrics" / "discotk"), "light")
    out = metric.compute(predictions=HYPS, references=[REF] * len(HYPS))
    core = DiscoTK(variant="light", quiet=True).score(HYPS, [REF] * len(HYPS))
    assert out["scores"] == pytest.approx(core.scores)
    assert out["signature"] == core.signature


def test_training_split_is_by_source_segment():
    from training.discotk_weights import darr_index_pairs, flatten, sample_segments, split_of

    rows = [{"lp": lp, "sid": sid, "ref": "r",
             "hyps": {"A": {"hyp": "a", "human_raw": 90.0}, "B": {"hyp": "b", "human_raw": 50.0},
                      "C": {"hyp": "c", "human_raw": 80.0}}}
            for lp in ("de-en", "zh-en") for sid in range(40)]
    assert darr_index_pairs(rows[0]) == [("A", "B"), ("C", "B")]  # |90 - 80| < 25: no pair
    train = sample_segments(rows, "train", 100)
    held = sample_segments(rows, "heldout", 100)
    ids = lambda part: {(r["lp"], r["sid"]) for r in part}  # noqa: E731
    assert ids(train) and ids(held) and not ids(train) & ids(held)
    assert len(train) + len(held) == len(rows)
    assert all(split_of(r["lp"], r["sid"]) == "train" for r in train)
    hyps, refs, pairs = flatten(train[:2])
    assert hyps == ["a", "b", "c"] * 2 and pairs == [(0, 1), (2, 1), (3, 4), (5, 4)]
    assert len(sample_segments(rows, "train", 3)) == 6  # per language pair

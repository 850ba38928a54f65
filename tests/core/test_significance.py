"""Paired significance tests (nlgmetrics.core.significance): the issue's criteria: identical
systems, a system better on every segment, coverage over simulated corpora, parity of a
mean-reduced bootstrap with numpy on the same indices, and each resample of a corpus-reduced
metric (DATScore on the tiny model, TextEval scaling and document rating, DiscoTK's
normalisation) equal to scoring that resampled corpus from scratch."""
from __future__ import annotations

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.core.inputs import Inputs, Record
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer, mean_reduce
from nlgmetrics.core.significance import (
    bootstrap_p_value,
    bootstrap_positions,
    compare_records,
    mean_resampler,
    paired_randomization,
    randomization_p_value,
    randomization_swaps,
    reduce_each,
)

REFS = [f"the cat number {i} sat on the mat near the door today" for i in range(30)]
SYS_A = [r.replace("the mat", "a rug").replace("today", "") for r in REFS]
SYS_B = [r if i % 3 else r.replace("cat", "dog") for i, r in enumerate(REFS)]


class MeanToy(Scorer):
    """Records carry their score; the corpus score is the mean (a numpy-level toy)."""

    name = "meantoy"

    def score_segments(self, inputs: Inputs) -> list[Record]:
        return [{"id": i, "score": float(p)} for i, p in zip(inputs.ids, inputs.predictions)]

    def reduce_records(self, records: list[Record]) -> MetricResult:
        return mean_reduce(self, records)

    def resampler(self, records: list[Record]):
        return mean_resampler([r["score"] for r in records])


def records(values) -> list[Record]:
    return [{"id": i, "score": float(v)} for i, v in enumerate(values)]


def test_identical_systems_give_p_at_least_half_and_an_interval_around_zero():
    c = nlgmetrics.compare("sam", {"a": SYS_A, "copy": list(SYS_A)}, REFS, base="chrf", resamples=300, trials=300,
                           quiet=True)
    other = c.systems[1]
    assert other.diff == 0.0
    assert other.p_bootstrap >= 0.5 and other.p_randomization >= 0.5
    assert other.diff_ci[0] <= 0.0 <= other.diff_ci[1]
    # the toy, with noise: the same records twice
    values = np.random.default_rng(3).normal(size=200)
    t = compare_records(MeanToy(), [records(values), records(values)], resamples=500, trials=500)
    assert t.systems[1].p_bootstrap == 1.0 and t.systems[1].p_randomization == 1.0
    assert t.systems[1].diff_ci == (0.0, 0.0)


def test_a_system_better_on_every_segment_by_a_margin_is_significant():
    values = np.random.default_rng(4).normal(size=100)
    c = compare_records(MeanToy(), {"base": records(values), "better": records(values + 0.5)},
                        resamples=1000, trials=2000)
    better = c.systems[1]
    assert better.diff == pytest.approx(0.5)
    assert better.p_bootstrap < 0.01 and better.p_randomization < 0.01
    assert better.diff_ci[0] > 0.4 and better.diff_ci[1] < 0.6
    # a real metric: B is B's own reference on most segments
    s = nlgmetrics.compare("sam", [SYS_A, REFS], REFS, base="chrf", resamples=300, trials=300, quiet=True)
    assert s.systems[1].diff > 0 and s.systems[1].p_bootstrap < 0.01 and s.systems[1].p_randomization < 0.01


def test_the_95_interval_covers_the_true_difference_93_to_97_percent_of_200_simulated_corpora():
    # each corpus: 150 segments; baseline ~ N(0, 1) per segment, the system = baseline + a
    # correlated segment effect with mean 0.2, so the true difference of the corpus means is 0.2
    rng = np.random.default_rng(2024)
    covered = 0
    for trial in range(200):
        base = rng.normal(size=150)
        system = base + rng.normal(0.2, 0.6, size=150)
        c = compare_records(MeanToy(), [records(base), records(system)], resamples=1000, trials=0, seed=trial)
        lo, hi = c.systems[1].diff_ci
        covered += lo <= 0.2 <= hi
    assert 0.93 <= covered / 200 <= 0.97, covered


def test_a_mean_reduced_bootstrap_equals_numpy_on_the_same_resample_indices():
    c = nlgmetrics.compare("sam", [SYS_A, SYS_B], REFS, base="chrf", resamples=250, trials=0, seed=7, quiet=True)
    scores = [np.array(nlgmetrics.score("sam", s, REFS, base="chrf", quiet=True).scores) for s in (SYS_A, SYS_B)]
    positions = np.random.default_rng(7).integers(0, len(REFS), size=(250, len(REFS)))  # the documented draw
    np.testing.assert_array_equal(np.vstack(list(bootstrap_positions(len(REFS), 250, 7))), positions)
    expected = np.column_stack([s[positions].mean(axis=1) for s in scores])
    np.testing.assert_allclose(c.samples, expected, rtol=1e-12)
    d = expected[:, 1] - expected[:, 0]
    assert c.systems[1].diff_ci == pytest.approx(tuple(np.percentile(d, [2.5, 97.5])), rel=1e-12)
    # approximate randomisation by hand with the same swaps
    swaps = np.vstack(list(randomization_swaps(len(REFS), 300, 7)))
    side = np.where(swaps, scores[0], scores[1]).mean(axis=1)
    other = np.where(swaps, scores[1], scores[0]).mean(axis=1)
    null = side - other
    observed = scores[1].mean() - scores[0].mean()
    assert randomization_p_value(null, observed) == (1 + np.sum(np.abs(null) >= abs(observed))) / 301
    pooled = nlgmetrics.load("sam", base="chrf").resampler(
        [{"id": i, "score": v} for i, v in enumerate(np.r_[scores[0], scores[1]])])
    np.testing.assert_allclose(paired_randomization(pooled, len(REFS), 300, 7), null, rtol=1e-12, atol=1e-12)


def test_the_default_resampler_reruns_the_reduction_and_equals_the_mean_form():
    recs = records(np.random.default_rng(6).normal(size=40))
    positions = np.random.default_rng(8).integers(0, 40, size=(20, 40))
    default = Scorer.resampler(MeanToy(), recs)(positions)  # reduce_records on re-indexed records
    np.testing.assert_allclose(default, MeanToy().resampler(recs)(positions), rtol=1e-12)


def test_p_values_by_hand():
    # bootstrap: shifted differences |d - mean(d)| = |[-1, 0, 1]| against the observed 1 -> 2 reach it
    assert bootstrap_p_value(np.array([1.0, 2.0, 3.0]), 1.0) == (1 + 2) / 4
    # randomisation: |[-0.5, 0.2, 0.6]| >= 0.5 -> 2 of 3
    assert randomization_p_value(np.array([-0.5, 0.2, 0.6]), -0.5) == (1 + 2) / 4


def _from_scratch(scorer, positions, preds, refs, srcs=None):
    return [scorer.score([preds[i] for i in row], [refs[i] for i in row],
                         None if srcs is None else [srcs[i] for i in row]).score for row in positions]


@pytest.mark.parametrize("options", [dict(features="words", approach="scaling"),
                                     dict(features="words", approach="direct"),
                                     dict(features="words", approach="scaling", corpus="mean")])
def test_texteval_each_resample_equals_scoring_the_resampled_corpus_from_scratch(options):
    refs = [[r, r.replace("cat", "dog"), r.replace("door", "window")] for r in REFS]
    scorer = nlgmetrics.load("texteval", quiet=True, **options)
    recs = scorer.score_segments(scorer.validate(SYS_B, refs))
    positions = np.random.default_rng(1).integers(0, len(REFS), size=(4, len(REFS)))
    fast = scorer.resampler(recs)(positions)
    np.testing.assert_allclose(fast, _from_scratch(scorer, positions, SYS_B, refs), rtol=1e-9)
    np.testing.assert_allclose(fast, reduce_each(scorer, recs)(positions), rtol=1e-9)
    assert len(set(np.round(fast, 9))) > 1  # the resamples really differ


def test_discotk_normalisation_is_recomputed_per_resample():
    scorer = nlgmetrics.load("discotk", variant="light", quiet=True)
    preds = [p + (" because it rained ." if i % 2 else " .") for i, p in enumerate(SYS_B)]
    recs = scorer.score_segments(scorer.validate(preds, REFS))
    positions = np.random.default_rng(2).integers(0, len(REFS), size=(4, len(REFS)))
    fast = scorer.resampler(recs)(positions)
    np.testing.assert_allclose(fast, _from_scratch(scorer, positions, preds, REFS), rtol=1e-9)
    np.testing.assert_allclose(fast, reduce_each(scorer, recs)(positions), rtol=1e-9)


@pytest.mark.filterwarnings("ignore:.*generation limit:UserWarning")
@pytest.mark.usefixtures("one_torch_thread")
def test_datscore_each_resample_recomputes_its_direction_weights(tiny_m2m100):
    from nlgmetrics.datscore import DATScore

    words = "le chat est assis sur un tapis rouge près de la porte ouverte".split()
    rng = np.random.default_rng(9)
    srcs = [" ".join(rng.choice(words, size=2 + i % 7)) for i in range(12)]
    refs = [" ".join(rng.choice(REFS[0].split(), size=1 + (i * 5) % 11)) for i in range(12)]
    preds = [" ".join(rng.choice(SYS_B[1].split() + ["🙂", "Кошка"], size=1 + (i * 7) % 13)) for i in range(12)]
    scorer = DATScore(model=tiny_m2m100, source_lang="fr", target_lang="en", device="cpu", quiet=True,
                      directions=["src->hypo", "hypo->src", "ref->hypo", "hypo->ref"], ovr_min_segments=3)
    recs = scorer.score_segments(scorer.validate(preds, refs, srcs))
    positions = np.random.default_rng(5).integers(0, 12, size=(3, 12))
    fast = scorer.resampler(recs)(positions)
    np.testing.assert_allclose(fast, _from_scratch(scorer, positions, preds, refs, srcs), rtol=1e-6)
    # not the mean of the resampled segment scores under the full corpus's weights
    full = np.array(scorer.reduce(recs).scores)
    assert not np.allclose(fast, full[positions].mean(axis=1), rtol=1e-9)


def test_bad_calls_are_clear_errors():
    toy = MeanToy()
    with pytest.raises(ValueError, match="at least two systems"):
        compare_records(toy, [records([1, 2])])
    with pytest.raises(ValueError, match="other segments than the baseline"):
        compare_records(toy, [records([1, 2]), records([1, 2, 3])])
    with pytest.raises(ValueError, match="resamples must be a whole number"):
        compare_records(toy, [records([1, 2]), records([1, 2])], resamples=-1)
    with pytest.raises(ValueError, match="confidence"):
        compare_records(toy, [records([1, 2]), records([1, 2])], confidence=95)
    with pytest.raises(ValueError, match="base_scores must give one per-segment list per system \\(2 systems\\)"):
        nlgmetrics.compare("sam", [["a"], ["b"]], ["a"], base="given", base_scores=[0.5])
    c = compare_records(toy, {"x": records([1, 2, 3]), "y": records([2, 3, 4])}, resamples=0, trials=0)
    assert c.systems[1].diff == 1.0 and c.systems[1].ci is None and c.to_dict()["systems"][1]["p_bootstrap"] is None
    assert "compare|bs:0|ar:0|seed:12345|ci:95" in str(c)

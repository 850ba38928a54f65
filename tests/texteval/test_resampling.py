"""TextEval's vectorised resampling (texteval/resampling.py): every bootstrap resample and
every approximate-randomisation trial equals scoring that resampled corpus from scratch, for
scaling and direct, G2 and -ln p; the edge cases (one reference, a row with fewer references,
an empty text) and bad positions."""
from __future__ import annotations

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.core.significance import paired_randomization, randomization_swaps, reduce_each
from nlgmetrics.texteval.resampling import DocumentResampler

REFS = [f"the cat number {i} sat on the mat near the door today" for i in range(24)]
SYS_A = [r.replace("the mat", "a rug").replace("today", "") if i % 2 else r for i, r in enumerate(REFS)]
SYS_B = [r if i % 3 else r.replace("cat", "dog sat") for i, r in enumerate(REFS)]
MULTI = [[r, r.replace("cat", "dog"), r.replace("door", "window")] for r in REFS]
OPTIONS = [dict(approach="scaling"), dict(approach="direct"), dict(approach="scaling", distance="neg_log_p"),
           dict(approach="direct", distance="neg_log_p")]


def load(**options):
    return nlgmetrics.load("texteval", quiet=True, features="words", **options)


def from_scratch(scorer, positions, preds, refs):
    return np.array([scorer.score([preds[i] for i in row], [refs[i] for i in row]).score for row in positions])


@pytest.mark.parametrize("options", OPTIONS)
def test_each_bootstrap_resample_equals_scoring_it_from_scratch(options):
    scorer = load(**options)
    recs = scorer.score_segments(scorer.validate(SYS_B, MULTI))
    positions = np.random.default_rng(7).integers(0, len(REFS), size=(6, len(REFS)))
    fast = scorer.resampler(recs)(positions)
    assert isinstance(scorer.resampler(recs), DocumentResampler)
    np.testing.assert_allclose(fast, from_scratch(scorer, positions, SYS_B, MULTI), rtol=1e-9)
    np.testing.assert_allclose(fast, reduce_each(scorer, recs)(positions), rtol=1e-9)
    assert len(set(np.round(fast, 9))) > 1  # the resamples really differ


@pytest.mark.parametrize("options", OPTIONS)
def test_each_randomisation_trial_equals_scoring_both_shuffled_corpora_from_scratch(options):
    scorer = load(**options)
    base, system = (scorer.score_segments(scorer.validate(out, MULTI)) for out in (SYS_A, SYS_B))
    n, trials = len(REFS), 5
    pooled = scorer.resampler(base + system)
    fast = paired_randomization(pooled, n, trials, seed=3)  # through swap_differences
    generic = paired_randomization(reduce_each(scorer, base + system), n, trials, seed=3)
    swaps = next(randomization_swaps(n, trials, seed=3))
    side = [[a if s else b for a, b, s in zip(SYS_A, SYS_B, row)] for row in swaps]
    other = [[b if s else a for a, b, s in zip(SYS_A, SYS_B, row)] for row in swaps]
    scratch = [scorer.score(x, MULTI).score - scorer.score(y, MULTI).score for x, y in zip(side, other)]
    np.testing.assert_allclose(fast, scratch, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fast, generic, rtol=1e-9, atol=1e-12)
    assert np.ptp(fast) > 0


def test_one_reference_scales_to_zero_and_fewer_references_add_nothing():
    scaling = load(approach="scaling")
    recs = scaling.score_segments(scaling.validate(SYS_B, REFS))  # one reference: a scale of 2 texts
    positions = np.random.default_rng(1).integers(0, len(REFS), size=(3, len(REFS)))
    assert scaling.resampler(recs)(positions).tolist() == [0.0, 0.0, 0.0]
    direct = load(approach="direct")
    refs = [row if i % 4 else row[:1] for i, row in enumerate(MULTI)]  # some rows with one reference
    preds = [p if i != 5 else "" for i, p in enumerate(SYS_B)]  # an empty prediction
    recs = direct.score_segments(direct.validate(preds, refs))
    np.testing.assert_allclose(direct.resampler(recs)(positions), reduce_each(direct, recs)(positions), rtol=1e-9)
    np.testing.assert_allclose(direct.resampler(recs)(positions), from_scratch(direct, positions, preds, refs),
                               rtol=1e-9)


def test_bad_positions_and_swaps_are_clear_errors():
    scorer = load(approach="scaling")
    recs = scorer.score_segments(scorer.validate(SYS_B, MULTI))
    resample = scorer.resampler(recs)
    with pytest.raises(ValueError, match="lie in 0..23"):
        resample(np.array([[0, 24]]))
    with pytest.raises(ValueError, match="resamples x segments"):
        resample(np.array([0, 1]))
    with pytest.raises(ValueError, match="pooled as baseline"):
        resample.swap_differences(np.zeros((2, 5), dtype=bool))  # 24 records pool 12 + 12


def test_counts_that_are_not_whole_numbers_still_give_the_generic_differences():
    # halved counts (as a hand-edited records file could hold) leave float32's exact range: float64
    scorer = load(approach="scaling")
    base, system = (scorer.score_segments(scorer.validate(out, MULTI)) for out in (SYS_A, SYS_B))

    def halved(rec):
        return {**rec, "counts": {k: v / 2 for k, v in rec["counts"].items()},
                "reference_counts": [{k: v / 2 for k, v in c.items()} for c in rec["reference_counts"]]}

    pooled = [halved(r) for r in base + system]
    fast = paired_randomization(scorer.resampler(pooled), len(REFS), 4, seed=5)
    generic = paired_randomization(reduce_each(scorer, pooled), len(REFS), 4, seed=5)
    np.testing.assert_allclose(fast, generic, rtol=1e-9, atol=1e-12)
    assert np.ptp(fast) > 0

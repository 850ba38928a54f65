"""Metric against metric (nlgmetrics.core.metric_vs_metric): Williams' formula by hand, Perm-Both
and the acc*_eq permutation test calibrated on simulated null data (two metrics equally good:
about 5 % rejected at p < 0.05 over 500 simulations) and powerful when one metric is the human
score plus less noise."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from nlgmetrics.core.meta_system import mean_systems
from nlgmetrics.core.metric_vs_metric import (
    acc_eq_test,
    compare_metrics,
    grouped_pearson_rows,
    pearson_rows,
    perm_both,
    williams_p,
)
from nlgmetrics.core.pairwise import _groups, item_grouped_correlation

SIMS = 500


def test_williams_by_hand_and_batch_statistics_equal_the_scalar_ones():
    # Graham & Baldwin 2014's formula, written out for r_ha=.6, r_hb=.4, r_ab=.5, n=50
    k = 1 - .36 - .16 - .25 + 2 * .6 * .4 * .5
    t = (.6 - .4) * math.sqrt(49 * 1.5) / math.sqrt(2 * 49 / 47 * k + .25 * .5 ** 3)
    assert williams_p(.6, .4, .5, 50) == pytest.approx(2 * scipy.stats.t.sf(t, 47), rel=1e-12)
    assert math.isnan(williams_p(.6, .4, .5, 3))
    rng = np.random.default_rng(0)
    x, h = rng.normal(size=(5, 30)), rng.normal(size=30)
    np.testing.assert_allclose(pearson_rows(x, h), [scipy.stats.pearsonr(r, h).statistic for r in x], rtol=1e-12)
    items = [k // 5 for k in range(30)]
    assert grouped_pearson_rows(x[:1], h, _groups(items))[0] == pytest.approx(
        item_grouped_correlation(x[0], h, items)[0], rel=1e-12)


def _rates(noise_a: float, noise_b: float, seed: int, size: int = 5) -> dict:
    """Share of SIMS simulated corpora where each test gives p < 0.05 (199 permutations: the
    exact level of a valid test is 9/200 = 4.5 %). acc*_eq is tested on 200 rows (40 items of
    ``size`` outputs): its item-level sign flips need items."""
    rng = np.random.default_rng(seed)
    n, items = 40, [k // size for k in range(200)]
    hits = {"perm_both": 0, "williams": 0, "acc_eq": 0}
    for sim in range(SIMS):
        h = rng.normal(size=200)
        a, b = h + rng.normal(0, noise_a, 200), h + rng.normal(0, noise_b, 200)
        hits["acc_eq"] += acc_eq_test(a, b, np.round(h * 2), items, permutations=199, seed=sim)["p_permutation"] < 0.05
        h, a, b = h[:n], a[:n], b[:n]
        _, p = perm_both(a, b, h, pearson_rows, permutations=199, seed=sim)
        hits["perm_both"] += p < 0.05
        r_ab = scipy.stats.pearsonr(a, b).statistic
        hits["williams"] += williams_p(scipy.stats.pearsonr(a, h).statistic, scipy.stats.pearsonr(b, h).statistic,
                                       r_ab, n) < 0.05
    return {k: v / SIMS for k, v in hits.items()}


def test_equally_good_metrics_are_rejected_about_five_percent_of_the_time():
    rates = _rates(1.0, 1.0, seed=11)
    for name, rate in rates.items():  # binomial sd at 500 simulations: ~1 %
        assert 0.025 <= rate <= 0.075, (name, rates)


def test_acc_eq_keeps_its_level_with_ten_outputs_an_item():
    """Swapping each PAIR's outcomes (mt-metrics-eval's PairwisePermutationSigDiff) rejected
    18.6 % here: an item's pairs share outputs. The per-item swap keeps the level."""
    rates = _rates(1.0, 1.0, seed=13, size=10)
    assert 0.02 <= rates["acc_eq"] <= 0.075, rates


def test_a_metric_with_less_noise_is_found_better_far_more_often():
    rates = _rates(0.4, 1.2, seed=12)
    for name, rate in rates.items():
        assert rate >= 0.5, (name, rates)


def test_compare_metrics_reports_both_values_the_difference_an_interval_and_p_values():
    rng = np.random.default_rng(5)
    systems = [s for s in "abcdef" for _ in range(10)]
    items = [k % 10 for k in range(60)]
    quality = {s: q for s, q in zip("abcdef", [0, 1, 2, 3, 4, 5])}
    h = np.array([quality[s] + rng.normal(0, 1) for s in systems])
    good, bad = h + rng.normal(0, 0.3, 60), h + rng.normal(0, 3, 60)
    out = compare_metrics(good.tolist(), bad.tolist(), h.tolist(), systems, items, mean_systems(good, systems),
                          mean_systems(bad, systems), bootstrap=200, permutations=200, seed=1)
    seg = out["segment"]["pearson"]
    assert seg["a"] == pytest.approx(scipy.stats.pearsonr(good, h).statistic) and seg["diff"] > 0.2
    assert seg["p_perm_both"] < 0.01 and seg["p_williams"] < 0.01 and 0 < seg["ci95"][0] < seg["diff"] < seg["ci95"][1]
    assert out["item"]["pearson"]["diff"] > 0 and out["item"]["tie_calibrated_accuracy"]["diff"] > 0
    assert out["system"]["pearson"]["ci95"] is not None and out["n_systems"] == 6
    assert (out["seed"], out["bootstrap"], out["permutations"]) == (1, 200, 200)

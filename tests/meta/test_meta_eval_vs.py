"""Metric against metric (nlgmetrics.meta.metric_vs_metric): Williams' formula by hand, Perm-Both
and the acc*_eq permutation test calibrated on simulated null data (two metrics equally good:
about 5 % rejected at p < 0.05 over 500 simulations) and powerful when one metric is the human
score plus less noise."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from nlgmetrics.meta.batch_stats import SpaRows, grouped_rows, kendall_rows, rank_rows
from nlgmetrics.meta.meta_eval import meta_evaluate
from nlgmetrics.meta.meta_system import mean_systems
from nlgmetrics.meta.metric_vs_metric import (
    acc_eq_test,
    compare_metrics,
    grouped_pearson_rows,
    pearson_rows,
    perm_both,
    perm_p,
    williams_p,
)
from nlgmetrics.meta.pairwise import _groups, item_grouped_correlation, soft_pairwise_accuracy, tie_calibrated_accuracy

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


def _per_pair_swap_p(a, b, h, items, permutations, seed):
    """The per-pair swap (mt-metrics-eval's PairwisePermutationSigDiff, written from its
    description): each pair's two agreement outcomes swapped on their own; two-sided p."""
    outcome = []
    for m in (a, b):
        eps = tie_calibrated_accuracy(m, h, items)[1]
        rows_agree = []
        for rows in _groups(items):
            i, j = np.triu_indices(len(rows), 1)
            dm, dh = m[rows][i] - m[rows][j], h[rows][i] - h[rows][j]
            agree = np.where(np.abs(dm) <= eps, dh == 0, (np.sign(dm) == np.sign(dh)) & (dh != 0))
            rows_agree.append(agree / len(i))
        outcome.append(np.concatenate(rows_agree) / len(rows_agree))
    d = outcome[0] - outcome[1]
    flips = np.where(np.random.default_rng(seed).random((permutations, len(d))) < 0.5, -1.0, 1.0)
    return perm_p(flips @ d, float(d.sum()))


def test_acc_eq_keeps_its_level_with_ten_outputs_an_item_where_per_pair_swaps_do_not():
    """Swapping each PAIR's outcomes on its own makes the null too narrow (an item's pairs
    share outputs); the per-item swap keeps the level."""
    rates = _rates(1.0, 1.0, seed=13, size=10)
    assert 0.02 <= rates["acc_eq"] <= 0.075, rates
    rng = np.random.default_rng(13)
    items = [k // 10 for k in range(200)]
    hits = 0
    for sim in range(300):
        h = rng.normal(size=200)
        a, b = h + rng.normal(size=200), h + rng.normal(size=200)
        hits += _per_pair_swap_p(a, b, np.round(h * 2), items, 199, sim) < 0.05
    assert hits / 300 >= 0.12, hits / 300  # measured: 17.3 % here (per-item swap: 4.6 %)


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


def test_batch_item_statistics_and_spa_equal_the_scalar_ones():
    rng = np.random.default_rng(2)
    x = np.round(rng.normal(size=(4, 30)), 1)  # ties on the metric side
    h = np.round(rng.normal(size=30))  # and on the human side
    items = [k // 6 for k in range(30)]
    groups = _groups(items)
    for method in ("pearson", "spearman", "kendall"):
        want = [item_grouped_correlation(row, h, items, method)[0] for row in x]
        np.testing.assert_allclose(grouped_rows(method, x, h, groups), want, rtol=1e-12, err_msg=method)
    long = np.round(rng.normal(size=(2, 80)), 1)
    np.testing.assert_array_equal(rank_rows(x), scipy.stats.rankdata(x, axis=1))
    np.testing.assert_array_equal(rank_rows(long), scipy.stats.rankdata(long, axis=1))
    assert kendall_rows(np.array([[1.0, 2, 3, 4]]), np.array([1.0, 3, 2, 4]))[0] == pytest.approx(4 / 6)  # 5 C, 1 D
    m, g = rng.normal(size=(4, 7)), rng.normal(size=(4, 7))
    assert SpaRows(g, 60, 3)(np.stack([m, g])) == pytest.approx([soft_pairwise_accuracy(m, g, 60, 3), 1.0], abs=1e-15)


def test_p_value_sides_by_hand():
    null = np.array([-3.0, -1.0, 0.0, 1.0, 2.0])
    assert perm_p(null, 1.0) == 5 / 6 and perm_p(null, 1.0, "greater") == 3 / 6
    assert perm_p(null, -1.0, "greater") == 5 / 6
    t = (.6 - .4) * math.sqrt(49 * 1.5) / math.sqrt(2 * 49 / 47 * (1 - .77 + .24) + .25 * .5 ** 3)
    assert williams_p(.6, .4, .5, 50, "greater") == pytest.approx(scipy.stats.t.sf(t, 47), rel=1e-12)
    assert williams_p(.4, .6, .5, 50, "greater") == pytest.approx(1 - scipy.stats.t.sf(t, 47), rel=1e-12)
    with pytest.raises(ValueError, match="alternative"):
        compare_metrics([1.0], [1.0], [1.0], [None], [None], mean_systems([1.0], [None]), mean_systems([1.0], [None]),
                        alternative="less")


def _spa_and_item_rates(noise_a: float, noise_b: float, seed: int, sims: int) -> dict:
    """Share of ``sims`` null corpora (4 systems x 12 items, 3 system qualities) rejected at
    p < 0.05 by Perm-Both on item-level Spearman, Kendall and on SPA (99 permutations)."""
    rng = np.random.default_rng(seed)
    items = [k % 12 for k in range(48)]
    groups = _groups(items)
    quality = np.repeat([0.0, 0.5, 1.0, 1.5], 12)
    hits = {"spearman": 0, "kendall": 0, "spa": 0}
    for sim in range(sims):
        h = quality + rng.normal(size=48)
        a, b = h + rng.normal(0, noise_a, 48), h + rng.normal(0, noise_b, 48)
        for method in ("spearman", "kendall"):
            stat = (lambda m: lambda x, y: grouped_rows(m, x, y, groups))(method)
            hits[method] += perm_both(a, b, h, stat, permutations=99, seed=sim)[1] < 0.05
        spa = SpaRows(h.reshape(4, 12), 20, sim)
        hits["spa"] += perm_both(a.reshape(4, 12), b.reshape(4, 12), None, lambda x, _, f=spa: f(x), 99, sim)[1] < 0.05
    return {k: v / sims for k, v in hits.items()}


def test_item_rank_correlations_and_spa_keep_their_level_and_find_the_better_metric():
    null = _spa_and_item_rates(1.0, 1.0, seed=21, sims=500)  # measured: 2.4 %, 3.2 %, 2.6 %
    for name, rate in null.items():  # exact level 5/100 = 5 %
        assert 0.02 <= rate <= 0.075, (name, null)
    power = _spa_and_item_rates(0.3, 2.0, seed=22, sims=100)
    for name, rate in power.items():
        assert rate >= 0.35 and rate >= 4 * null[name], (name, null, power)


def test_compare_metrics_compares_every_statistic_and_a_metric_with_itself_not_at_all():
    rng = np.random.default_rng(8)
    systems = [s for s in "abcde" for _ in range(8)]
    items = [k % 8 for k in range(40)]
    h = np.array([ord(s) - 97 + rng.normal() for s in systems])
    m = h + rng.normal(0, 1, 40)
    kw = dict(bootstrap=30, permutations=40, seed=2)
    out = compare_metrics(m.tolist(), (3 * m + 1).tolist(), h.tolist(), systems, items, mean_systems(m, systems),
                          mean_systems(3 * m + 1, systems), **kw)
    single = meta_evaluate(m.tolist(), h.tolist(), systems, items, **kw)
    assert set(out["item"]) == {"pearson", "spearman", "kendall", "tie_calibrated_accuracy"}
    for method in ("pearson", "spearman", "kendall"):
        v = out["item"][method]
        assert v["a"] == pytest.approx(single["item"][method]["value"], abs=1e-12)
        assert v["diff"] == pytest.approx(0, abs=1e-12) and v["p_perm_both"] == 1.0
        assert v["ci95"] == pytest.approx([0, 0], abs=1e-12)
    spa = out["pairwise"]["soft_pairwise_accuracy"]
    assert spa["a"] == spa["b"] == single["pairwise"]["soft_pairwise_accuracy"]["value"] and spa["p_perm_both"] == 1.0
    assert out["sides"] == "two-sided (A and B differ)"
    worse = (h + rng.normal(0, 3, 40)).tolist()
    one, two = (compare_metrics(m.tolist(), worse, h.tolist(), systems, items, mean_systems(m, systems),
                                mean_systems(m, systems), alternative=side, **kw) for side in ("greater", "two-sided"))
    assert one["sides"].startswith("one-sided") and one["segment"]["pearson"]["diff"] > 0
    assert one["segment"]["pearson"]["p_williams"] == pytest.approx(two["segment"]["pearson"]["p_williams"] / 2)

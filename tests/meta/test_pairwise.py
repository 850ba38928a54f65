"""WMT's newer meta-evaluation statistics (nlgmetrics.meta.pairwise, nlgmetrics.meta.meta_eval)
on small cases computed by hand, and on the worked example of Thompson et al.'s definition."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from nlgmetrics.meta.meta_eval import meta_evaluate
from nlgmetrics.meta.pairwise import (
    item_grouped_correlation,
    pairwise_accuracy,
    pairwise_p_values,
    permutation_flips,
    soft_pairwise_accuracy,
    tie_calibrated_accuracy,
)


def test_pairwise_accuracy_by_hand():
    # pairs (0,1) (0,2) (0,3) (2,3) ordered alike; (1,2): metric tie, human 60 < 70 -> wrong;
    # (1,3): metric 0.5 > 0.1, human tie -> wrong: 4 of 6
    assert pairwise_accuracy([0.9, 0.5, 0.5, 0.1], [80, 60, 70, 60]) == pytest.approx(4 / 6)
    assert pairwise_accuracy([1, 1], [2, 2]) == 1.0  # tied on both sides agrees
    assert np.isnan(pairwise_accuracy([1], [2]))


ALL_FLIPS_3 = np.array(list(itertools.product([1.0, -1.0], repeat=3)))


def test_permutation_p_values_and_soft_pairwise_accuracy_by_hand():
    # human: system 0 = [3, 2, 1], system 1 = [1, 1, 1]: per-item differences [2, 1, 0], total 3;
    # over the 8 sign patterns f, f . [2, 1, 0] is 3, 3, 1, 1, -1, -1, -3, -3 -> p(0 > 1) = 2/8
    human = np.array([[3.0, 2.0, 1.0], [1.0, 1.0, 1.0]])
    # metric: differences [-0.25, 0.25, 0.25], total 0.25; f . d over the 8 patterns is
    # 0.25, -0.25, -0.25, -0.75, 0.75, 0.25, 0.25, -0.25 -> 4 reach 0.25: p = 4/8
    metric = np.array([[0.5, 0.25, 1.0], [0.75, 0.0, 0.75]])
    assert pairwise_p_values(human, ALL_FLIPS_3)[0, 1] == 0.25
    assert pairwise_p_values(metric, ALL_FLIPS_3)[0, 1] == 0.5
    # SPA = 1 - |0.25 - 0.5| = 0.75 with every pattern; random flips approach it
    assert soft_pairwise_accuracy(metric, human, permutations=40000, seed=1) == pytest.approx(0.75, abs=0.01)
    # and equals the definition on its own flips
    flips = permutation_flips(3, 500, seed=2)
    spa = 1 - abs(pairwise_p_values(human, flips)[0, 1] - pairwise_p_values(metric, flips)[0, 1])
    assert soft_pairwise_accuracy(metric, human, permutations=500, seed=2) == spa
    assert soft_pairwise_accuracy(human, human) == 1.0


def test_soft_pairwise_accuracy_follows_thompson_et_al_worked_example():
    # The worked example of mt-metrics-eval's pce.compute_pairwise_p_values (Thompson, WMT24):
    # scoresA = [0.8, 0.9, 0.7, 1.0, 0.6], scoresB = [0.2, 0.3, 0.1, 0.4, 0.0] (here x10, which
    # changes no p-value and keeps the sums exact), test_delta = sum(A) - sum(B) = 30; ten
    # sign patterns (2m - 1) give null deltas (x10) -6, 6, 6, -6, 18, -6, 30, 6, 6, -18, and
    # "the p value is the fraction of the time that null_delta >= test_delta": 1/10.
    a = [8.0, 9.0, 7.0, 10.0, 6.0]
    b = [2.0, 3.0, 1.0, 4.0, 0.0]
    flips = np.array([[1, 1, -1, -1, -1], [1, -1, 1, -1, 1], [1, -1, 1, 1, -1], [-1, 1, -1, -1, 1],
                      [1, 1, 1, -1, 1], [-1, 1, -1, 1, -1], [1, 1, 1, 1, 1], [1, -1, 1, -1, 1],
                      [1, 1, -1, -1, 1], [-1, 1, -1, -1, -1]], dtype=float)
    null = flips @ (np.array(a) - np.array(b))
    np.testing.assert_array_equal(null, [-6, 6, 6, -6, 18, -6, 30, 6, 6, -18])
    assert pairwise_p_values(np.array([a, b]), flips)[0, 1] == 0.1
    # B better than A never happens: p(B > A) = 1
    assert pairwise_p_values(np.array([b, a]), flips)[0, 1] == 1.0


def test_tie_calibrated_accuracy_by_hand_and_as_deutsch_et_al_define_it():
    # item A: rows (metric, human) (0.10, 3), (0.12, 3), (0.50, 5); item B: (0.30, 2), (0.90, 1), (0.35, 2)
    metric = [0.10, 0.12, 0.50, 0.30, 0.90, 0.35]
    human = [3, 3, 5, 2, 1, 2]
    items = ["A", "A", "A", "B", "B", "B"]
    # Deutsch et al.'s acc_eq = (C + T_hm) / (C + D + T_h + T_m + T_hm) per item, averaged over items.
    # epsilon 0: A has C=2, T_h=1 (0.10 vs 0.12, humans tied) -> 2/3; B has D=2, T_h=1 -> 0; mean 1/3
    # epsilon 0.02: A's 0.02 gap becomes a tie on both sides -> A = 3/3, mean 1/2
    # epsilon 0.05: B's (0.30, 0.35) pair, humans tied, becomes T_hm -> B = 1/3, mean 2/3
    # epsilon 0.38: A's concordant (0.12, 0.50) becomes T_m -> A = 2/3, mean 1/2; larger ones no better
    acc, eps = tie_calibrated_accuracy(metric, human, items)
    assert acc == pytest.approx(2 / 3) and eps == pytest.approx(0.05)
    # without groups: all rows one group (3 pairs: two concordant, one tied by the humans only)
    flat, flat_eps = tie_calibrated_accuracy([1.0, 2.0, 2.5], [1, 2, 2])
    assert (flat, flat_eps) == (pytest.approx(1.0), 0.5)  # the 0.5 gap tied like the humans' tie
    assert tie_calibrated_accuracy([1.0, 2.0], [1, 2]) == (1.0, 0.0)  # no tie helps: epsilon 0
    assert all(np.isnan(tie_calibrated_accuracy([1.0, 2.0], [1, 2], ["x", "y"])))


def test_item_grouped_correlation_by_hand():
    metric = [1, 2, 3, 1, 2, 3, 1, 2, 3, 5]
    human = [1, 2, 3, 3, 2, 1, 4, 4, 4, 1]
    items = ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"]
    # a: +1, b: -1, c: human constant (undefined, left out), d: one row (left out)
    assert item_grouped_correlation(metric, human, items, "pearson") == (0.0, 2)
    # kendall on one item: metric 1 2 3 vs human 1 3 2 -> (2 concordant - 1 discordant) / 3
    assert item_grouped_correlation([1, 2, 3], [1, 3, 2], [0, 0, 0], "kendall")[0] == pytest.approx(1 / 3)


def test_meta_evaluate_puts_the_new_statistics_beside_the_correlations():
    # 3 systems x 4 items
    human = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 1.5, 2.0, 3.5], [0.0, 0.5, 1.0, 0.5]])
    metric = human + np.array([[0.1, -0.1, 0.0, 0.2], [0.3, 0.0, -0.2, 0.1], [0.0, 0.4, 0.0, 0.1]])
    systems = [s for s in "xyz" for _ in range(4)]
    items = [i for _ in range(3) for i in range(4)]
    out = meta_evaluate(metric.ravel().tolist(), human.ravel().tolist(), systems, items, bootstrap=0,
                        permutations=200, seed=3)
    assert out["pairwise"]["pairwise_accuracy"] == {"value": pairwise_accuracy(metric.mean(1), human.mean(1)),
                                                    "n_pairs": 3}
    spa = out["pairwise"]["soft_pairwise_accuracy"]
    assert spa["value"] == soft_pairwise_accuracy(metric, human, 200, 3) and spa["n_items"] == 4
    acc, eps = tie_calibrated_accuracy(metric.ravel(), human.ravel(), items)
    assert out["item"]["tie_calibrated_accuracy"] == {"value": acc, "epsilon": eps, "n_items": 4}
    assert out["item"]["pearson"]["value"] == item_grouped_correlation(metric.ravel(), human.ravel(), items)[0]
    assert set(out["segment"]) == {"pearson", "spearman", "kendall"} and out["n_systems"] == 3
    # no items: no item level and no soft pairwise accuracy; no systems: no pairwise level
    bare = meta_evaluate(metric.ravel().tolist(), human.ravel().tolist(), bootstrap=0)
    assert bare["item"] == {} and bare["pairwise"] == {} and bare["system"] == {}

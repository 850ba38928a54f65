"""The stats functions agree with scipy on random inputs; DARR tau agrees with a hand count."""
import math

import numpy as np
import pytest
import scipy.stats as ss

from nlgmetrics.core import stats


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("ties", [False, True])
def test_correlations_match_scipy(seed, ties):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    x, y = rng.normal(size=n), rng.normal(size=n) + 0.3 * np.arange(n) / n
    if ties:
        x, y = np.round(x, 1), np.round(y * 2) / 2
    assert stats.pearson(x, y) == pytest.approx(ss.pearsonr(x, y).statistic, abs=1e-12)
    assert stats.spearman(x, y) == pytest.approx(ss.spearmanr(x, y).statistic, abs=1e-12)
    assert stats.kendall_tau_b(x, y) == pytest.approx(ss.kendalltau(x, y, variant="b").statistic, abs=1e-12)
    np.testing.assert_allclose(stats.rankdata(x), ss.rankdata(x))


def test_undefined_correlations_are_nan_and_bad_input_raises():
    assert math.isnan(stats.pearson([1, 1, 1], [1, 2, 3]))
    assert math.isnan(stats.kendall_tau_b([1], [2]))
    with pytest.raises(ValueError, match="equal length"):
        stats.pearson([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="NaN"):
        stats.spearman([1, float("nan")], [1, 2])


def test_darr_tau_hand_count():
    # better/worse metric scores: 3 concordant, 1 discordant, 1 tie (counts as discordant)
    better = [0.9, 0.8, 0.5, 0.4, 0.3]
    worse = [0.1, 0.2, 0.6, 0.4, 0.2]
    assert stats.darr_tau(better, worse) == pytest.approx((3 - 2) / 5)


def test_darr_pairs_threshold_25():
    # one source, three outputs: raw human 90, 70, 50; metric 0.3, 0.2, 0.1
    group = [(90.0, 0.3), (70.0, 0.2), (50.0, 0.1)]
    better, worse = stats.darr_pairs([group])
    assert (better, worse) == ([0.3], [0.1])  # only 90 vs 50 differs by >= 25
    better, worse = stats.darr_pairs([[(50.0, 0.9), (80.0, 0.1)]])
    assert (better, worse) == ([0.1], [0.9])


def test_system_level_and_bootstrap():
    metric = [1, 2, 3, 4, 5, 6]
    human = [1, 1, 2, 2, 3, 3]
    systems = ["a", "a", "b", "b", "c", "c"]
    m, h = stats.system_level(metric, human, systems)
    assert m == [1.5, 3.5, 5.5] and h == [1, 2, 3]
    assert stats.system_correlation(metric, human, systems) == pytest.approx(1.0)
    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    y = x + rng.normal(size=200)
    lo, hi = stats.bootstrap_ci(stats.pearson, x, y, n_resamples=300)
    assert lo < stats.pearson(x, y) < hi
    assert lo > 0.4 and hi < 0.9
    assert stats.bootstrap_ci(stats.pearson, x, y, n_resamples=50, seed=3) == \
        stats.bootstrap_ci(stats.pearson, x, y, n_resamples=50, seed=3)


@pytest.mark.parametrize("seed", range(4))
def test_g2_matches_scipy_contingency(seed):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 6, size=(2, 7))
    table[:, 0] = [0, 3]  # a zero cell
    table[:, 1] = [0, 0]  # an empty column is ignored
    kept = table[:, table.sum(axis=0) > 0]
    expected = ss.chi2_contingency(kept, correction=False, lambda_="log-likelihood").statistic
    assert stats.g2(table[0], table[1]) == pytest.approx(expected, rel=1e-10)
    assert stats.g2([0, 0], [0, 0]) == 0.0
    assert stats.g2([1, 2, 3], [2, 4, 6]) == pytest.approx(0.0, abs=1e-12)


def test_g2_neg_log_p():
    for value, df in [(3.84, 1), (0.01, 1), (50.0, 3), (1000.0, 40), (3000.0, 2000)]:
        assert stats.g2_neg_log_p(value, df) == pytest.approx(-ss.chi2.logsf(value, df), rel=1e-9)
    assert stats.g2_neg_log_p(5.0, 0) == 0.0 and stats.g2_neg_log_p(0.0, 4) == 0.0
    assert math.isfinite(stats.g2_neg_log_p(1e5, 10))  # where scipy's logsf underflows


def test_mds_recovers_line():
    x = np.array([0.0, 1.0, 3.0, 7.0, 8.5])
    d = np.abs(x[:, None] - x[None, :])
    coords, r2 = stats.classical_mds_1d(d)
    coords = coords - coords.mean()
    target = x - x.mean()
    assert r2 == pytest.approx(1.0)
    assert min(np.abs(coords - target).max(), np.abs(coords + target).max()) < 1e-9


def test_correlations_hand_computed():
    # x = 1..5, y = 2, 1, 4, 3, 5: Sxy = 8, Sxx = Syy = 10 -> r = 0.8; no ties so rho = r
    x, y = [1, 2, 3, 4, 5], [2, 1, 4, 3, 5]
    assert stats.pearson(x, y) == pytest.approx(0.8, abs=1e-15)
    assert stats.spearman(x, y) == pytest.approx(0.8, abs=1e-15)
    # pairs: 10, discordant (1,2) and (3,4) -> tau = (8 - 2) / 10
    assert stats.kendall_tau_b(x, y) == pytest.approx(0.6, abs=1e-15)
    # tau-b with ties: x = 1,1,2,3, y = 1,2,2,3: C = 4, D = 0, ties in x 1 pair, in y 1 pair
    assert stats.kendall_tau_b([1, 1, 2, 3], [1, 2, 2, 3]) == pytest.approx(4 / math.sqrt(5 * 5), abs=1e-15)
    np.testing.assert_array_equal(stats.rankdata([3.0, 1.0, 3.0, 2.0]), [3.5, 1.0, 3.5, 2.0])
    # perfect and inverted orders, and two points
    assert stats.spearman([1, 5, 9], [0.1, 0.2, 7.0]) == pytest.approx(1.0)
    assert stats.kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert stats.pearson([0, 1], [5, 3]) == pytest.approx(-1.0)


@pytest.mark.parametrize("fn", [stats.pearson, stats.spearman, stats.kendall_tau_b])
def test_undefined_is_nan_without_warning(fn, recwarn):
    assert math.isnan(fn([1, 1, 1], [1, 2, 3]))
    assert math.isnan(fn([1, 2, 3], [4, 4, 4]))
    assert math.isnan(fn([1], [2])) and math.isnan(fn([], []))
    assert len(recwarn) == 0

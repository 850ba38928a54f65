"""The row-wise statistics (significance tests' resamples) equal their one-at-a-time forms:
g2_rows = g2 (scipy's contingency G2 on hand tables), g2_neg_log_p_rows = g2_neg_log_p (the
far tail included), classical_mds_1d_rows = classical_mds_1d's coordinates up to sign."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.core import stats


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_g2_rows_equals_g2_row_by_row(rows, k, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, (rows, k)) * rng.integers(0, 2, (rows, k))  # many zero cells
    b = rng.integers(0, 4, (rows, k)) * rng.integers(0, 2, (rows, k))
    a[0] = 0  # an empty row: a table with one row empty
    got = stats.g2_rows(a, b)
    want = [stats.g2(x, y) for x, y in zip(a, b)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_g2_rows_hand_values():
    # [[10, 20], [20, 10]]: every E = 15, G2 = 2 (20 ln(10/15) + 40 ln(20/15)) = 6.79596; an
    # empty table gives 0, proportional rows give 0
    table = np.array([[10.0, 20.0], [20.0, 10.0]])
    expected = ss.chi2_contingency(table, correction=False, lambda_="log-likelihood").statistic
    got = stats.g2_rows(np.array([[10, 20], [0, 0], [1, 2]]), np.array([[20, 10], [0, 0], [2, 4]]))
    assert got[0] == pytest.approx(expected, rel=1e-12) and got[0] == pytest.approx(2 * (20 * np.log(10 / 15) + 40 * np.log(20 / 15)), rel=1e-12)
    assert got[1] == 0.0 and got[2] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="non-negative"):
        stats.g2_rows(np.array([[1, -1]]), np.array([[1, 1]]))
    with pytest.raises(ValueError, match="equal shape"):
        stats.g2_rows(np.array([[1, 1]]), np.array([[1, 1, 1]]))


def test_g2_neg_log_p_rows_equals_the_scalar_form_far_tail_included():
    values = np.array([3.84, 0.01, 50.0, 1000.0, 3000.0, 5.0, 0.0, 1e5, 2e4])
    df = np.array([1, 1, 3, 40, 2000, 0, 4, 10, 3])
    want = [stats.g2_neg_log_p(v, int(k)) for v, k in zip(values, df)]
    np.testing.assert_allclose(stats.g2_neg_log_p_rows(values, df), want, rtol=1e-12)
    assert want[5] == 0.0 and want[6] == 0.0 and want[7] > 4e4  # df 0, G2 0, the continued fraction
    assert stats.g2_neg_log_p_rows(values[:3], df[:3])[0] == pytest.approx(-ss.chi2.logsf(3.84, 1), rel=1e-9)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_classical_mds_1d_rows_equals_classical_mds_1d_up_to_sign(n):
    rng = np.random.default_rng(n)
    points = rng.normal(size=(40, n, 2)) * [3.0, 1.0]
    d = np.linalg.norm(points[:, :, None] - points[:, None, :], axis=-1)
    got = stats.classical_mds_1d_rows(d)
    for row, dist in zip(got, d):
        want = stats.classical_mds_1d(dist)[0]
        assert min(np.abs(row - want).max(), np.abs(row + want).max()) < 1e-9 * max(1.0, np.abs(want).max())
    assert stats.classical_mds_1d_rows(np.zeros((3, 1, 1))).tolist() == [[0.0], [0.0], [0.0]]
    with pytest.raises(ValueError, match="square"):
        stats.classical_mds_1d_rows(np.zeros((2, 3, 2)))

"""Meta-evaluation statistics of many metric vectors at once (one a row of ``x``, the human
side shared), for the permutation tests of :mod:`nlgmetrics.meta.metric_vs_metric`: Pearson,
item-grouped Pearson, Spearman and Kendall tau-b (the mean over the items where defined, as
:func:`~nlgmetrics.meta.pairwise.item_grouped_correlation`), and soft pairwise accuracy over a
systems x items matrix (:func:`~nlgmetrics.meta.pairwise.soft_pairwise_accuracy`)."""
from __future__ import annotations

from typing import List

import numpy as np
import scipy.stats

from .pairwise import pairwise_p_values, permutation_flips


def pearson_rows(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of ``x`` (draws x n) with ``h`` (nan for a constant row or a
    constant ``h``, as scipy's ``pearsonr``: told by equal values, not by a centred sum, which
    rounding leaves above 0 for some constants, 0.7 say, and then gave 0.0).

    >>> pearson_rows(np.array([[0.7] * 7, [0.0, 1, 2, 3, 4, 5, 7]]), np.arange(7.0)).round(4)
    array([   nan, 0.9923])
    """
    xc = x - x.mean(axis=1, keepdims=True)
    hc = h - h.mean()
    denom = np.sqrt((xc * xc).sum(axis=1) * float(hc @ hc))
    constant = (x == x[:, :1]).all(axis=1) | bool(h.size == 0 or (h == h[0]).all())
    usable = (denom > 0) & ~constant
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(np.where(usable, xc @ hc / np.where(usable, denom, 1), np.nan), -1, 1)


def rank_rows(x: np.ndarray) -> np.ndarray:
    """Average ranks (1-based) along each row: ``#{x_j < x_i} + (#{x_j == x_i} + 1) / 2``,
    by comparison for short rows (an item's outputs), scipy's rankdata for long ones."""
    if x.shape[1] > 64:
        return np.asarray(scipy.stats.rankdata(x, axis=1), dtype=float)
    less = (x[:, :, None] > x[:, None, :]).sum(axis=2)
    equal = (x[:, :, None] == x[:, None, :]).sum(axis=2)
    return less + (equal + 1) / 2


def spearman_rows(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row of ``x`` with ``h``: Pearson of average ranks."""
    return pearson_rows(rank_rows(x), scipy.stats.rankdata(h))


def kendall_rows(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Kendall tau-b of each row of ``x`` with ``h`` over all pairs (for items: small n):
    ``sum sx sy / sqrt(sum sx^2 sum sy^2)`` with ``sx = sign(x_i - x_j)``; nan for a constant side."""
    i, j = np.triu_indices(x.shape[1], 1)
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(h[i] - h[j])
    denom = np.sqrt((sx * sx).sum(axis=1) * float(sy @ sy))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, sx @ sy / np.where(denom > 0, denom, 1), np.nan)


ROWS = {"pearson": pearson_rows, "spearman": spearman_rows, "kendall": kendall_rows}


def grouped_rows(method: str, x: np.ndarray, h: np.ndarray, groups: List[np.ndarray]) -> np.ndarray:
    """Item-grouped ``method`` of each row of ``x``: the mean over groups where defined (nan: none)."""
    fn = ROWS[method]
    total, count = np.zeros(len(x)), np.zeros(len(x))
    for rows in groups:
        r = fn(x[:, rows], h[rows])
        ok = np.isfinite(r)
        total += np.where(ok, r, 0.0)
        count += ok
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def grouped_pearson_rows(x: np.ndarray, h: np.ndarray, groups: List[np.ndarray]) -> np.ndarray:
    """Item-grouped Pearson of each row of ``x`` (:func:`grouped_rows`)."""
    return grouped_rows("pearson", x, h, groups)


def per_group(method: str, x: np.ndarray, h: np.ndarray, groups: List[np.ndarray]) -> np.ndarray:
    """``method`` within each group of the one vector ``x`` (nan where undefined)."""
    return np.array([ROWS[method](x[None, rows], h[rows])[0] for rows in groups])


class SpaRows:
    """Soft pairwise accuracy of many systems x items metric matrices against one human
    matrix, with the flips of ``soft_pairwise_accuracy(..., permutations, seed)``: equal to it."""

    def __init__(self, human: np.ndarray, permutations: int, seed: int) -> None:
        self.flips = permutation_flips(human.shape[1], permutations, seed)
        self.iu = np.triu_indices(human.shape[0], 1)
        self.p_human = pairwise_p_values(human, self.flips)[self.iu]

    def __call__(self, matrices: np.ndarray) -> np.ndarray:
        """SPA of each ``systems x items`` matrix of the stack ``matrices`` (at once)."""
        s = np.asarray(matrices, dtype=float)
        partial = s @ self.flips.T  # stack x systems x permutations
        totals = s.sum(axis=2)
        i, j = self.iu
        tol = 1e-9 * np.maximum(1.0, np.abs(s).sum(axis=2).max(axis=1))  # as pairwise_p_values
        reach = partial[:, i, :] - partial[:, j, :] >= (totals[:, i] - totals[:, j] - tol[:, None])[:, :, None]
        return 1.0 - np.abs(self.p_human - reach.mean(axis=2)).mean(axis=1)


__all__ = ["ROWS", "SpaRows", "rank_rows", "grouped_pearson_rows", "grouped_rows", "kendall_rows", "pearson_rows", "per_group",
           "spearman_rows"]

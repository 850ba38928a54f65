"""The meta-evaluation statistics WMT's metrics task uses now, as google-research/mt-metrics-eval
defines them (re-implemented here from the definitions):

- **pairwise accuracy** (Kocmi et al. 2021, "To ship or not to ship"): over all pairs of
  systems, the share whose order the metric gets right: ``sign(m_i - m_j) == sign(h_i - h_j)``
  (a tie on both sides agrees, a tie on one side only does not).
- **soft pairwise accuracy** (Thompson et al., WMT24): for each pair of systems i < j, the
  p-value of "i is better than j" from a paired permutation test on the segment scores, once
  with the human and once with the metric scores; ``SPA = 1 - mean_{i<j} |p^h_ij - p^m_ij|``.
  The permutation test flips, per permutation, each item's pair of scores with probability 1/2
  (the same flips for human and metric) and ``p_ij = #{null_delta >= delta} / K`` with
  ``delta = sum_l (s_il - s_jl)`` and ``null_delta = sum_l f_l (s_il - s_jl)``, ``f_l = +-1``.
- **tie-calibrated pairwise accuracy** acc*_eq (Deutsch et al. 2023, "Ties matter"): over
  pairs of outputs of the same item, ``acc_eq = (C + T_hm) / (C + D + T_h + T_m + T_hm)``:
  concordant pairs plus pairs tied on both sides, over all pairs; a metric difference with
  ``|m_a - m_b| <= epsilon`` counts as a metric tie, human ties are exact. Per item, then
  averaged over the items with a pair; ``epsilon`` is searched over 0 and every pair's metric
  difference and the smallest one reaching the best average is reported with it.
- **item-grouped correlation** (mt-metrics-eval's ``average_by="item"``): a correlation over
  the outputs of each item (one per system), averaged over the items where it is defined.
"""
from __future__ import annotations

from typing import Callable, Dict, Hashable, List, Sequence, Tuple

import numpy as np

from .stats import CORRELATIONS, Vector, _pair


def pairwise_accuracy(metric: Vector, human: Vector) -> float:
    """Share of the pairs of systems that the metric orders as the humans do (ties agree
    only with ties); ``nan`` for fewer than two systems.

    >>> pairwise_accuracy([3, 2, 1], [0.9, 0.1, 0.5])
    0.6666666666666666
    """
    m, h = _pair(metric, human)
    if len(m) < 2:
        return float("nan")
    iu = np.triu_indices(len(m), 1)
    agree = np.sign(m[:, None] - m[None, :])[iu] == np.sign(h[:, None] - h[None, :])[iu]
    return float(agree.mean())


def permutation_flips(n_items: int, permutations: int = 1000, seed: int = 0) -> np.ndarray:
    """``permutations x n_items`` of +1 / -1, each with probability 1/2
    (``numpy.random.default_rng(seed)``)."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random((permutations, n_items)) < 0.5, 1.0, -1.0)


def pairwise_p_values(scores: np.ndarray, flips: np.ndarray) -> np.ndarray:
    """For a ``systems x items`` score matrix: ``p[i, j]`` (i < j; ``nan`` elsewhere) the
    paired permutation p-value of "system i is better than system j" under ``flips``."""
    s = np.asarray(scores, dtype=float)
    partial = flips @ s.T  # permutations x systems
    totals = s.sum(axis=1)
    n = s.shape[0]
    p = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i + 1, n):
            p[i, j] = float(np.mean(partial[:, i] - partial[:, j] >= totals[i] - totals[j]))
    return p


def soft_pairwise_accuracy(metric: np.ndarray, human: np.ndarray, permutations: int = 1000, seed: int = 0) -> float:
    """SPA of ``systems x items`` metric and human score matrices (every system scored on
    every item): ``1 - mean |p^h_ij - p^m_ij|`` over system pairs; ``nan`` for fewer than two
    systems."""
    m, h = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    if m.shape != h.shape or m.ndim != 2:
        raise ValueError(f"need two systems x items matrices of one shape, got {m.shape} and {h.shape}")
    if not (np.isfinite(m).all() and np.isfinite(h).all()):
        raise ValueError("inputs contain NaN or infinite values")
    if m.shape[0] < 2 or m.shape[1] < 1:
        return float("nan")
    flips = permutation_flips(m.shape[1], permutations, seed)
    iu = np.triu_indices(m.shape[0], 1)
    return float(1.0 - np.mean(np.abs(pairwise_p_values(h, flips) - pairwise_p_values(m, flips))[iu]))


def _group_pairs(groups: Sequence[Hashable], n: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, group index) of every pair of rows within a group; each group's rows once."""
    where: Dict[Hashable, List[int]] = {}
    for row, g in enumerate(groups):
        where.setdefault(g, []).append(row)
    a: List[np.ndarray] = []
    b: List[np.ndarray] = []
    gid: List[np.ndarray] = []
    for k, rows in enumerate(where.values()):
        if len(rows) < 2:
            continue
        r = np.asarray(rows)
        i, j = np.triu_indices(len(r), 1)
        a.append(r[i])
        b.append(r[j])
        gid.append(np.full(len(i), k))
    if not a:
        return np.zeros(0, int), np.zeros(0, int), np.zeros(0, int)
    return np.concatenate(a), np.concatenate(b), np.concatenate(gid)


def tie_calibrated_accuracy(metric: Vector, human: Vector, groups: Sequence[Hashable] | None = None
                            ) -> Tuple[float, float]:
    """``(acc*_eq, epsilon)``: the pairwise accuracy with ties, averaged over ``groups`` (the
    items; None: all rows one group), at the metric tie threshold epsilon that maximises it
    (the smallest such). ``(nan, nan)`` when no group has two rows.

    >>> tie_calibrated_accuracy([0.50, 0.52, 0.90], [1, 1, 2])
    (1.0, 0.020000000000000018)
    """
    m, h = _pair(metric, human)
    groups = [0] * len(m) if groups is None else list(groups)
    if len(groups) != len(m):
        raise ValueError(f"groups has {len(groups)} items but the scores {len(m)}")
    a, b, gid = _group_pairs(groups, len(m))
    if not len(a):
        return float("nan"), float("nan")
    pairs_per_group = np.bincount(gid)
    used = pairs_per_group > 0
    weight = 1.0 / (pairs_per_group[gid] * used.sum())  # each group's accuracy counts equally
    dm, dh = m[a] - m[b], h[a] - h[b]
    human_tie = dh == 0
    untied = (np.sign(dm) == np.sign(dh)).astype(float)  # concordant, or tied on both sides
    tied = human_tie.astype(float)
    gap = np.abs(dm)
    order = np.argsort(gap, kind="stable")
    gains = np.cumsum(((tied - untied) * weight)[order])
    base = float((untied * weight).sum())
    sorted_gap = gap[order]
    last = np.r_[sorted_gap[1:] != sorted_gap[:-1], True]  # the last pair of each distinct gap
    thresholds = np.r_[0.0, sorted_gap[last]]
    values = np.r_[base, base + gains[last]]
    best = int(np.argmax(values))
    return float(values[best]), float(thresholds[best])


def item_grouped_correlation(metric: Vector, human: Vector, items: Sequence[Hashable], method: str = "pearson"
                             ) -> Tuple[float, int]:
    """``(mean correlation, items averaged)``: ``method`` (pearson, spearman, kendall) over
    the rows of each item, averaged over the items where it is defined (two rows or more,
    neither side constant); ``(nan, 0)`` when none is."""
    m, h = _pair(metric, human)
    if len(items) != len(m):
        raise ValueError(f"items has {len(items)} entries but the scores {len(m)}")
    fn: Callable[[Vector, Vector], float] = CORRELATIONS[method]
    where: Dict[Hashable, List[int]] = {}
    for row, item in enumerate(items):
        where.setdefault(item, []).append(row)
    values = [fn(m[rows], h[rows]) for rows in where.values() if len(rows) > 1]
    values = [v for v in values if v == v]
    return (float(np.mean(values)), len(values)) if values else (float("nan"), 0)


__all__ = ["item_grouped_correlation", "pairwise_accuracy", "pairwise_p_values", "permutation_flips",
           "soft_pairwise_accuracy", "tie_calibrated_accuracy"]

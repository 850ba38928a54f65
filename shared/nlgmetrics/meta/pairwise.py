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

from typing import Any, Callable, Dict, Hashable, Iterator, List, Sequence, Tuple

import numpy as np

from ..core.stats import CORRELATIONS, Vector, _pair


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
    tol = 1e-9 * max(1.0, float(np.abs(s).sum(axis=1).max(initial=0.0)))  # floating-point near-ties count as ties
    for i in range(n):
        for j in range(i + 1, n):
            p[i, j] = float(np.mean(partial[:, i] - partial[:, j] >= totals[i] - totals[j] - tol))
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


#: pairs of rows one block of the acc*_eq arrays holds at most (memory stays ~20 MB)
PAIR_BLOCK = 2**18
#: above this many pairs, epsilon is searched over CANDIDATES thresholds, not every pair's gap
EXACT_PAIRS = 2**20
CANDIDATES = 100_000


def _groups(groups: Sequence[Hashable]) -> List[np.ndarray]:
    """The rows of each group with two rows or more, groups in first-seen order."""
    where: Dict[Hashable, List[int]] = {}
    for row, g in enumerate(groups):
        where.setdefault(g, []).append(row)
    return [np.asarray(rows) for rows in where.values() if len(rows) > 1]


def _pair_blocks(groups: List[np.ndarray], block: int = PAIR_BLOCK) -> Iterator[Tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(a, b, group index) of every pair of rows within a group, in blocks of at most about
    ``block`` pairs (a large group is cut into bands of its first rows): never n^2 at once."""
    buf: List[Tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    held = 0
    for k, rows in enumerate(groups):
        n = len(rows)
        if n * (n - 1) // 2 <= block:
            i, j = np.triu_indices(n, 1)
            buf.append((rows[i], rows[j], np.full(len(i), k)))
            held += len(i)
            if held >= block:
                yield tuple(np.concatenate(c) for c in zip(*buf))  # type: ignore[misc]
                buf, held = [], 0
            continue
        band = max(1, block // n)
        for start in range(0, n - 1, band):
            i = np.arange(start, min(start + band, n - 1))
            j = np.arange(n)
            keep = j[None, :] > i[:, None]
            ii, jj = np.broadcast_to(i[:, None], keep.shape)[keep], np.broadcast_to(j[None, :], keep.shape)[keep]
            yield rows[ii], rows[jj], np.full(len(ii), k)
    if buf:
        yield tuple(np.concatenate(c) for c in zip(*buf))  # type: ignore[misc]


def _pair_terms(m: np.ndarray, h: np.ndarray, a: np.ndarray, b: np.ndarray, gid: np.ndarray, weights: np.ndarray
                ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gap |m_a - m_b|, weight x agreement untied, weight x (tied - untied) gain) per pair."""
    dm, dh = m[a] - m[b], h[a] - h[b]
    w = weights[gid]
    untied = (np.sign(dm) == np.sign(dh)) * w  # concordant, or tied on both sides
    return np.abs(dm), untied, (dh == 0) * w - untied


def tie_calibrated_accuracy(metric: Vector, human: Vector, groups: Sequence[Hashable] | None = None, *,
                            with_count: bool = False) -> Any:
    """``(acc*_eq, epsilon)``: the pairwise accuracy with ties, averaged over ``groups`` (the
    items; None: all rows one group) with two rows or more, at the metric tie threshold
    epsilon that maximises it (the smallest such). ``(nan, nan)`` when no group has two rows.
    ``with_count``: ``(acc*_eq, epsilon, groups averaged)``. Pairs are formed in bounded blocks;
    beyond ``EXACT_PAIRS`` pairs epsilon is searched over ``CANDIDATES`` thresholds (quantiles
    of a seeded sample of the gaps, and 0); the value at the chosen epsilon is exact.

    >>> tie_calibrated_accuracy([0.50, 0.52, 0.90], [1, 1, 2])
    (1.0, 0.020000000000000018)
    """
    m, h = _pair(metric, human)
    groups = [0] * len(m) if groups is None else list(groups)
    if len(groups) != len(m):
        raise ValueError(f"groups has {len(groups)} items but the scores {len(m)}")
    rows = _groups(groups)
    if not rows:
        return (float("nan"), float("nan"), 0) if with_count else (float("nan"), float("nan"))
    sizes = np.array([len(r) for r in rows])
    pairs = sizes * (sizes - 1) // 2
    weights = 1.0 / (pairs * len(rows))  # each group's accuracy counts equally
    if pairs.sum() <= EXACT_PAIRS:
        gap, untied, gain = (np.concatenate(c) for c in zip(*(
            _pair_terms(m, h, a, b, g, weights) for a, b, g in _pair_blocks(rows))))
        order = np.argsort(gap, kind="stable")
        gains = np.cumsum(gain[order])
        sorted_gap = gap[order]
        last = np.r_[sorted_gap[1:] != sorted_gap[:-1], True]  # the last pair of each distinct gap
        thresholds = np.r_[0.0, sorted_gap[last]]
        base = float(untied.sum())
        values = np.r_[base, base + gains[last]]
    else:
        thresholds = _candidate_gaps(m, rows, pairs)
        totals = np.zeros(len(thresholds))
        base = 0.0
        for a, b, g in _pair_blocks(rows):
            gap, untied, gain = _pair_terms(m, h, a, b, g, weights)
            base += float(untied.sum())
            totals += np.bincount(np.searchsorted(thresholds, gap, "left"), gain, len(thresholds) + 1)[:-1]
        values = base + np.cumsum(totals)
    best = int(np.argmax(values))
    result = (float(values[best]), float(thresholds[best]))
    return (*result, len(rows)) if with_count else result


def _candidate_gaps(m: np.ndarray, rows: List[np.ndarray], pairs: np.ndarray) -> np.ndarray:
    """0 and the quantiles of the gaps of a seeded sample of pairs (groups by their pairs)."""
    rng = np.random.default_rng(0)
    k = rng.choice(len(rows), size=4 * CANDIDATES, p=pairs / pairs.sum())
    sizes = np.array([len(r) for r in rows])[k]
    i = (rng.random(len(k)) * sizes).astype(int)
    j = (i + 1 + (rng.random(len(k)) * (sizes - 1)).astype(int)) % sizes
    flat, starts = np.concatenate(rows), np.r_[0, np.cumsum([len(r) for r in rows])[:-1]]
    gaps = np.abs(m[flat[starts[k] + i]] - m[flat[starts[k] + j]])
    ranks = np.linspace(0, len(gaps) - 1, CANDIDATES).round().astype(int)  # quantiles by sorting once
    return np.unique(np.r_[0.0, np.sort(gaps)[ranks]])


def darr_counts(metric: Vector, human: Vector, groups: Sequence[Hashable], threshold: float = 25.0
                ) -> Tuple[int, int]:
    """WMT DARR over the pairs of rows within a group whose human scores differ by
    ``threshold`` or more: (concordant, discordant), a metric tie discordant
    (:func:`nlgmetrics.core.stats.darr_tau`). Counted by a sweep over the human order with a
    Fenwick tree over metric ranks: O(n log n), no pair materialised.

    >>> darr_counts([0.9, 0.1, 0.5], [80, 10, 50], [1, 1, 1], 25)
    (3, 0)
    """
    m, h = _pair(metric, human)
    concordant = discordant = 0
    for rows in _groups(list(groups)):
        gm, gh = m[rows], h[rows]
        ranks = np.searchsorted(np.unique(gm), gm) + 1  # 1-based dense ranks
        order = np.argsort(gh, kind="stable")
        tree = [0] * (int(ranks.max()) + 1)
        added = 0
        lag = 0
        for i in order:
            while lag < len(order) and gh[order[lag]] <= gh[i] - threshold:
                r = int(ranks[order[lag]])
                while r < len(tree):
                    tree[r] += 1
                    r += r & -r
                added += 1
                lag += 1
            below, r = 0, int(ranks[i]) - 1
            while r > 0:
                below += tree[r]
                r -= r & -r
            concordant += below
            discordant += added - below
    return concordant, discordant


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


__all__ = ["darr_counts", "item_grouped_correlation", "pairwise_accuracy", "pairwise_p_values", "permutation_flips",
           "soft_pairwise_accuracy", "tie_calibrated_accuracy"]

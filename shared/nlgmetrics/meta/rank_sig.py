"""The statistics of a metrics-task ranking computed for many metric matrices at once, Perm-Both
p-values between every pair of metrics with google-research/mt-metrics-eval's own random draws,
and its rank clusters (re-implemented from ``mt_metrics_eval/data.py`` and ``stats.py``).

Scores are ``systems x items`` matrices (a system-level file: one item); the human matrix has
``nan`` where a score is missing. A statistic (:func:`statistic`) is built once on the human
matrix and maps a stack of metric matrices to one value each. Its *units* are the cells the
permutation test swaps, in mt-metrics-eval's order, which decides which cell each random draw
goes to: system-major (``average_by='none'``; a system's cells, systems in name order) for
seg, sys and SPA, item-major (``average_by='item'``) for the item-averaged correlations, and
every cell system-major, missing human scores included, for acc*_eq (their ``PermutationSigDiff``
passes ``KendallWithTiesOpt`` the unfiltered vectors).

- :func:`sig_matrix` is ``data.ComputeSigMatrix`` with ``perm_test='scores'``: for metrics in
  rank order and each pair i < j in row order, ``stats.PermutationSigDiff``: both metrics'
  units z-scored; each draw ``w = numpy.random.binomial(1, 0.5, units)`` puts i's score where
  ``w = 1`` and j's elsewhere into one hybrid and the rest into the other; ``p[i, j] =
  #{stat(hybrid_i) - stat(hybrid_j) >= stat(i) - stat(j)} / draws``, the p-value of "metric
  i is better than j" (one-sided). Draws come from one ``numpy.random.RandomState(seed)`` used
  pair after pair, as theirs come from the global state after ``numpy.random.seed(seed)``; after
  every ``block_size`` draws the test stops early when p < ``early_min`` or p > ``early_max``
  (``stats.PermutationSigDiffParams``; ``tasks.Task`` uses 100, 0.02, 0.5).
- :func:`assign_ranks` is ``data.AssignRanks``: walking down the order, a metric starts a new
  rank when some metric from the start of the current rank up to it beats it (p <= ``pval``).
- SPA is ``stats.PairwiseConfidenceError`` (:class:`MtmeSpa`): ``pce.compute_pairwise_p_values``
  with its flips (``numpy.random.default_rng(4)``, float32 uniforms rounded to 0/1) and its
  float32 arithmetic.

``d_k >= d`` is compared as they compare it, on floats without tolerance. Where two differences
are equal in exact arithmetic (SPA, accuracies and Kendall take few values) the count then
depends on rounding, so the statistics are computed in their floating-point steps where that
matters (SPA in float32, acc*_eq in ``tau_optimization``'s order, a 1-D mean where they take
one), a hybrid equal to an original metric gets that metric's value, and an exactly constant
side is undefined (their scipy check) rather than the rounding noise ``batch_stats.pearson_rows``
leaves. On the reference EvalSet every p-value is then theirs (``tests/meta/test_rank.py``).
"""
from __future__ import annotations

from typing import Callable, List, Tuple

import numpy as np

from ..core import stats
from .batch_stats import ROWS, grouped_rows
from .metric_vs_metric import _zscore
from .pairwise import _pair_blocks

#: values (rows x units) one evaluation of a statistic holds at most; larger stacks go in chunks
CHUNK_VALUES = 2**22
#: rows longer than this get scipy's O(n log n) Kendall one row at a time, not all pairs at once
KENDALL_PAIRS_MAX = 256
SPA_PERMUTATIONS, SPA_SEED = 1000, 4  # stats.PairwiseConfidenceError's (pce's defaults)


def spa_flips(n_items: int, permutations: int = SPA_PERMUTATIONS, seed: int = SPA_SEED) -> np.ndarray:
    """``pce.compute_pairwise_p_values``' sign flips (float32 +-1): ``default_rng(seed)`` float32
    uniforms rounded half to even, so +1 where u > 0.5."""
    u = np.random.default_rng(seed).random(size=(permutations, n_items), dtype=np.float32)
    return np.where(u > 0.5, 1.0, -1.0).astype(np.float32)


class MtmeSpa:
    """Soft pairwise accuracy as mt-metrics-eval's ``stats.PairwiseConfidenceError`` computes it,
    bit for bit: ``pce.compute_pairwise_p_values`` (its flips, :func:`spa_flips`; scores, sums and
    the flipped sums in float32, ``null >= test`` without tolerance) for the human matrix and
    each metric matrix, then ``1 - mean |p_h - p_m|`` over pairs i < j. It is a variant of
    :class:`~nlgmetrics.meta.batch_stats.SpaRows` (float64, near-ties counted) kept to give
    their numbers: in float32 whether an exact tie of two sums counts depends on rounding, and
    a metric whose scores tie often (z-scored inside the permutation test) gets another value."""

    def __init__(self, human: np.ndarray, permutations: int = SPA_PERMUTATIONS, seed: int = SPA_SEED) -> None:
        self.flips = spa_flips(human.shape[1], permutations, seed)
        self.iu = np.triu_indices(human.shape[0], 1)
        self.p_human = self.p_values(human)

    def p_values(self, matrix: np.ndarray) -> np.ndarray:
        """p of "system i is better than j" for the pairs i < j (row-major) of one matrix."""
        s = np.ascontiguousarray(np.asarray(matrix, dtype=float).astype(np.float32))
        partial = np.matmul(self.flips, s.T)  # pce's product with pce's memory layout: the same bits
        totals = np.sum(s, axis=1)
        i, j = self.iu
        return np.sum(partial[:, i] - partial[:, j] >= totals[i] - totals[j], axis=0) / len(self.flips)

    def __call__(self, matrices: np.ndarray) -> np.ndarray:
        """SPA of each ``systems x items`` matrix of a stack (one at a time: pce's shapes)."""
        return np.array([1.0 - np.mean(np.abs(self.p_human - self.p_values(m))) for m in matrices])


class Statistic:
    """One statistic on a fixed human matrix: ``units`` (flat cell indices, mt-metrics-eval's
    order), ``cost`` (values one matrix needs) and ``values(stack)`` for a ``B x S x I`` stack."""

    def __init__(self, units: np.ndarray, cost: int, fn: Callable[[np.ndarray], np.ndarray]) -> None:
        self.units, self.cost, self._fn = units, max(1, cost), fn

    def values(self, stack: np.ndarray) -> np.ndarray:
        stack = np.asarray(stack, dtype=float)
        step = max(1, CHUNK_VALUES // self.cost)
        return np.concatenate([self._fn(stack[s:s + step]) for s in range(0, len(stack), step)]) if len(stack) \
            else np.zeros(0)


def _rows(method: str, x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``method`` of each row of ``x`` with ``h``; nan where either side is constant (exactly,
    as scipy and mt-metrics-eval decide it)."""
    if len(h) < 2 or h.min() == h.max():
        return np.full(len(x), np.nan)
    out = np.array([stats.kendall_tau_b(r, h) for r in x]) if method == "kendall" and x.shape[1] > KENDALL_PAIRS_MAX \
        else ROWS[method](x, h)
    out[x.min(axis=1) == x.max(axis=1)] = np.nan
    return out


def _constant_undefined(x: np.ndarray, groups: List[np.ndarray]) -> np.ndarray:
    """``x`` with each row's cells of a group where that row is constant set to nan: the
    group's correlation is then undefined, as scipy's and mt-metrics-eval's (the centring in
    ``pearson_rows`` can leave rounding noise in a constant row and give it a value)."""
    for rows in groups:
        part = x[:, rows]
        x[np.ix_(part.min(axis=1) == part.max(axis=1), rows)] = np.nan
    return x


def _pairwise_accuracy_rows(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """:func:`~nlgmetrics.meta.pairwise.pairwise_accuracy` of each row of ``x`` (n >= 2)."""
    i, j = np.triu_indices(x.shape[1], 1)
    return (np.sign(x[:, i] - x[:, j]) == np.sign(h[i] - h[j])).mean(axis=1)


class _TieCalibrated:
    """acc*_eq (each matrix at its own best epsilon) of each matrix of a stack, in
    ``tau_optimization.tau_optimization``'s floating-point steps so that its values, and so the
    permutation test's ties, are theirs bit for bit: the items' accuracies summed in item order;
    then, pair by pair in order of the metric gap (ties in enumeration order: item, then
    system pairs i < j), the pair's item accuracy taken out and put back with the pair tied; a
    candidate after the last pair of each gap (and the start, unless the first gap is 0); the
    best candidate over the number of items. Equal to
    :func:`~nlgmetrics.meta.pairwise.tie_calibrated_accuracy` up to rounding."""

    def __init__(self, human: np.ndarray) -> None:
        n_sys, n_items = human.shape
        flat = human.ravel()
        groups = [g for g in (np.array([s * n_items + i for s in range(n_sys) if np.isfinite(human[s, i])])
                              for i in range(n_items)) if len(g) > 1]
        parts = list(_pair_blocks(groups)) if groups else []
        joined: List[np.ndarray] = [np.concatenate(c) for c in zip(*parts)] if parts else [np.zeros(0, int)] * 3
        self.a, self.b, self.gid = joined
        self.pairs = np.bincount(self.gid, minlength=len(groups)) if groups else np.zeros(0, int)
        self.starts = np.r_[0, np.cumsum(self.pairs)[:-1]] if groups else np.zeros(0, int)
        self.dh = flat[self.a] - flat[self.b]

    def __call__(self, stack: np.ndarray) -> np.ndarray:
        x = stack.reshape(len(stack), -1)
        n_groups = len(self.pairs)
        if not n_groups:
            return np.full(len(x), np.nan)
        dm = x[:, self.a] - x[:, self.b]
        h_tie, m_tie = self.dh == 0, dm == 0
        counted = (h_tie & m_tie) | (np.sign(dm) == np.sign(self.dh)) & ~h_tie  # concordant or tied on both sides
        change = np.where(h_tie & ~m_tie, 1, 0) - ((np.sign(dm) == np.sign(self.dh)) & ~h_tie)  # +1 / -1 when tied
        first = np.add.reduceat(counted.astype(np.int64), self.starts, axis=1)  # per item, before any tie
        base = np.cumsum(first / self.pairs, axis=1)[:, -1]  # summed in item order, as Python's sum()
        gap = np.abs(dm)
        order = np.argsort(gap, axis=1, kind="stable")
        gap, d = np.take_along_axis(gap, order, axis=1), np.take_along_axis(change, order, axis=1)
        g = self.gid[order]
        small = g.astype(np.int16) if n_groups < 2**15 else g  # a stable sort of int16 is a radix sort: 3x faster
        by_item = np.argsort(small, axis=1, kind="stable")  # each item's pairs in gap order, items in order
        d_by = np.take_along_axis(d, by_item, axis=1)
        run = np.cumsum(d_by, axis=1)
        offset = np.where(self.starts > 0, run[:, np.maximum(self.starts - 1, 0)], 0)
        before = np.empty_like(run)  # each pair's earlier changes within its item, in gap order
        np.put_along_axis(before, by_item, run - d_by - offset[:, np.repeat(np.arange(n_groups), self.pairs)], axis=1)
        count = np.take_along_axis(first, g, axis=1) + before
        steps = np.empty((len(x), 2 * d.shape[1] + 1))
        steps[:, 0] = base
        steps[:, 1::2] = -(count / self.pairs[g])
        steps[:, 2::2] = (count + d) / self.pairs[g]
        totals = np.cumsum(steps, axis=1)[:, 2::2]
        last = np.concatenate([gap[:, 1:] != gap[:, :-1], np.ones((len(x), 1), bool)], axis=1)
        best = np.where(last, totals / n_groups, -np.inf).max(axis=1)
        return np.where(gap[:, 0] == 0, best, np.maximum(best, base / n_groups))


def statistic(key: str, human: np.ndarray) -> Statistic:
    """The statistic ``key`` (``LEVEL.NAME``, :data:`STATISTICS`) on the human matrix."""
    h = np.asarray(human, dtype=float)
    n_sys, n_items = h.shape
    level, name = key.split(".", 1)
    finite = np.isfinite(h)
    if key == "sys.soft_pairwise_accuracy":
        cols = np.flatnonzero(finite.all(axis=0))
        if n_sys < 2 or not len(cols):  # no pair of systems, or no item every system has: undefined
            return Statistic(np.zeros(0, int), 1, lambda s: np.full(len(s), np.nan))
        units = (np.arange(n_sys)[:, None] * n_items + cols[None, :]).ravel()
        spa = MtmeSpa(h[:, cols])
        return Statistic(units, n_sys * SPA_PERMUTATIONS, lambda s: spa(s[:, :, cols]))
    if key == "item.tie_calibrated_accuracy":
        tca = _TieCalibrated(h)
        return Statistic(np.arange(h.size), 12 * len(tca.a), tca)
    if level == "item":
        units = np.flatnonzero(finite.T.ravel())  # item-major positions ...
        units = (units % n_sys) * n_items + units // n_sys  # ... as system-major cell indices
        items = units % n_items
        starts = np.flatnonzero(np.r_[True, items[1:] != items[:-1]])
        hu = h.ravel()[units]
        groups = [g for g in (np.arange(b, e) for b, e in zip(starts, np.r_[starts[1:], len(units)]))
                  if hu[g].min() != hu[g].max()]  # a constant human side: undefined, as in scipy
        return Statistic(units, len(units) * 4, lambda s: grouped_rows(
            name, _constant_undefined(s.reshape(len(s), -1)[:, units], groups), hu, groups))
    units = np.flatnonzero(finite.ravel())
    hu = h.ravel()[units]
    if name == "pairwise_accuracy":
        return Statistic(units, len(units) ** 2, lambda s: _pairwise_accuracy_rows(s.reshape(len(s), -1)[:, units], hu))
    cost = len(units) ** 2 if name == "kendall" and len(units) <= KENDALL_PAIRS_MAX else len(units) * 4
    return Statistic(units, cost, lambda s: _rows(name, s.reshape(len(s), -1)[:, units], hu))


#: LEVEL.NAME -> the score level it reads ("seg" files or "sys" files)
STATISTICS = {f"{lvl}.{m}": src for lvl, src in (("seg", "seg"), ("item", "seg"), ("sys", "sys"))
              for m in ("pearson", "spearman", "kendall")}
STATISTICS.update({"item.tie_calibrated_accuracy": "seg", "sys.pairwise_accuracy": "sys",
                   "sys.soft_pairwise_accuracy": "seg"})


def sig_matrix(stat: Statistic, matrices: np.ndarray, k: int = 1000, seed: int = 0, block_size: int = 100,
               early_min: float = 0.02, early_max: float = 0.5) -> Tuple[np.ndarray, np.ndarray]:
    """``(p, draws)`` for ``matrices`` (``M x S x I``, metrics in rank order): ``p[i, j]``
    (i < j; 0 elsewhere) the one-sided Perm-Both p-value of "i is better than j" and ``draws[i, j]``
    the draws it took (module docstring). ``k = 0``: no test, all zeros, as ComputeSigMatrix."""
    n = len(matrices)
    p, used = np.zeros((n, n)), np.zeros((n, n), dtype=int)
    if not k:
        return p, used
    shape = matrices.shape[1:]
    z = np.stack([_zscore(np.asarray(m, float).ravel()[stat.units]) for m in matrices])
    rs = np.random.RandomState(seed)

    def cells(units: np.ndarray) -> np.ndarray:
        out = np.zeros((len(units), shape[0] * shape[1]))
        out[:, stat.units] = units
        return out.reshape(len(units), *shape)

    for i in range(n):
        for j in range(i + 1, n):
            v = stat.values(cells(np.stack([z[i], z[j]])))
            delta = v[0] - v[1]
            hits = done = 0
            while done < k:
                w = rs.binomial(1, 0.5, (min(block_size, k - done), len(stat.units))) == 1
                hybrids = np.concatenate([np.where(w, z[i], z[j]), np.where(w, z[j], z[i])])
                c = stat.values(cells(hybrids))
                for original, value in ((z[i], v[0]), (z[j], v[1])):  # no swap (or all): the same bits
                    c[(hybrids == original).all(axis=1)] = value
                hits += int(np.count_nonzero(c[:len(w)] - c[len(w):] >= delta))
                done += len(w)
                if done % block_size == 0 and not early_min <= hits / done <= early_max:
                    break
            p[i, j], used[i, j] = hits / done, done
    return p, used


def assign_ranks(p: np.ndarray, pval: float = 0.05) -> List[int]:
    """mt-metrics-eval's ``data.AssignRanks`` on a p-value matrix of metrics in rank order
    (``p[i, j]``, i < j: "i is better than j"): metric i starts a new rank when some metric
    from the first of the current rank up to i - 1 beats it (``p <= pval``); else it joins it.
    Not transitive: a metric not beaten by anyone of its rank can still start a new one."""
    m = np.asarray(p, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"the p-value matrix must be square, got shape {m.shape}")
    ranks, rank, start = [], 1, 0
    for i in range(len(m)):
        if np.any(m[start:i, i] <= pval):
            rank, start = rank + 1, i
        ranks.append(rank)
    return ranks


__all__ = ["MtmeSpa", "STATISTICS", "Statistic", "assign_ranks", "sig_matrix", "spa_flips", "statistic"]

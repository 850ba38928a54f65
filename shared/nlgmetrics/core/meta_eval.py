"""Meta-evaluation: how well a metric's scores agree with human judgements, at the segment,
system and item level (``nlgmetrics.meta_eval`` and ``nlgmetrics meta-eval``).

- ``segment``: Pearson, Spearman and Kendall tau-b over all rows;
- ``system``: the same over the mean metric and mean human score per system;
- ``pairwise``: pairwise accuracy over the systems' means and soft pairwise accuracy over the
  systems x items matrix (items every system has; a system's repeated item is averaged);
- ``item``: item-grouped Pearson, Spearman and Kendall, and tie-calibrated pairwise accuracy
  acc*_eq with its epsilon, over the outputs of each item.

Definitions: :mod:`nlgmetrics.core.pairwise`. ``bootstrap`` resamples rows for 95 % intervals
of the segment and system correlations (0: none, ``None`` in the result). Rows without a
system (``None``) are left out of the system and pairwise levels only, rows without an item
out of the item level and of soft pairwise accuracy.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence

import numpy as np

from . import stats
from .pairwise import item_grouped_correlation, pairwise_accuracy, soft_pairwise_accuracy, tie_calibrated_accuracy


def _rows(keep: Sequence[int], *columns: Sequence[Any]) -> List[List[Any]]:
    """The rows ``keep`` of each column, in that order."""
    return [[column[k] for k in keep] for column in columns]


def _ci(statistic: Callable[..., float], arrays: Sequence[Sequence[Any]], bootstrap: int, seed: int
        ) -> Optional[List[float]]:
    if not bootstrap:
        return None
    lo, hi = stats.bootstrap_ci(statistic, *arrays, n_resamples=bootstrap, seed=seed)
    return [lo, hi]


def _system_matrices(scores: Sequence[float], human: Sequence[float], systems: Sequence[Optional[Hashable]],
                     items: Sequence[Optional[Hashable]]) -> tuple[np.ndarray, np.ndarray]:
    """systems x items matrices of the mean metric and human score, over the items every
    system has (systems and items in first-seen order)."""
    cells: Dict[Hashable, Dict[Hashable, List[float]]] = {}
    for m, h, s, i in zip(scores, human, systems, items):
        if s is not None and i is not None:
            cells.setdefault(s, {}).setdefault(i, [0.0, 0.0, 0.0])
            acc = cells[s][i]
            acc[0] += m
            acc[1] += h
            acc[2] += 1
    if not cells:
        return np.zeros((0, 0)), np.zeros((0, 0))
    common = [i for i in next(iter(cells.values())) if all(i in by_item for by_item in cells.values())]
    metric = np.array([[cells[s][i][0] / cells[s][i][2] for i in common] for s in cells]).reshape(len(cells), -1)
    gold = np.array([[cells[s][i][1] / cells[s][i][2] for i in common] for s in cells]).reshape(len(cells), -1)
    return metric, gold


def meta_evaluate(scores: Sequence[float], human: Sequence[float], systems: Optional[Sequence[Optional[Hashable]]] = None,
                  items: Optional[Sequence[Optional[Hashable]]] = None, *, bootstrap: int = 1000, seed: int = 0,
                  permutations: int = 1000) -> Dict[str, Any]:
    """The statistics of the module docstring for per-row metric ``scores`` and ``human``
    scores, with each row's system and item (``None``: not known)."""
    n = len(scores)
    if len(human) != n:
        raise ValueError(f"human has {len(human)} scores but the metric {n}")
    if bootstrap < 0 or permutations < 1:
        raise ValueError("bootstrap must be >= 0 and permutations >= 1")
    systems = list(systems) if systems is not None else [None] * n
    items = list(items) if items is not None else [None] * n
    if len(systems) != n or len(items) != n:
        raise ValueError("systems and items need one entry per row")
    out: Dict[str, Any] = {"n": n, "segment": {}, "system": {}, "pairwise": {}, "item": {}}
    for method, fn in stats.CORRELATIONS.items():
        out["segment"][method] = {"value": fn(scores, human), "ci95": _ci(fn, (scores, human), bootstrap, seed)}
    kept = [k for k, s in enumerate(systems) if s is not None]
    if kept:
        sys_scores, sys_human, sys_names = _rows(kept, scores, human, systems)
        for method in stats.CORRELATIONS:
            def sys_corr(m: Any, h: Any, s: Any, _method: str = method) -> float:
                return stats.system_correlation(m, h, s, _method)
            out["system"][method] = {"value": sys_corr(sys_scores, sys_human, sys_names),
                                     "ci95": _ci(sys_corr, (sys_scores, sys_human, sys_names), bootstrap, seed)}
        out["n_systems"] = len(set(sys_names))
        out["n_system_rows"] = len(kept)
        means_m, means_h = stats.system_level(sys_scores, sys_human, sys_names)
        out["pairwise"]["pairwise_accuracy"] = {"value": pairwise_accuracy(means_m, means_h),
                                                "n_pairs": len(means_m) * (len(means_m) - 1) // 2}
        metric_matrix, human_matrix = _system_matrices(scores, human, systems, items)
        if metric_matrix.shape[0] >= 2 and metric_matrix.shape[1] >= 1:
            out["pairwise"]["soft_pairwise_accuracy"] = {
                "value": soft_pairwise_accuracy(metric_matrix, human_matrix, permutations, seed),
                "n_items": int(metric_matrix.shape[1]), "permutations": permutations}
    rows = [k for k, i in enumerate(items) if i is not None]
    if rows:
        m, h, g = _rows(rows, scores, human, items)
        for method in stats.CORRELATIONS:
            value, used = item_grouped_correlation(m, h, g, method)
            out["item"][method] = {"value": value, "n_items": used}
        acc, epsilon = tie_calibrated_accuracy(m, h, g)
        out["item"]["tie_calibrated_accuracy"] = {"value": acc, "epsilon": epsilon, "n_items": len(set(g))}
        out["n_item_rows"] = len(rows)
    return out


__all__ = ["meta_evaluate"]

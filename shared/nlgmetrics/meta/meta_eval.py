"""Meta-evaluation: how well a metric's scores agree with human judgements, at the segment,
system and item level (``nlgmetrics.meta_eval`` and ``nlgmetrics meta-eval``).

- ``segment``: Pearson, Spearman and Kendall tau-b over all rows with a human score;
- ``system``: the same over the systems' scores: the metric's OWN corpus score of each system
  (:mod:`nlgmetrics.meta.meta_system`; the mean of its rows only when none is given) against
  the mean human score of the system's rows, or the given system-level human score
  (``human_systems``: an EvalSet's ``sys`` file, as mt-metrics-eval uses); fewer than three systems are warned about (any two
  points correlate +-1) and get no interval;
- ``pairwise``: pairwise accuracy over those system scores, and soft pairwise accuracy over
  the systems x items matrix (items every system has, a system's repeated item averaged,
  systems in name order so that ties cannot depend on the order they came in; left out with a
  ``note`` when no item has every system);
- ``item``: item-grouped Pearson, Spearman and Kendall, tie-calibrated pairwise accuracy
  acc*_eq with its epsilon (over the items with two rows or more), and the WMT DARR
  Kendall-like over pairs whose human scores differ by ``darr_threshold`` or more.

Definitions: :mod:`nlgmetrics.meta.pairwise`. ``bootstrap`` resamples for 95 % percentile
intervals (0: none, ``None``): rows for the segment level; each system's rows, its corpus
reduction re-run per resample, for the system level. Systems are keyed by their string form
(``1`` and ``"1"`` are one system). Rows whose human score is ``None`` are left out of every
statistic (but still part of their system's corpus score); rows without a system (``None``)
out of the system and pairwise levels, rows without an item out of the item level and SPA.
The output records ``seed``, ``bootstrap`` and ``permutations``.
"""
from __future__ import annotations

from typing import Any, Dict, Hashable, List, Optional, Sequence, Tuple

import numpy as np

from ..core import stats
from ..core.inputs import check_seed, ordered_values
from ..core.option_values import number_value
from .meta_system import SystemScores, human_means, mean_systems, percentile_ci, system_key, system_samples
from .pairwise import (
    darr_counts,
    item_grouped_correlation,
    pairwise_accuracy,
    soft_pairwise_accuracy,
    tie_calibrated_accuracy,
)

#: what the output says about how systems are told apart
SYSTEM_KEYS = "string form (1 and '1' are one system)"
#: what the output says about each system's human score (given: True)
SYSTEM_HUMAN = {False: "the mean human score of the system's rated rows",
                True: "the given system-level human score (an EvalSet's human-scores/LP.NAME.sys.score)"}


def check_rows(human: Any, systems: Any = None, items: Any = None, n: Optional[int] = None
               ) -> Tuple[List[Optional[float]], List[Any], List[Any]]:
    """The per-row inputs of a meta-evaluation, checked before anything is scored: each an
    ordered sequence (the core's rule for every per-segment input: a set or a generator is
    refused) with one entry per row (``n``, else as many as ``human``); a human score a finite
    number or None (missing); a system or item None (not known) or a hashable value that is
    not NaN. ``(human, systems, items)`` as lists (None for systems/items not given); else one
    ``ValueError`` naming the variable and the row."""
    scores = ordered_values(human, "human", "human scores", "scores", n=n)
    n = len(scores)
    checked: List[Optional[float]] = []
    for k, value in enumerate(scores):
        try:
            checked.append(None if value is None else number_value(f"human[{k}]", value, float))
        except ValueError as err:
            raise ValueError(f"{err}; give None for a row without a human score") from None
    labels = [_labels(values, name, n) for name, values in (("systems", systems), ("items", items))]
    return checked, labels[0], labels[1]


def _labels(values: Any, name: str, n: int) -> List[Any]:
    """Each row's system or item (``name``): None, or a hashable value that is not NaN."""
    if values is None:
        return [None] * n
    out = ordered_values(values, name, "names", "names", n=n)
    what = {"systems": "a system", "items": "an item"}.get(name, name)
    for k, value in enumerate(out):
        try:
            hash(value)
        except TypeError:
            raise ValueError(f"{name}[{k}] is a {type(value).__name__}, which cannot name {what} (it is not "
                             f"hashable); give a string or an integer (None: not known)") from None
        if isinstance(value, float) and value != value:
            raise ValueError(f"{name}[{k}] is NaN, which names no {what[what.index(' ') + 1:]}; give None for a row without one")
    return out


def cell_matrices(scores: Sequence[float], human: Sequence[float], systems: Sequence[Optional[str]],
                   items: Sequence[Optional[Hashable]]) -> tuple[np.ndarray, np.ndarray, int]:
    """systems x items matrices of the mean metric and human score over the items every system
    has (systems in name order, items in first-seen order), and the number of systems."""
    cells: Dict[str, Dict[Hashable, List[float]]] = {}
    for m, h, s, i in zip(scores, human, systems, items):
        if s is not None and i is not None:
            acc = cells.setdefault(s, {}).setdefault(i, [0.0, 0.0, 0.0])
            acc[0] += m
            acc[1] += h
            acc[2] += 1
    names = sorted(cells)
    if not names:
        return np.zeros((0, 0)), np.zeros((0, 0)), 0
    common = [i for i in cells[names[0]] if all(i in cells[s] for s in names)]
    metric = np.array([[cells[s][i][0] / cells[s][i][2] for i in common] for s in names]).reshape(len(names), -1)
    gold = np.array([[cells[s][i][1] / cells[s][i][2] for i in common] for s in names]).reshape(len(names), -1)
    return metric, gold, len(names)


def _segment(m: List[float], h: List[float], bootstrap: int, seed: int) -> Dict[str, Any]:
    out = {}
    for method, fn in stats.CORRELATIONS.items():
        ci = list(stats.bootstrap_ci(fn, m, h, n_resamples=bootstrap, seed=seed)) if bootstrap else None
        out[method] = {"value": fn(m, h), "ci95": ci if ci and ci[0] == ci[0] else None}
    return out


def _system(human: Sequence[Optional[float]], sys: SystemScores, out: Dict[str, Any], bootstrap: int, seed: int,
            warnings_: List[str], human_systems: Optional[Dict[str, float]]) -> None:
    gold = human_means(human, sys) if human_systems is None else {
        s: float(human_systems[s]) for s in sys.names if human_systems.get(s) is not None}
    out["system_human"] = SYSTEM_HUMAN[human_systems is not None]
    names = [s for s in sys.names if s in gold]
    out["n_systems"] = len(names)
    out["n_system_rows"] = sum(len(sys.rows[s]) for s in names)
    if not names:
        return
    m = [sys.corpus[s] for s in names]
    h = [gold[s] for s in names]
    if len(names) < 3:
        warnings_.append(f"only {len(names)} system(s): every system-level correlation of two points is +-1 or "
                         "undefined, so it says nothing; no interval is given")
    samples = system_samples(human, sys, names, resamples=bootstrap, seed=seed) if bootstrap and len(names) >= 3 \
        else None
    for method, fn in stats.CORRELATIONS.items():
        ci = None
        if samples is not None:
            hs, (ms,) = samples
            if human_systems is not None:  # given system scores (no rows to resample): fixed
                hs = np.broadcast_to(np.asarray(h, dtype=float), hs.shape)
            ci = percentile_ci(np.array([_safe(fn, a, b) for a, b in zip(ms, hs)]))
        out["system"][method] = {"value": fn(m, h), "ci95": ci}
    out["pairwise"]["pairwise_accuracy"] = {"value": pairwise_accuracy(m, h), "n_pairs": len(m) * (len(m) - 1) // 2}


def _safe(fn: Any, a: np.ndarray, b: np.ndarray) -> float:
    keep = np.isfinite(a) & np.isfinite(b)
    return float(fn(a[keep], b[keep])) if keep.sum() >= 2 else float("nan")


def meta_evaluate(scores: Sequence[float], human: Sequence[Optional[float]],
                  systems: Optional[Sequence[Optional[Hashable]]] = None,
                  items: Optional[Sequence[Optional[Hashable]]] = None, *, bootstrap: int = 1000, seed: int = 0,
                  permutations: int = 1000, system_scores: Optional[SystemScores] = None,
                  darr_threshold: float = 25.0, human_systems: Optional[Dict[str, float]] = None) -> Dict[str, Any]:
    """The statistics of the module docstring for per-row metric ``scores`` and ``human``
    scores (``None``: missing), with each row's system and item (``None``: not known).
    ``system_scores``: each system's own corpus score and resampler
    (:func:`~nlgmetrics.meta.meta_system.score_systems`); without it, the mean of its rows.
    ``human_systems``: each system's own human score (an EvalSet's ``sys`` file) for the
    system level and pairwise accuracy, instead of the mean of its rows' (systems without
    one are left out there; the bootstrap keeps it fixed); the output says which (``system_human``)."""
    n = len(scores)
    human, systems, items = check_rows(human, systems, items, n)
    if isinstance(bootstrap, bool) or bootstrap < 0 or permutations < 1:
        raise ValueError("bootstrap must be >= 0 and permutations >= 1")
    if not darr_threshold > 0:
        raise ValueError(f"darr_threshold must be > 0, got {darr_threshold!r}")
    seed = check_seed(seed)
    keys = [system_key(s) for s in systems]
    rated = [k for k in range(n) if human[k] is not None]
    warnings_: List[str] = []
    out: Dict[str, Any] = {"n": len(rated), "n_unrated": n - len(rated), "seed": seed, "bootstrap": bootstrap,
                           "permutations": permutations, "systems_keyed_by": SYSTEM_KEYS,
                           "segment": {}, "system": {}, "pairwise": {}, "item": {}, "warnings": warnings_}
    m_all = [float(scores[k]) for k in rated]
    h_all = [float(human[k]) for k in rated]  # type: ignore[arg-type]
    out["segment"] = _segment(m_all, h_all, bootstrap, seed)
    if any(s is not None for s in keys):
        sys = system_scores if system_scores is not None else mean_systems(scores, keys)
        _system(human, sys, out, bootstrap, seed, warnings_, human_systems)
        metric_matrix, human_matrix, n_sys = cell_matrices(m_all, h_all, [keys[k] for k in rated],
                                                            [items[k] for k in rated])
        if n_sys >= 2 and metric_matrix.shape[1] >= 1:
            out["pairwise"]["soft_pairwise_accuracy"] = {
                "value": soft_pairwise_accuracy(metric_matrix, human_matrix, permutations, seed),
                "n_items": int(metric_matrix.shape[1]), "permutations": permutations}
        elif n_sys >= 2 and any(i is not None for i in items):
            out["pairwise"]["soft_pairwise_accuracy"] = {
                "value": None, "note": "left out: no item has a human-rated row of every system"}
    rows = [k for k in rated if items[k] is not None]
    if rows:
        m, h, g = [float(scores[k]) for k in rows], [float(human[k]) for k in rows], [items[k] for k in rows]  # type: ignore[arg-type]
        for method in stats.CORRELATIONS:
            value, used = item_grouped_correlation(m, h, g, method)
            out["item"][method] = {"value": value, "n_items": used}
        acc, epsilon, used = tie_calibrated_accuracy(m, h, g, with_count=True)
        out["item"]["tie_calibrated_accuracy"] = {"value": acc, "epsilon": epsilon, "n_items": used}
        concordant, discordant = darr_counts(m, h, g, darr_threshold)
        total = concordant + discordant
        out["item"]["darr"] = {"value": (concordant - discordant) / total if total else None, "n_pairs": total,
                               "threshold": darr_threshold}
        out["n_item_rows"] = len(rows)
    return out


__all__ = ["SYSTEM_KEYS", "check_rows", "meta_evaluate"]

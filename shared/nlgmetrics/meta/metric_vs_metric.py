"""Is metric A closer to the humans than metric B, beyond chance? Paired tests over the same
rows, as WMT's metrics task runs them (re-implemented from the papers' definitions):

- **Perm-Both** (Deutsch et al. 2021; mt-metrics-eval's ``PermutationSigDiff``): both
  metrics' scores z-scored; each permutation swaps, per unit (a row, or a system at the system
  level, a systems x items cell for SPA), A's and B's score with probability 1/2 and recomputes
  both statistics: Pearson, Spearman, Kendall (segment, system and item level), pairwise
  accuracy, soft pairwise accuracy (SPA, with the same inner flips for every matrix).
- **acc*_eq's permutation test**: each metric at its OWN optimal epsilon (searched once, on the
  data); each item's accuracy difference ``d_i = acc_A,i - acc_B,i``; a permutation swaps the
  two metrics' outcomes on ALL the pairs of an item at once (flips the sign of ``d_i``) with
  probability 1/2. mt-metrics-eval's ``PairwisePermutationSigDiff`` swaps each pair on its own;
  but the pairs of an item share outputs (an output is in ``k - 1`` of its item's pairs), so
  per-pair swaps make the null too narrow: on simulated null data (two equally noisy metrics,
  199 permutations) it rejected 7.1 % at p < 0.05 with 5 outputs per item (2,000 simulations)
  and 18.6 % with 10, where the per-item swap rejects 2-4.5 % (exact level 4.5 %; below it
  with few items, where the sign flips have few distinct outcomes). Re-searching both epsilons
  on each row-swapped permutation (Perm-Both with the search inside) also keeps the level
  (4.5 %) but costs two epsilon searches per permutation. (Reproduced by
  ``tests/meta/test_meta_eval_vs.py``: 17.3 % per pair against 4.6 % per item, 10 outputs.)
- **Williams' test** for two dependent Pearson correlations sharing the human side
  (Williams 1959; Graham & Baldwin 2014): ``t = (r_ha - r_hb) sqrt((n-1)(1+r_ab)) /
  sqrt(2 K (n-1)/(n-3) + rbar^2 (1-r_ab)^3)``, ``K = 1 - r_ha^2 - r_hb^2 - r_ab^2 + 2 r_ha r_hb r_ab``,
  ``n - 3`` degrees of freedom.

**Sides.** By default every p-value is two-sided, for "A and B differ":
``p = (1 + #{|d_k| >= |d|}) / (K + 1)`` (ties counted up to 1e-9 relative), Williams'
``2 P(T >= |t|)``. ``alternative="greater"`` gives the one-sided p of "A is better than B":
``(1 + #{d_k >= d}) / (K + 1)``, Williams' ``P(T >= t)``. mt-metrics-eval reports one-sided
p-values (its ``PermutationSigDiff``: ``#{d_k >= d} / K`` for "metric2 is better"; its Williams
``P(T >= |t|)``, one-sided in the direction observed, half the two-sided p). The output names
the convention (``sides``).

The 95 % interval of each difference is a paired percentile bootstrap: rows for the segment
level, each system's rows (its corpus reduction re-run) for the system level, items for the item
level and SPA (the same flips inside each SPA).
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple

import numpy as np
import scipy.stats

from ..core import stats
from ..core.stats import Vector
from .batch_stats import SpaRows, grouped_pearson_rows, grouped_rows, pearson_rows, per_group
from .meta_system import SystemScores, human_means, percentile_ci, system_samples
from .pairwise import _groups, _pair_blocks, pairwise_accuracy, tie_calibrated_accuracy

#: values (permutations x items) one block of the acc*_eq permutation test holds at most
PERM_BLOCK = 2**20
BatchStat = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _each(fn: Callable[[Any, Any], float]) -> BatchStat:
    def run(x: np.ndarray, h: np.ndarray) -> np.ndarray:
        return np.array([fn(row, h) for row in x])
    return run


BATCH: Dict[str, BatchStat] = {"pearson": pearson_rows, "spearman": _each(stats.spearman),
                               "kendall": _each(stats.kendall_tau_b), "pairwise_accuracy": _each(pairwise_accuracy)}
SIDES = {"two-sided": "two-sided (A and B differ)", "greater": "one-sided (A is better than B)"}


def _zscore(v: np.ndarray) -> np.ndarray:
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else v - v.mean()


def two_sided_p(null: np.ndarray, observed: float) -> float:
    """``(1 + #{|d_k| >= |d|}) / (K + 1)``; nan for an undefined d (:func:`perm_p`)."""
    return perm_p(null, observed)


def perm_p(null: np.ndarray, observed: float, alternative: str = "two-sided") -> float:
    """The permutation p of ``observed`` against ``null`` (module docstring, "Sides"); a
    ``d_k`` within 1e-9 relative or 1e-12 absolute of ``d`` counts as reaching it (the
    statistics are at most 1 in size: a metric and its affine copy differ by rounding only)."""
    if alternative not in SIDES:
        raise ValueError(f"alternative must be 'two-sided' or 'greater', got {alternative!r}")
    d = null[np.isfinite(null)]
    if observed != observed or not len(d):
        return float("nan")
    tol = max(1e-9 * abs(observed), 1e-12)
    hits = np.abs(d) >= abs(observed) - tol if alternative == "two-sided" else d >= observed - tol
    return (1 + int(np.count_nonzero(hits))) / (len(d) + 1)


def perm_both(a: Vector, b: Vector, human: Any, statistic: BatchStat, permutations: int = 1000, seed: int = 0,
              alternative: str = "two-sided") -> Tuple[float, float]:
    """``(d, p)``: d = statistic(A) - statistic(B) and Perm-Both's p (module docstring). The
    units are the entries of ``a`` and ``b`` (any shape, z-scored over all entries)."""
    za, zb = _zscore(np.asarray(a, float)), _zscore(np.asarray(b, float))
    d = float(statistic(za[None], human)[0] - statistic(zb[None], human)[0])
    rng = np.random.default_rng(seed)
    null = []
    for start in range(0, permutations, 256):
        swap = rng.random((min(256, permutations - start), *za.shape)) < 0.5
        null.append(statistic(np.where(swap, zb, za), human) - statistic(np.where(swap, za, zb), human))
    return d, perm_p(np.concatenate(null) if null else np.zeros(0), d, alternative)


def williams_p(r_ha: float, r_hb: float, r_ab: float, n: int, alternative: str = "two-sided") -> float:
    """The p of Williams' test (module docstring); nan for n <= 3 or undefined inputs."""
    if n <= 3 or not all(np.isfinite([r_ha, r_hb, r_ab])):
        return float("nan")
    k = 1 - r_ha ** 2 - r_hb ** 2 - r_ab ** 2 + 2 * r_ha * r_hb * r_ab
    rbar = (r_ha + r_hb) / 2
    den = np.sqrt(max(2 * (n - 1) / (n - 3) * k + rbar ** 2 * (1 - r_ab) ** 3, 0.0))
    if den == 0:
        if alternative == "greater":
            return 0.0 if r_ha > r_hb else 1.0
        return 1.0 if r_ha == r_hb else 0.0
    t = (r_ha - r_hb) * np.sqrt((n - 1) * (1 + r_ab)) / den
    if alternative == "greater":
        return float(scipy.stats.t.sf(t, n - 3))
    return float(2 * scipy.stats.t.sf(abs(t), n - 3))


def acc_eq_test(a: Vector, b: Vector, human: Vector, groups: Sequence[Hashable], permutations: int = 1000,
                seed: int = 0, bootstrap: int = 0, alternative: str = "two-sided") -> Dict[str, Any]:
    """acc*_eq of A and B (each at its own epsilon), the difference, the item-level
    permutation test's p (module docstring), and (``bootstrap``) a 95 % interval
    from resampling items."""
    ma, mb, h = np.asarray(a, float), np.asarray(b, float), np.asarray(human, float)
    acc_a, eps_a = tie_calibrated_accuracy(ma, h, groups)
    acc_b, eps_b = tie_calibrated_accuracy(mb, h, groups)
    rows = _groups(list(groups))
    out: Dict[str, Any] = {"a": acc_a, "b": acc_b, "diff": acc_a - acc_b, "epsilon_a": eps_a, "epsilon_b": eps_b,
                           "ci95": None, "p_permutation": None, "n_items": len(rows)}
    if not rows:
        return out
    sizes = np.array([len(r) for r in rows])
    per_item = np.zeros((2, len(rows)))  # each item's accuracy, A and B
    for i, j, g in _pair_blocks(rows):
        dh = h[i] - h[j]
        for side, (m, eps) in enumerate(((ma, eps_a), (mb, eps_b))):
            dm = m[i] - m[j]
            agree = np.where(np.abs(dm) <= eps, dh == 0, (np.sign(dm) == np.sign(dh)) & (dh != 0))
            per_item[side] += np.bincount(g, agree.astype(float), len(rows))
    per_item /= (sizes * (sizes - 1) // 2)
    d = per_item[0] - per_item[1]
    rng = np.random.default_rng(seed)
    step = max(1, PERM_BLOCK // len(d))
    null = [np.where(rng.random((min(step, permutations - s), len(d))) < 0.5, -1.0, 1.0) @ d / len(d)
            for s in range(0, permutations, step)]
    out["p_permutation"] = perm_p(np.concatenate(null), float(d.mean()), alternative)
    if bootstrap:
        pick = np.random.default_rng(seed).integers(0, len(rows), (bootstrap, len(rows)))
        out["ci95"] = percentile_ci(d[pick].mean(axis=1))
    return out


def _entry(a: float, b: float, p: float, ci: Optional[List[float]], **extra: Any) -> Dict[str, Any]:
    return {"a": a, "b": b, "diff": a - b, "ci95": ci, "p_perm_both": p, **extra}


def compare_metrics(a: Sequence[float], b: Sequence[float], human: Sequence[Optional[float]],
                    systems: Sequence[Optional[Hashable]], items: Sequence[Optional[Hashable]],
                    a_systems: SystemScores, b_systems: SystemScores, *, bootstrap: int = 1000, seed: int = 0,
                    permutations: int = 1000, alternative: str = "two-sided",
                    human_systems: Optional[Dict[str, float]] = None) -> Dict[str, Any]:
    """Metric A (``a``, ``a_systems``) against metric B on the same rows: per statistic both
    values, ``diff`` (A - B), its 95 % interval and the p-values of the module docstring
    (``alternative``: their sides). ``human_systems``: each system's human score (default: the
    mean of its rows')."""
    if alternative not in SIDES:
        raise ValueError(f"alternative must be 'two-sided' or 'greater', got {alternative!r}")
    rated = [k for k, v in enumerate(human) if v is not None]
    ma, mb = np.array([a[k] for k in rated], float), np.array([b[k] for k in rated], float)
    h = np.array([human[k] for k in rated], float)
    out: Dict[str, Any] = {"segment": {}, "system": {}, "pairwise": {}, "item": {}, "seed": seed,
                           "bootstrap": bootstrap, "permutations": permutations, "sides": SIDES[alternative]}
    opts: Dict[str, Any] = dict(permutations=permutations, seed=seed, alternative=alternative)
    pick = np.random.default_rng(seed).integers(0, len(h), (bootstrap, len(h))) if bootstrap else None
    r_ab = stats.pearson(ma, mb)
    for method, fn in stats.CORRELATIONS.items():
        va, vb = fn(ma, h), fn(mb, h)
        _, p = perm_both(ma, mb, h, BATCH[method], **opts)
        ci = percentile_ci(np.array([_safe(fn, ma[r], h[r]) - _safe(fn, mb[r], h[r]) for r in pick])
                           ) if pick is not None else None
        extra = {"p_williams": williams_p(va, vb, r_ab, len(h), alternative)} if method == "pearson" else {}
        out["segment"][method] = _entry(va, vb, p, ci, **extra)
    _systems(out, human, a_systems, b_systems, bootstrap, opts, human_systems)
    _spa(out, ma, mb, h, [systems[k] for k in rated], [items[k] for k in rated], bootstrap, opts)
    keys = [items[k] for k in rated]
    kept = [k for k, g in enumerate(keys) if g is not None]
    if kept:
        g = [keys[k] for k in kept]
        groups = _groups(g)
        xa, xb, hh = ma[kept], mb[kept], h[kept]
        draws = np.random.default_rng(seed).integers(0, len(groups), (bootstrap, len(groups))) \
            if bootstrap and groups else None
        for method in stats.CORRELATIONS:
            va, vb = (float(grouped_rows(method, x[None], hh, groups)[0]) for x in (xa, xb))
            _, p = perm_both(xa, xb, hh, _grouped(method, groups), **opts)
            ci = None
            if draws is not None:
                per = [per_group(method, x, hh, groups) for x in (xa, xb)]
                with np.errstate(invalid="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # a draw of undefined items only: nan, dropped
                    ci = percentile_ci(np.nanmean(per[0][draws], axis=1) - np.nanmean(per[1][draws], axis=1))
            out["item"][method] = _entry(va, vb, p, ci)
        out["item"]["tie_calibrated_accuracy"] = acc_eq_test(xa, xb, hh, g, bootstrap=bootstrap, **opts)
    return out


def _grouped(method: str, groups: List[np.ndarray]) -> BatchStat:
    return lambda x, h: grouped_rows(method, x, h, groups)


def _spa(out: Dict[str, Any], ma: np.ndarray, mb: np.ndarray, h: np.ndarray, systems: List[Any], items: List[Any],
         bootstrap: int, opts: Dict[str, Any]) -> None:
    """SPA of A and B over the systems x items cells every system has, Perm-Both over the cells,
    a 95 % interval from resampling items (columns)."""
    from .meta_eval import cell_matrices
    from .meta_system import system_key

    keys = [system_key(s) for s in systems]
    mat_a, gold, n_sys = cell_matrices(ma.tolist(), h.tolist(), keys, items)
    mat_b = cell_matrices(mb.tolist(), h.tolist(), keys, items)[0]
    if n_sys < 2 or mat_a.shape[1] < 1:
        return
    spa = SpaRows(gold, opts["permutations"], opts["seed"])
    va, vb = (float(spa(m[None])[0]) for m in (mat_a, mat_b))
    _, p = perm_both(mat_a, mat_b, None, lambda x, _h: spa(x), **opts)
    ci = None
    if bootstrap:
        cols = np.random.default_rng(opts["seed"]).integers(0, gold.shape[1], (bootstrap, gold.shape[1]))
        diffs = [SpaRows(gold[:, c], opts["permutations"], opts["seed"])(np.stack([mat_a[:, c], mat_b[:, c]]))
                 for c in cols]
        ci = percentile_ci(np.array([x - y for x, y in diffs]))
    out["pairwise"]["soft_pairwise_accuracy"] = _entry(va, vb, p, ci, n_items=int(gold.shape[1]))


def _safe(fn: Callable[[Any, Any], float], x: np.ndarray, y: np.ndarray) -> float:
    return float(fn(x, y)) if len(x) >= 2 and x.min() != x.max() and y.min() != y.max() else float("nan")


def _systems(out: Dict[str, Any], human: Sequence[Optional[float]], a: SystemScores, b: SystemScores,
             bootstrap: int, opts: Dict[str, Any], human_systems: Optional[Dict[str, float]]) -> None:
    gold = human_means(human, a) if human_systems is None else human_systems
    seed = opts["seed"]
    names = [s for s in a.names if s in gold and s in b.corpus]
    if len(names) < 3:
        return
    va_, vb_ = np.array([a.corpus[s] for s in names]), np.array([b.corpus[s] for s in names])
    h = np.array([gold[s] for s in names])
    samples = system_samples(human, a, names, [b], bootstrap, seed) if bootstrap else None
    r_ab = stats.pearson(va_, vb_)
    for method, batch in BATCH.items():
        fn = stats.CORRELATIONS.get(method, pairwise_accuracy)
        va, vb = float(fn(va_, h)), float(fn(vb_, h))
        _, p = perm_both(va_, vb_, h, batch, **opts)
        ci = None
        if samples is not None:
            hs, (sa, sb) = samples
            if human_systems is not None:  # given system scores (no rows to resample): fixed
                hs = np.broadcast_to(h, hs.shape)
            ci = percentile_ci(np.array([_safe(fn, x, y) - _safe(fn, z, y) for x, z, y in zip(sa, sb, hs)]))
        extra = {"p_williams": williams_p(va, vb, r_ab, len(names), opts["alternative"])} \
            if method == "pearson" else {}
        out["system"][method] = _entry(va, vb, p, ci, **extra)
    out["n_systems"] = len(names)


def format_comparison(metric: str, c: Dict[str, Any]) -> str:
    """The text table of :func:`compare_metrics` (A = ``metric``, B = ``c['metric']``)."""
    lines = [f"{metric} (A) against {c['metric']} (B): diff = A - B, 95% bootstrap interval, p {c['sides']}",
             f"  {'level':8s} {'statistic':23s} {'A':>8s} {'B':>8s} {'diff':>8s}  {'95% interval':>19s}  "
             f"{'p perm':>7s}  {'p Williams':>10s}"]

    def num(x: Any, fmt: str) -> str:
        return format(x, fmt) if isinstance(x, float) and np.isfinite(x) else "-"

    for level in ("segment", "system", "pairwise", "item"):
        for name, v in c.get(level, {}).items():
            ci = f"[{v['ci95'][0]:+.4f}, {v['ci95'][1]:+.4f}]" if v.get("ci95") else "-"
            p = v.get("p_perm_both", v.get("p_permutation"))
            lines.append(f"  {level if level != 'pairwise' else 'system':8s} {name:23s} {num(v['a'], '+8.4f'):>8s} {num(v['b'], '+8.4f'):>8s} "
                         f"{num(v['diff'], '+8.4f'):>8s}  {ci:>19s}  {num(p, '7.4f'):>7s}  "
                         f"{num(v.get('p_williams'), '10.4f'):>10s}")
    return "\n".join(lines)


__all__ = ["BATCH", "SIDES", "acc_eq_test", "compare_metrics", "format_comparison", "grouped_pearson_rows",
           "pearson_rows", "perm_both", "perm_p", "two_sided_p", "williams_p"]

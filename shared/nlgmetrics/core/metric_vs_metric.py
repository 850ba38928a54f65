"""Is metric A closer to the humans than metric B, beyond chance? Paired tests over the same
rows, as WMT's metrics task runs them (re-implemented from the papers' definitions):

- **Perm-Both** (Deutsch et al. 2021; mt-metrics-eval's ``PermutationSigDiff``): both
  metrics' scores z-scored; each permutation swaps, per unit (a row, or a system at the system
  level), A's and B's score with probability 1/2 and recomputes both statistics. Two-sided:
  ``p = (1 + #{|d_k| >= |d|}) / (K + 1)`` (ties counted up to 1e-9 relative).
- **acc*_eq's pairwise permutation test** (mt-metrics-eval's ``PairwisePermutationSigDiff``):
  each metric at its OWN optimal epsilon; each pair of outputs of an item contributes each
  metric's agreement with the humans, and a permutation swaps the two metrics' outcomes per pair.
- **Williams' test** for two dependent Pearson correlations sharing the human side
  (Williams 1959; Graham & Baldwin 2014): ``t = (r_ha - r_hb) sqrt((n-1)(1+r_ab)) /
  sqrt(2 K (n-1)/(n-3) + rbar^2 (1-r_ab)^3)``, ``K = 1 - r_ha^2 - r_hb^2 - r_ab^2 + 2 r_ha r_hb r_ab``,
  ``n - 3`` degrees of freedom, two-sided.

The 95 % interval of each difference is a paired percentile bootstrap: rows for the segment
level, each system's rows (its corpus reduction re-run) for the system level, items for the item
level. Item-level Spearman and Kendall are not compared (a permutation needs them per item per
draw); SPA is not compared.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple

import numpy as np
import scipy.stats

from . import stats
from .meta_system import SystemScores, human_means, percentile_ci, system_samples
from .pairwise import _groups, _pair_blocks, pairwise_accuracy, tie_calibrated_accuracy
from .significance import randomization_p_value
from .stats import Vector

#: pairs per block of the acc*_eq permutation test (permutations x block values at once)
PERM_BLOCK = 4096
BatchStat = Callable[[np.ndarray, np.ndarray], np.ndarray]


def pearson_rows(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of ``x`` (draws x n) with ``h`` (nan for a constant row)."""
    xc = x - x.mean(axis=1, keepdims=True)
    hc = h - h.mean()
    denom = np.sqrt((xc * xc).sum(axis=1) * float(hc @ hc))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(np.where(denom > 0, xc @ hc / np.where(denom > 0, denom, 1), np.nan), -1, 1)


def _each(fn: Callable[[Any, Any], float]) -> BatchStat:
    def run(x: np.ndarray, h: np.ndarray) -> np.ndarray:
        return np.array([fn(row, h) for row in x])
    return run


BATCH: Dict[str, BatchStat] = {"pearson": pearson_rows, "spearman": _each(stats.spearman),
                               "kendall": _each(stats.kendall_tau_b), "pairwise_accuracy": _each(pairwise_accuracy)}


def grouped_pearson_rows(x: np.ndarray, h: np.ndarray, groups: List[np.ndarray]) -> np.ndarray:
    """Item-grouped Pearson of each row of ``x``: the mean over groups where defined."""
    total, count = np.zeros(len(x)), np.zeros(len(x))
    for rows in groups:
        r = pearson_rows(x[:, rows], h[rows])
        ok = np.isfinite(r)
        total += np.where(ok, r, 0.0)
        count += ok
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _zscore(v: np.ndarray) -> np.ndarray:
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else v - v.mean()


def two_sided_p(null: np.ndarray, observed: float) -> float:
    """``(1 + #{|d_k| >= |d|}) / (K + 1)`` (approximate randomisation's p); nan for an undefined d."""
    return float("nan") if observed != observed else randomization_p_value(null, observed)


def perm_both(a: Vector, b: Vector, human: Vector, statistic: BatchStat,
              permutations: int = 1000, seed: int = 0) -> Tuple[float, float]:
    """``(d, p)``: d = statistic(A) - statistic(B) and Perm-Both's two-sided p (module docstring)."""
    za, zb, h = _zscore(np.asarray(a, float)), _zscore(np.asarray(b, float)), np.asarray(human, float)
    d = float(statistic(za[None], h)[0] - statistic(zb[None], h)[0])
    rng = np.random.default_rng(seed)
    null = []
    for start in range(0, permutations, 256):
        swap = rng.random((min(256, permutations - start), len(za))) < 0.5
        null.append(statistic(np.where(swap, zb, za), h) - statistic(np.where(swap, za, zb), h))
    return d, two_sided_p(np.concatenate(null) if null else np.zeros(0), d)


def williams_p(r_ha: float, r_hb: float, r_ab: float, n: int) -> float:
    """Two-sided p of Williams' test (module docstring); nan for n <= 3 or undefined inputs."""
    if n <= 3 or not all(np.isfinite([r_ha, r_hb, r_ab])):
        return float("nan")
    k = 1 - r_ha ** 2 - r_hb ** 2 - r_ab ** 2 + 2 * r_ha * r_hb * r_ab
    rbar = (r_ha + r_hb) / 2
    den = np.sqrt(max(2 * (n - 1) / (n - 3) * k + rbar ** 2 * (1 - r_ab) ** 3, 0.0))
    if den == 0:
        return 1.0 if r_ha == r_hb else 0.0
    t = (r_ha - r_hb) * np.sqrt((n - 1) * (1 + r_ab)) / den
    return float(2 * scipy.stats.t.sf(abs(t), n - 3))


def acc_eq_test(a: Vector, b: Vector, human: Vector, groups: Sequence[Hashable],
                permutations: int = 1000, seed: int = 0, bootstrap: int = 0) -> Dict[str, Any]:
    """acc*_eq of A and B (each at its own epsilon), the difference, the pairwise permutation
    test's two-sided p, and (``bootstrap``) a 95 % interval from resampling items."""
    ma, mb, h = np.asarray(a, float), np.asarray(b, float), np.asarray(human, float)
    acc_a, eps_a = tie_calibrated_accuracy(ma, h, groups)
    acc_b, eps_b = tie_calibrated_accuracy(mb, h, groups)
    rows = _groups(list(groups))
    out: Dict[str, Any] = {"a": acc_a, "b": acc_b, "diff": acc_a - acc_b, "epsilon_a": eps_a, "epsilon_b": eps_b,
                           "ci95": None, "p_permutation": None}
    if not rows:
        return out
    sizes = np.array([len(r) for r in rows])
    weights = 1.0 / (sizes * (sizes - 1) // 2 * len(rows))
    per_item = np.zeros((2, len(rows)))
    rng = np.random.default_rng(seed)
    null = np.zeros(permutations)
    for i, j, g in _pair_blocks(rows, PERM_BLOCK):
        dh = h[i] - h[j]
        agree = []
        for m, eps in ((ma, eps_a), (mb, eps_b)):
            dm = m[i] - m[j]
            tie = np.abs(dm) <= eps
            agree.append(np.where(tie, dh == 0, (np.sign(dm) == np.sign(dh)) & (dh != 0)).astype(float))
        for side in (0, 1):
            per_item[side] += np.bincount(g, agree[side] * weights[g] * len(rows), len(rows))
        d = (agree[0] - agree[1]) * weights[g]
        live = d != 0
        if live.any():
            sign = np.where(rng.random((permutations, int(live.sum()))) < 0.5, -1.0, 1.0)
            null += sign @ d[live]
    out["p_permutation"] = two_sided_p(null, out["diff"])
    if bootstrap:
        pick = np.random.default_rng(seed).integers(0, len(rows), (bootstrap, len(rows)))
        out["ci95"] = percentile_ci(per_item[0][pick].mean(axis=1) - per_item[1][pick].mean(axis=1))
    return out


def _entry(a: float, b: float, p: float, ci: Optional[List[float]], **extra: Any) -> Dict[str, Any]:
    return {"a": a, "b": b, "diff": a - b, "ci95": ci, "p_perm_both": p, **extra}


def compare_metrics(a: Sequence[float], b: Sequence[float], human: Sequence[Optional[float]],
                    systems: Sequence[Optional[Hashable]], items: Sequence[Optional[Hashable]],
                    a_systems: SystemScores, b_systems: SystemScores, *, bootstrap: int = 1000, seed: int = 0,
                    permutations: int = 1000) -> Dict[str, Any]:
    """Metric A (``a``, ``a_systems``) against metric B on the same rows: per statistic both
    values, ``diff`` (A - B), its 95 % interval and the p-values of the module docstring."""
    rated = [k for k, v in enumerate(human) if v is not None]
    ma, mb = np.array([a[k] for k in rated], float), np.array([b[k] for k in rated], float)
    h = np.array([human[k] for k in rated], float)
    out: Dict[str, Any] = {"segment": {}, "system": {}, "item": {}, "seed": seed, "bootstrap": bootstrap,
                           "permutations": permutations}
    pick = np.random.default_rng(seed).integers(0, len(h), (bootstrap, len(h))) if bootstrap else None
    r_ab = stats.pearson(ma, mb)
    for method, fn in stats.CORRELATIONS.items():
        va, vb = fn(ma, h), fn(mb, h)
        _, p = perm_both(ma, mb, h, BATCH[method], permutations, seed)
        ci = percentile_ci(np.array([_safe(fn, ma[r], h[r]) - _safe(fn, mb[r], h[r]) for r in pick])
                           ) if pick is not None else None
        extra = {"p_williams": williams_p(va, vb, r_ab, len(h))} if method == "pearson" else {}
        out["segment"][method] = _entry(va, vb, p, ci, **extra)
    _systems(out, human, a_systems, b_systems, bootstrap, seed, permutations)
    keys = [items[k] for k in rated]
    kept = [k for k, g in enumerate(keys) if g is not None]
    if kept:
        g = [keys[k] for k in kept]
        groups = _groups(g)
        xa, xb, hh = ma[kept], mb[kept], h[kept]
        va = float(grouped_pearson_rows(xa[None], hh, groups)[0])
        vb = float(grouped_pearson_rows(xb[None], hh, groups)[0])
        _, p = perm_both(xa, xb, hh, lambda x, y: grouped_pearson_rows(x, y, groups), permutations, seed)
        ci = None
        if bootstrap and groups:
            per = np.array([[stats.pearson(x[r], hh[r]) for r in groups] for x in (xa, xb)])
            draws = np.random.default_rng(seed).integers(0, len(groups), (bootstrap, len(groups)))
            ci = percentile_ci(np.nanmean(per[0][draws], axis=1) - np.nanmean(per[1][draws], axis=1))
        out["item"]["pearson"] = _entry(va, vb, p, ci)
        out["item"]["tie_calibrated_accuracy"] = acc_eq_test(xa, xb, hh, g, permutations, seed, bootstrap)
    return out


def _safe(fn: Callable[[Any, Any], float], x: np.ndarray, y: np.ndarray) -> float:
    return float(fn(x, y)) if len(x) >= 2 and x.min() != x.max() and y.min() != y.max() else float("nan")


def _systems(out: Dict[str, Any], human: Sequence[Optional[float]], a: SystemScores, b: SystemScores,
             bootstrap: int, seed: int, permutations: int) -> None:
    gold = human_means(human, a)
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
        _, p = perm_both(va_, vb_, h, batch, permutations, seed)
        ci = None
        if samples is not None:
            hs, (sa, sb) = samples
            ci = percentile_ci(np.array([_safe(fn, x, y) - _safe(fn, z, y) for x, z, y in zip(sa, sb, hs)]))
        extra = {"p_williams": williams_p(va, vb, r_ab, len(names))} if method == "pearson" else {}
        out["system"][method] = _entry(va, vb, p, ci, **extra)
    out["n_systems"] = len(names)


def format_comparison(metric: str, c: Dict[str, Any]) -> str:
    """The text table of :func:`compare_metrics` (A = ``metric``, B = ``c['metric']``)."""
    lines = [f"{metric} (A) against {c['metric']} (B): diff = A - B, 95% bootstrap interval, two-sided p",
             f"  {'level':8s} {'statistic':23s} {'A':>8s} {'B':>8s} {'diff':>8s}  {'95% interval':>19s}  "
             f"{'p perm':>7s}  {'p Williams':>10s}"]

    def num(x: Any, fmt: str) -> str:
        return format(x, fmt) if isinstance(x, float) and np.isfinite(x) else "-"

    for level in ("segment", "system", "item"):
        for name, v in c[level].items():
            ci = f"[{v['ci95'][0]:+.4f}, {v['ci95'][1]:+.4f}]" if v.get("ci95") else "-"
            p = v.get("p_perm_both", v.get("p_permutation"))
            lines.append(f"  {level:8s} {name:23s} {num(v['a'], '+8.4f'):>8s} {num(v['b'], '+8.4f'):>8s} "
                         f"{num(v['diff'], '+8.4f'):>8s}  {ci:>19s}  {num(p, '7.4f'):>7s}  "
                         f"{num(v.get('p_williams'), '10.4f'):>10s}")
    return "\n".join(lines)


__all__ = ["BATCH", "acc_eq_test", "compare_metrics", "format_comparison", "grouped_pearson_rows", "pearson_rows",
           "perm_both", "two_sided_p", "williams_p"]

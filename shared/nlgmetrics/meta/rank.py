"""Ranking many metrics at once on an mt-metrics-eval EvalSet, as WMT's metrics task does
(``nlgmetrics.meta.rank.rank_metrics``): every metric's statistics at the segment, item and
system level, and per ranked statistic the Perm-Both p-values between all metrics and their
rank clusters.

The procedure is google-research/mt-metrics-eval's: ``mt_metrics_eval/data.py``,
``CompareMetrics`` / ``CompareMetricsWithGlobalAccuracy`` /
``CompareMetricsWithPairwiseConfidenceError`` (metrics sorted by decreasing value, name
breaking ties), ``ComputeSigMatrix`` (``stats.PermutationSigDiff``, one-sided, the same random
swaps for both metrics of a pair) and ``AssignRanks``; re-implemented in
:mod:`nlgmetrics.meta.rank_sig`, which says how its draws are made equal to theirs.

Statistics (``LEVEL.NAME``; mt-metrics-eval's function in brackets):

- ``seg.pearson|spearman|kendall``: over all (system, segment) cells with a human score
  (``average_by='none'``; Kendall is tau-b, ``scipy.stats.kendalltau``);
- ``item.pearson|spearman|kendall``: per segment over its systems, averaged over the segments
  where defined (``average_by='item'``); ``item.tie_calibrated_accuracy``: acc*_eq
  (``KendallWithTiesOpt``, variant acc23, ``sample_rate=1``) with its epsilon;
- ``sys.pearson|spearman|kendall``, ``sys.pairwise_accuracy`` (``Agreement``): the metric's
  system scores (its ``sys`` file) against the human ``sys`` file (or, without one, each system's
  mean human segment score, said in ``system_human``); ``sys.soft_pairwise_accuracy``
  (``PairwiseConfidenceError``) from the segment scores of the segments every system has.

The result records ``seed``, ``k`` (draws per pair), ``pval``, the early-stopping parameters
and the SPA permutations; ``bootstrap`` > 0 adds 95 % percentile intervals of each ranked
statistic computed from segment scores (segments resampled, the same draws for every metric);
the system-file statistics get none (no segments to resample). Written out by
:mod:`nlgmetrics.meta.rank_report`, drawn by :mod:`nlgmetrics.meta.rank_figure`.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .meta_system import percentile_ci
from .mtme import EvalSet, Scores, read_evalset, read_metric_scores
from .pairwise import tie_calibrated_accuracy
from .rank_sig import SPA_PERMUTATIONS, SPA_SEED, STATISTICS, Statistic, assign_ranks, sig_matrix, statistic

#: what WMT23-25's metrics tasks rank by (tasks.WMT23 and tasks.WMT24: sys accuracy, sys
#: Pearson, seg Pearson, item acc*_eq; SPA at the system level)
DEFAULT_RANKED = ("sys.soft_pairwise_accuracy", "sys.pairwise_accuracy", "sys.pearson", "seg.pearson",
                  "item.tie_calibrated_accuracy")
PROCEDURE = ("google-research/mt-metrics-eval mt_metrics_eval/data.py: CompareMetrics (order by value, then name), "
             "ComputeSigMatrix (stats.PermutationSigDiff, Perm-Both, one-sided p of 'row metric better'), "
             "AssignRanks")
#: metric name -> level ("seg", "sys") -> system -> scores, as read from score files
MetricScores = Mapping[str, Mapping[str, Mapping[str, Sequence[Optional[float]]]]]


def _choose(es: EvalSet, human: Optional[str], ref: Optional[str]) -> Tuple[str, Optional[str]]:
    names = sorted(k for k, v in es.human.items() if "seg" in v)
    if human is None:
        if len(names) != 1:
            raise ValueError(f"{es.root}: name the human scores (human=; found: {', '.join(names) or 'none'})")
        human = names[0]
    if human not in names:
        raise ValueError(f"{es.root}: no human-scores/{es.lp}.{human}.seg.score (found: {', '.join(names) or 'none'})")
    if ref is None and len(es.references) > 1:
        raise ValueError(f"{es.root}: {len(es.references)} references; choose one with ref= ({', '.join(es.references)})")
    ref = ref if ref is not None else next(iter(es.references), None)
    if ref is not None and ref not in es.references:
        raise ValueError(f"{es.root}: no references/{es.lp}.{ref}.txt (references: {', '.join(es.references) or 'none'})")
    return human, ref


def _human(es: EvalSet, human: str, ref: Optional[str], include_human: bool
           ) -> Tuple[Dict[str, List[str]], Dict[str, np.ndarray], str]:
    """Systems (name order) and human matrices per score level, and where the system scores come from."""
    left = {ref} if ref is not None else set()
    if not include_human:
        left |= set(es.references)
    n = len(es.sources)
    seg = es.human[human]["seg"]
    systems: Dict[str, List[str]] = {"seg": sorted(s for s, v in seg.items() if s in es.outputs and s not in left
                                                  and any(x is not None for x in v))}
    for s in systems["seg"]:
        if len(seg[s]) != n:
            raise ValueError(f"human-scores/{es.lp}.{human}.seg.score holds {len(seg[s])} scores for {s}, "
                             f"but the source has {n} segments")
    if not systems["seg"]:
        raise ValueError(f"{es.root}: no system output of {es.lp} has a {human} human score")
    mats = {"seg": np.array([[np.nan if x is None else x for x in seg[s]] for s in systems["seg"]], dtype=float)}
    given = es.human_scores(human, "sys")
    if given is not None:
        systems["sys"] = sorted(s for s, v in given.items() if s in es.outputs and s not in left
                                and len(v) == 1 and v[0] is not None)
        mats["sys"] = np.array([[given[s][0]] for s in systems["sys"]], dtype=float).reshape(-1, 1)
        return systems, mats, f"human-scores/{es.lp}.{human}.sys.score"
    systems["sys"] = list(systems["seg"])
    mats["sys"] = np.nanmean(mats["seg"], axis=1, keepdims=True)
    return systems, mats, "each system's mean human segment score (no human-scores sys file)"


def _metric(name: str, level: str, scores: Mapping[str, Sequence[Optional[float]]], systems: List[str],
            width: int) -> np.ndarray:
    rows = []
    for s in systems:
        v = scores.get(s)
        if v is None:
            raise ValueError(f"metric {name}: no {level} scores for system {s}")
        if len(v) != width:
            raise ValueError(f"metric {name}: {len(v)} {level} scores for system {s}, expected {width}")
        if any(x is None or not np.isfinite(x) for x in v):
            raise ValueError(f"metric {name}: a missing or non-finite {level} score for system {s}")
        rows.append([float(x) for x in v])  # type: ignore[arg-type]
    return np.array(rows, dtype=float).reshape(len(systems), width)


def rank_metrics(es: EvalSet, metrics: MetricScores, human: Optional[str] = None, ref: Optional[str] = None, *,
                 ranked: Sequence[str] = DEFAULT_RANKED, k: int = 1000, seed: int = 0, pval: float = 0.05,
                 block_size: int = 100, early_min: float = 0.02, early_max: float = 0.5, bootstrap: int = 0,
                 include_human: bool = True) -> Dict[str, Any]:
    """Rank ``metrics`` (name -> ``{"seg": Scores, "sys": Scores}``, either level may be
    absent) on the EvalSet ``es`` against the human scores ``human`` (default: the only name
    with a seg file), leaving out the system named ``ref`` (default: the only reference) and,
    unless ``include_human``, every system named as a reference. Every statistic of
    :data:`~nlgmetrics.meta.rank_sig.STATISTICS` per metric, and per key of ``ranked`` the
    ranking of the module docstring with ``k`` draws per pair from ``seed``, early stopping
    (``block_size``, ``early_min``, ``early_max``) and clusters at ``pval`` (``k = 0``: no test,
    and, as in mt-metrics-eval, every metric its own rank in order of value)."""
    unknown = [key for key in ranked if key not in STATISTICS]
    if unknown:
        raise ValueError(f"ranked: unknown statistic {unknown[0]!r} (choose from {', '.join(STATISTICS)})")
    if isinstance(k, bool) or k < 0 or block_size < 1 or bootstrap < 0 or not 0 < pval < 1:
        raise ValueError("k and bootstrap must be >= 0, block_size >= 1 and 0 < pval < 1")
    if not metrics:
        raise ValueError("no metrics to rank")
    human, ref = _choose(es, human, ref)
    systems, gold, system_human = _human(es, human, ref, include_human)
    widths = {"seg": len(es.sources), "sys": 1}
    mats: Dict[str, Dict[str, np.ndarray]] = {"seg": {}, "sys": {}}
    warnings_: List[str] = []
    for name in sorted(metrics):
        for level in ("seg", "sys"):
            if level in metrics[name]:
                mats[level][name] = _metric(name, level, metrics[name][level], systems[level], widths[level])
            else:
                warnings_.append(f"{name} has no {level} scores: left out of the {level}-file statistics")
    stat_of = {key: statistic(key, gold[src]) for key, src in STATISTICS.items()}
    values: Dict[str, Dict[str, Any]] = {name: {} for name in sorted(metrics)}
    for key, src in STATISTICS.items():
        names = sorted(mats[src])
        for name, value in zip(names, stat_of[key].values(np.stack([mats[src][n] for n in names])) if names else ()):
            values[name][key] = float(value)
    keep = np.isfinite(gold["seg"])
    items = np.broadcast_to(np.arange(gold["seg"].shape[1]), keep.shape)[keep].tolist()
    for name, m in mats["seg"].items():  # the threshold acc*_eq chose
        values[name]["epsilon"] = tie_calibrated_accuracy(m[keep], gold["seg"][keep], items)[1]
    rankings = {key: _ranking(key, mats[STATISTICS[key]], values, gold[STATISTICS[key]], stat_of[key],
                              dict(k=k, seed=seed, block_size=block_size, early_min=early_min, early_max=early_max),
                              pval, bootstrap, seed) for key in ranked}
    return {"lp": es.lp, "root": es.root, "human": human, "ref": ref, "systems": systems,
            "n_segments": len(es.sources), "system_human": system_human, "seed": seed, "k": k, "pval": pval,
            "block_size": block_size, "early_min": early_min, "early_max": early_max, "bootstrap": bootstrap,
            "spa_permutations": SPA_PERMUTATIONS, "spa_seed": SPA_SEED, "procedure": PROCEDURE,
            "metrics": values, "rankings": rankings, "warnings": warnings_}


def _ranking(key: str, mats: Dict[str, np.ndarray], values: Dict[str, Dict[str, Any]], gold: np.ndarray,
             stat: Statistic, test: Dict[str, Any], pval: float, bootstrap: int, seed: int) -> Dict[str, Any]:
    defined = [n for n in sorted(mats) if np.isfinite(values[n][key])]
    order = sorted(defined, key=lambda n: (-values[n][key], n))
    stack = np.stack([mats[n] for n in order]) if order else np.zeros((0, *gold.shape))
    p, used = sig_matrix(stat, stack, **test)
    ci: List[Optional[List[float]]] = [None] * len(order)
    if bootstrap and STATISTICS[key] == "seg" and order:
        draws = np.random.default_rng(seed).integers(0, gold.shape[1], (bootstrap, gold.shape[1]))
        boot = np.array([statistic(key, gold[:, d]).values(stack[:, :, d]) for d in draws])
        ci = [percentile_ci(boot[:, i]) for i in range(len(order))]
    level, name = key.split(".", 1)
    return {"level": level, "statistic": name, "metrics": order, "values": [values[n][key] for n in order],
            "ranks": assign_ranks(p, pval), "p_values": p.tolist(), "draws": used.tolist(), "ci95": ci,
            "left_out": sorted(set(mats) - set(defined))}


def rank_published(root: str, lp: str, names: Optional[Sequence[str]] = None, human: Optional[str] = None,
                   ref: Optional[str] = None, **options: Any) -> Dict[str, Any]:
    """:func:`rank_metrics` of metrics whose scores are all in the EvalSet's
    ``metric-scores/LP/`` folder (:func:`~nlgmetrics.meta.mtme.read_metric_scores`): ``names``
    (``METRIC-REF``), default every metric there that uses reference ``ref`` or none (``-src``)."""
    es = read_evalset(root, lp)
    human, ref = _choose(es, human, ref)
    scores = read_metric_scores(root, lp, names)
    if names is None:
        scores = {n: v for n, v in scores.items() if n.rsplit("-", 1)[1] in {"src", ref}}
    return rank_metrics(es, scores, human, ref, **options)


__all__ = ["DEFAULT_RANKED", "MetricScores", "PROCEDURE", "Scores", "rank_metrics", "rank_published"]

"""The system level of meta-evaluation: each system scored as its own corpus, so the metric's
system score is its OWN corpus score (DATScore's weighted directions, TextEval's document
rating, DiscoTK's normalisation; the mean only where the metric's corpus score is a mean), and
the bootstrap of the system-level statistics that re-runs that corpus reduction per resample
(:meth:`Scorer.resampler <nlgmetrics.core.scorer.Scorer.resampler>`).

Systems are keyed by their string form: ``1`` and ``"1"`` are one system.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Hashable, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..core.inputs import ordered_values
from ..core.language import check_language, first_references
from ..core.significance import Resampler, bootstrap_positions, mean_resampler, percentile_interval


def system_key(value: Optional[Hashable]) -> Optional[str]:
    """A system's key: its string form (a whole float is its integer: 1.0 -> "1"), None stays None."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


@dataclass
class SystemScores:
    """Per system (first-seen order): the rows it holds, its corpus score and resampler."""

    names: List[str]
    rows: Dict[str, List[int]]
    corpus: Dict[str, float]
    resamplers: Dict[str, Resampler] = field(default_factory=dict)
    signature: str = ""


def group_rows(systems: Sequence[Optional[Hashable]]) -> Dict[str, List[int]]:
    """Row numbers per system key (rows without a system left out)."""
    out: Dict[str, List[int]] = {}
    for k, s in enumerate(systems):
        key = system_key(s)
        if key is not None:
            out.setdefault(key, []).append(k)
    return out


def mean_systems(scores: Sequence[float], systems: Sequence[Optional[Hashable]]) -> SystemScores:
    """System scores as the mean of the rows' scores (a metric whose corpus score is a mean)."""
    rows = group_rows(systems)
    values = np.asarray(scores, dtype=float)
    return SystemScores(list(rows), rows, {s: float(values[r].mean()) for s, r in rows.items()},
                        {s: mean_resampler(values[r]) for s, r in rows.items()})


def score_systems(scorer: Any, systems: Sequence[Optional[Hashable]], predictions: Sequence[Any],
                  references: Optional[Sequence[Any]] = None, sources: Optional[Sequence[Any]] = None,
                  extras: Optional[Mapping[str, Sequence[Any]]] = None) -> Tuple[List[float], SystemScores]:
    """Score each system's rows as one corpus (rows without a system as one more corpus):
    the per-row segment scores, and each system's corpus score and resampler. ``extras``: the
    metric's per-segment inputs, one value per row (SAM's ``base_scores``). The rows' texts are
    checked as ordered sequences first, and the language of the whole set once (the corpus
    check of :func:`nlgmetrics.core.language.check_language`, before anything is scored)."""
    predictions = ordered_values(predictions, "predictions", "strings", "texts")
    references = None if references is None else ordered_values(references, "references", "strings", "texts",
                                                                 n=len(predictions))
    sources = None if sources is None else ordered_values(sources, "sources", "strings", "texts", n=len(predictions))
    groups: Dict[Optional[str], List[int]] = {}
    for k, s in enumerate(systems):
        groups.setdefault(system_key(s), []).append(k)
    checked = {key: scorer.validate(
        [predictions[k] for k in rows], None if references is None else [references[k] for k in rows],
        None if sources is None else [sources[k] for k in rows],
        **{name: [values[k] for k in rows] for name, values in (extras or {}).items()}) for key, rows in groups.items()}
    check_language(type(scorer), getattr(scorer, "config", None), {
        "predictions": [text for inputs in checked.values() for text in inputs.predictions],
        "references": [text for inputs in checked.values() for text in first_references(inputs.references)]})
    scores = [0.0] * len(predictions)
    out = SystemScores([], {}, {})
    for key, rows in groups.items():
        records = scorer.segment_records(checked[key])
        result = scorer.reduce(records)
        out.signature = result.signature
        for k, value in zip(rows, result.scores):
            scores[k] = value
        if key is not None:
            out.names.append(key)
            out.rows[key] = rows
            out.corpus[key] = float(result.score)
            out.resamplers[key] = scorer.resampler(records)
    return scores, out


def human_means(human: Sequence[Optional[float]], sys: SystemScores) -> Dict[str, float]:
    """Each system's mean human score over its rows that have one (systems with none left out)."""
    out = {}
    for name in sys.names:
        values = [float(h) for h in (human[k] for k in sys.rows[name]) if h is not None]
        if values:
            out[name] = float(np.mean(values))
    return out


def system_samples(human: Sequence[Optional[float]], sys: SystemScores, names: Sequence[str],
                   extra: Sequence[SystemScores] = (), resamples: int = 1000, seed: int = 0
                   ) -> Tuple[np.ndarray, List[np.ndarray]]:
    """Bootstrap of the systems ``names``: each resample draws each system's rows with
    replacement (the same positions for every system when all have as many rows, i.e. paired
    by segment as in an EvalSet; else each system on its own), and gives the mean human score
    and the corpus score of ``sys`` (and of each of ``extra``) per system: ``resamples x
    systems`` arrays (human, [metric, *extra])."""
    metrics = [sys, *extra]
    h = np.full((resamples, len(names)), np.nan)
    m = [np.full((resamples, len(names)), np.nan) for _ in metrics]
    sizes = {len(sys.rows[n]) for n in names}
    for col, name in enumerate(names):
        gold = np.array([np.nan if human[k] is None else human[k] for k in sys.rows[name]], dtype=float)
        chunks: Iterator[np.ndarray] = bootstrap_positions(len(gold), resamples, seed if len(sizes) == 1 else seed + col)
        done = 0
        for pos in chunks:
            drawn = gold[pos]
            seen = np.isfinite(drawn).sum(axis=1)
            h[done:done + len(pos), col] = np.where(seen > 0, np.nansum(drawn, axis=1) / np.maximum(seen, 1), np.nan)
            for out, scores in zip(m, metrics):
                out[done:done + len(pos), col] = scores.resamplers[name](pos)
            done += len(pos)
    return h, m


def percentile_ci(values: np.ndarray, confidence: float = 0.95) -> Optional[List[float]]:
    """:func:`~nlgmetrics.core.significance.percentile_interval` as a list, None when no value is finite."""
    lo, hi = percentile_interval(np.asarray(values, dtype=float), confidence)
    return None if lo != lo else [lo, hi]


__all__ = ["SystemScores", "group_rows", "human_means", "mean_systems", "percentile_ci", "score_systems",
           "system_key", "system_samples"]

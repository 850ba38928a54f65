"""DATScore's directions and their corpus weights: the eight direction names and named sets,
the paper's rule for the augmentation languages, and the direction weights (one-vs-rest
Pearson sums with a minimum corpus size, uniform, or fixed)."""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.result import signature_number
from ..core.stats import pearson

#: the eight directions, centred on the hypothesis (BARTScore's own: src->hypo faithfulness,
#: ref->hypo precision, hypo->ref recall)
ALL_DIRECTIONS = ("src->hypo", "hypo->src", "ref->hypo", "hypo->ref",
                  "trans1->hypo", "hypo->trans1", "trans2->hypo", "hypo->trans2")
#: named direction sets: ``auto`` = ``all`` with sources, ``reference`` without
DIRECTION_SETS = {
    "all": ALL_DIRECTIONS,
    "reference": ("ref->hypo", "hypo->ref", "trans2->hypo", "hypo->trans2"),
    "bartscore": ("ref->hypo", "hypo->ref"),
}
DIRECTION_WEIGHTINGS = ("one-vs-rest", "uniform")
#: the default minimum corpus size for one-vs-rest weights (see :func:`direction_weights`)
MIN_SEGMENTS_FOR_OVR = 10


def augmentation_languages(source_lang: str | None, target_lang: str) -> tuple[str, str]:
    """The paper's rule for the languages of Trans1 (source translated) and Trans2 (reference
    translated): to English (t = en): (en, es); from English (s = en): (es, en); pairs without
    English: (en, es), or (en, en) when the target is Spanish; no source given: Trans2 in es for
    English targets, in en otherwise."""
    if target_lang == "en":
        return "en", "es"
    if source_lang == "en":
        return "es", "en"
    if source_lang is None:
        return "en", "en"
    return "en", "es" if target_lang != "es" else "en"


def one_vs_rest_weights(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(raw, weights) for a segments x directions score matrix: raw_d = sum over d' != d of
    Pearson(S_d, S_d') (an undefined correlation, from a constant column, counts 0); weights =
    raw clipped at 0 and normalised to sum 1 (all zero -> ``nan`` weights, the caller falls
    back)."""
    n_dirs = matrix.shape[1]
    corr = np.eye(n_dirs)
    for i in range(n_dirs):
        for j in range(i + 1, n_dirs):
            r = pearson(matrix[:, i].tolist(), matrix[:, j].tolist())
            corr[i, j] = corr[j, i] = 0.0 if np.isnan(r) else r
    raw = corr.sum(axis=1) - 1.0
    clipped = np.clip(raw, 0.0, None)
    total = clipped.sum()
    return raw, (clipped / total if total > 0 else np.full(n_dirs, np.nan))


def direction_weights(matrix: np.ndarray, names: Sequence[str],
                      mode: str | Mapping[str, float] = "one-vs-rest",
                      min_segments: int = MIN_SEGMENTS_FOR_OVR) -> tuple[np.ndarray, dict[str, Any]]:
    """Direction weights (summing to 1) for a segments x directions score matrix, and what to
    report about them: ``uniform``; ``one-vs-rest``; or a fixed mapping naming exactly the
    scored directions (normalised to sum 1).

    One-vs-rest needs ``min_segments`` segments: a Pearson correlation over n segments has a
    standard error of about 1/sqrt(n - 1) (0.71 at n = 3, 0.33 at n = 10), so on a handful of
    segments the weights follow noise (3 segments put all the weight on 2 of 8 directions).
    Below it, and when no direction correlates positively with the others, the weights are
    uniform, with a ``weights_note`` and (below the minimum) a warning."""
    info: dict[str, Any] = {}
    if not isinstance(mode, str):
        fixed = check_fixed_weights(mode)
        missing, extra = sorted(set(names) - set(fixed)), sorted(set(fixed) - set(names))
        if missing or extra:
            raise ValueError(f"direction_weights: fixed weights must name exactly the scored directions {list(names)}; "
                             f"missing {missing}, not scored {extra}")
        weights = np.array([fixed[d] for d in names], dtype=float)
        if weights.max() <= 0:
            raise ValueError("direction_weights: the fixed weights of the scored directions are all zero")
        with np.errstate(over="ignore"):
            total = weights.sum()
        if not np.isfinite(total):  # huge weights: scaled to at most 1 first, so the sum is finite
            weights = weights / weights.max()
        return weights / weights.sum(), {"direction_weighting": "fixed"}
    uniform = np.full(len(names), 1.0 / len(names))
    if mode == "uniform" or len(names) == 1:
        return uniform, {"direction_weighting": "uniform"}
    info["direction_weighting"] = "one-vs-rest"
    if matrix.shape[0] < min_segments:
        info["weights_note"] = (f"one-vs-rest weights need at least {min_segments} segments; fewer "
                                f"({matrix.shape[0]}) given: uniform weights used")
        warnings.warn(f"DATScore: {info['weights_note']} (score a larger corpus together, or freeze weights "
                      "from a calibration set with direction_weights={...})", stacklevel=3)
        return uniform, info
    raw, weights = one_vs_rest_weights(matrix)
    info["one_vs_rest_raw"] = dict(zip(names, raw.tolist()))
    if np.isnan(weights).any():
        info["weights_note"] = "no direction correlates positively with the others: uniform weights used"
        return uniform, info
    return weights, info


def check_directions(directions: str | Sequence[str], exclude: Sequence[str]) -> str | tuple[str, ...]:
    """``auto`` or the tuple of directions to score (a named set or a list of names, minus
    ``exclude``); ``ValueError`` for unknown names or an empty result."""
    chosen: str | tuple[str, ...]
    if isinstance(directions, str):
        if directions == "auto":
            chosen = "auto"
        elif directions in DIRECTION_SETS:
            chosen = DIRECTION_SETS[directions]
        else:
            raise ValueError(f"directions must be 'auto', one of {sorted(DIRECTION_SETS)} or a list of "
                             f"direction names, got {directions!r}")
    else:
        chosen = canonical_directions(directions)
    excluded = [str(d).lower() for d in exclude]
    unknown = sorted({*([] if chosen == "auto" else chosen), *excluded} - set(ALL_DIRECTIONS))
    if unknown:
        raise ValueError(f"unknown directions {unknown}; names: {ALL_DIRECTIONS}")
    if chosen != "auto":
        chosen = tuple(d for d in chosen if d not in excluded)
        if not chosen:
            raise ValueError(f"directions={directions!r} with exclude_directions={tuple(exclude)!r} leaves no "
                             "direction to score")
    return chosen


def scored_directions(chosen: str | Sequence[str], exclude: Sequence[str] = (), *,
                      with_sources: bool = True) -> tuple[str, ...]:
    """The directions scored for inputs with or without sources: ``chosen`` is ``auto`` (all
    eight with sources, the ``reference`` set without) or the names :func:`check_directions`
    returned; ``exclude`` is removed from ``auto``'s (the names are already without it)."""
    if isinstance(chosen, str):
        if chosen != "auto":
            raise ValueError(f"scored_directions takes 'auto' or a tuple of names, got {chosen!r}")
        excluded = {str(d).lower() for d in exclude}
        return tuple(d for d in DIRECTION_SETS["all" if with_sources else "reference"] if d not in excluded)
    return tuple(chosen)


def canonical_directions(directions: Sequence[str]) -> tuple[str, ...]:
    """A list of direction names lower-cased, without duplicates, in :data:`ALL_DIRECTIONS`'s
    order (unknown names kept, last, for the caller's error): lists naming the same set score
    identically (each direction's score and weight do not depend on the order) and sign alike."""
    names = dict.fromkeys(str(d).lower() for d in directions)
    return tuple(d for d in ALL_DIRECTIONS if d in names) + tuple(d for d in names if d not in ALL_DIRECTIONS)


def check_fixed_weights(value: Mapping[str, Any]) -> dict[str, float]:
    """A fixed direction -> weight mapping checked: known names, real-number weights (not
    booleans or strings), finite, non-negative, not all zero."""
    fixed: dict[str, float] = {}
    for k, v in dict(value).items():
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            raise ValueError(f"direction_weights: the weight of {k!r} must be a number, got {v!r} "
                             f"({type(v).__name__})")
        fixed[str(k)] = float(v)
    unknown = sorted(set(fixed) - set(ALL_DIRECTIONS))
    if unknown:
        raise ValueError(f"unknown directions in direction_weights: {unknown}; names: {ALL_DIRECTIONS}")
    if any(not np.isfinite(v) or v < 0 for v in fixed.values()) or not any(v > 0 for v in fixed.values()):
        raise ValueError("direction_weights: fixed weights must be finite, non-negative and not all zero")
    return fixed


def fixed_weights_text(fixed: Mapping[str, float]) -> str:
    """The signature form of fixed weights: ``name=weight`` sorted by name, each weight as
    signatures write numbers (:func:`~nlgmetrics.core.result.signature_number`: ``1``, ``0.25``,
    ``1e+308``)."""
    return ",".join(f"{k}={signature_number(v)}" for k, v in sorted(fixed.items()))

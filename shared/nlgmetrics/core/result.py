"""MetricResult: per-segment scores, a corpus score, per-segment details and a signature."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional


def signature_number(value: float) -> str:
    """A float as signatures write it: the ``:g`` form when it reads back to the same float
    (``0.07``, ``1``, ``1e+06``), else the shortest form that does (``12.345671``), so two
    different values never sign alike.

    >>> [signature_number(v) for v in (0.07, 1.0, 1e6, 12.345671, 2.5e-07, 1e308)]
    ['0.07', '1', '1e+06', '12.345671', '2.5e-07', '1e+308']
    """
    value = float(value)
    short = f"{value:g}"
    if not math.isfinite(value) or float(short) == value:
        return short
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def make_signature(metric: str, version: str, **fields: Any) -> str:
    """A sacrebleu-style signature: ``metric|key:value|...|v:version``.

    ``None`` values are left out; booleans print as yes/no; floats as :func:`signature_number`;
    the order is the call's order.
    """
    parts = [metric]
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, float):
            value = signature_number(value)
        parts.append(f"{key}:{value}")
    parts.append(f"v:{version}")
    return "|".join(parts)


def map_floats(value: Any, leaf: Callable[[float], Any],
               on_dict: Optional[Callable[[Dict[Any, Any]], None]] = None) -> Any:
    """JSON-shaped copy of ``value`` with ``leaf`` applied to every float (anywhere in nested
    dicts, lists and tuples; numpy scalars and arrays become plain numbers and lists first),
    dict keys as strings; ``on_dict`` sees every dict before it is copied (e.g. to refuse a key).
    """
    if isinstance(value, float):
        return leaf(value)
    if isinstance(value, dict):
        if on_dict is not None:
            on_dict(value)
        return {str(k): map_floats(v, leaf, on_dict) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [map_floats(v, leaf, on_dict) for v in value]
    if hasattr(value, "tolist"):
        return map_floats(value.tolist(), leaf, on_dict)
    if hasattr(value, "item"):
        return map_floats(value.item(), leaf, on_dict)
    return value


def finite_or_none(value: Any) -> Any:
    """JSON-ready copy of ``value``: every non-finite float (anywhere in nested dicts, lists
    and tuples; numpy scalars and arrays included) replaced by ``None`` (:func:`map_floats`).

    >>> finite_or_none({"r2": float("nan"), "w": (1.0, float("inf")), 3: [2.5]})
    {'r2': None, 'w': [1.0, None], '3': [2.5]}
    """
    return map_floats(value, lambda x: x if math.isfinite(x) else None)


def has_nonfinite(value: Any) -> bool:
    """Whether ``value`` holds a NaN or infinite float anywhere (:func:`map_floats`'s walk)."""
    found: List[bool] = []
    map_floats(value, lambda x: found.append(not math.isfinite(x)))
    return any(found)


@dataclass
class MetricResult:
    """What every scorer returns.

    ``scores`` holds one float per segment (the direction and range are the metric's facts:
    ``scorer.higher_is_better``, ``FACTS.score_range`` in its ``config.py``),
    ``score`` the corpus score, ``details`` one dict of components per segment, ``corpus``
    corpus-level information (weights, r2, ...), ``signature`` the reproducibility string.
    """

    metric: str
    scores: List[float]
    score: float
    signature: str
    details: List[Dict[str, Any]] = field(default_factory=list)
    corpus: Dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.scores)

    def __str__(self) -> str:
        return f"{self.metric} = {self.score:.4f} ({self.signature})"

    def to_dict(self, segments: bool = True) -> Dict[str, Any]:
        """JSON-ready dict: non-finite floats, in the scores, details and corpus alike, become
        ``None`` (:func:`finite_or_none`)."""
        out = finite_or_none(asdict(self))
        if not segments:
            out.pop("scores")
            out.pop("details")
        return out

    def to_json(self, segments: bool = True, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(segments), **kwargs)

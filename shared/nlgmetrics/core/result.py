"""MetricResult: per-segment scores, a corpus score, per-segment details and a signature."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional


def make_signature(metric: str, version: str, **fields: Any) -> str:
    """A sacrebleu-style signature: ``metric|key:value|...|v:version``.

    ``None`` values are left out; booleans print as yes/no; the order is the call's order.
    """
    parts = [metric]
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, float):
            value = f"{value:g}"
        parts.append(f"{key}:{value}")
    parts.append(f"v:{version}")
    return "|".join(parts)


def _finite_or_none(value: float) -> Optional[float]:
    return float(value) if value is not None and math.isfinite(value) else None


@dataclass
class MetricResult:
    """What every scorer returns.

    ``scores`` holds one float per segment (higher is better unless a card says otherwise),
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
        """JSON-ready dict; non-finite floats become ``None``."""
        out = asdict(self)
        out["score"] = _finite_or_none(self.score)
        out["scores"] = [_finite_or_none(s) for s in self.scores]
        if not segments:
            out.pop("scores")
            out.pop("details")
        return out

    def to_json(self, segments: bool = True, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(segments), default=_json_default, **kwargs)


def _json_default(obj: Any) -> Any:
    """numpy scalars and arrays in details serialise as plain numbers and lists."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "item"):
        return obj.item()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")

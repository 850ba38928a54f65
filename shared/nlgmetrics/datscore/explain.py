"""What DATScore's Space and reports draw, from the scorer's own result: the corpus direction
weights and, per segment, the score of each direction and the augmented translations."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List


@dataclass(frozen=True)
class SegmentDirections:
    #: direction -> weighted mean token log-probability (<= 0; closer to 0 is better)
    directions: Dict[str, float]
    #: ``trans1`` / ``trans2`` -> the augmented translation (with ``return_translations``)
    translations: Dict[str, str] = field(default_factory=dict)


def direction_weights(result: Any) -> Dict[str, float]:
    """The corpus weight of each direction (one-vs-rest or fixed, as the result says)."""
    return {d: float(w) for d, w in result.corpus["direction_weights"].items()}


def segment_directions(result: Any) -> List[SegmentDirections]:
    """Per segment, the direction scores and translations the scorer recorded."""
    return [SegmentDirections({d: float(s) for d, s in detail["directions"].items()},
                              dict(detail.get("translations", {}))) for detail in result.details]


__all__ = ["SegmentDirections", "direction_weights", "segment_directions"]

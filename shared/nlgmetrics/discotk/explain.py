"""What DiscoTK's Space and reports draw, from the scorer's own analysis: the two discourse
trees of a segment (:meth:`DiscoTK.analyze`, the cached analysis the kernels were computed on)
and its kernel similarities per representation and party features (its record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional

from nlgmetrics.core.inputs import validate_texts

from .discourse import REPRESENTATIONS, DiscourseTree
from .members import PARTY_MEMBERS
from .scorer import DiscoTK


@dataclass(frozen=True)
class SegmentView:
    hypothesis_tree: Optional[DiscourseTree]
    reference_tree: Optional[DiscourseTree]
    #: representation -> tree-kernel similarity
    kernels: Dict[str, float]
    #: party's other features (before weighting); empty for the other variants
    party: Dict[str, float]


def segment_view(scorer: DiscoTK, hypothesis: str, reference: str, detail: Mapping[str, Any]) -> SegmentView:
    """The trees and features of one scored segment (``detail``: its ``result.details`` entry)."""
    hyp, ref = scorer.analyze(validate_texts([hypothesis, reference], "texts"))  # normalised as scored
    features = detail["features"]
    return SegmentView(hyp.tree, ref.tree, {name: float(features[name]) for name in REPRESENTATIONS},
                       {name: float(features[name]) for name in PARTY_MEMBERS if name in features})


__all__ = ["SegmentView", "segment_view"]

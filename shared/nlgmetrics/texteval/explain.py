"""What TextEval's Space and reports draw, from the scorer's own set ranking
(:meth:`TextEval.rank_set`): the prediction and its references placed on the 1-D MDS scale and
by the direct score, under the names the drawing labels them with."""
from __future__ import annotations

from typing import Sequence, Tuple

from .scorer import SetRanking, TextEval


def segment_ranking(scorer: TextEval, prediction: str, references: Sequence[str]) -> Tuple[list, SetRanking]:
    """``(names, ranking)`` of one segment's set: ``prediction``, ``ref 1``, ``ref 2``, ...
    (a scale needs three texts; with fewer, only the direct scores mean anything)."""
    names = ["prediction"] + [f"ref {k + 1}" for k in range(len(references))]
    return names, scorer.rank_set([prediction, *references], names=names)


__all__ = ["segment_ranking"]

"""What TextEval's Space and reports draw, from the scorer's own set ranking (the same analysis
as :meth:`TextEval.rank_set`): the prediction and its references placed on the 1-D MDS scale
and by the direct score, under the names the drawing labels them with.

The work is bounded: a set holds the prediction and at most the references the score used
(the first ``max_references`` of the scorer's budget, :mod:`nlgmetrics.core.budget`), and the
distance of each pair of texts is computed once per ``pair_cache`` (one drawing of several
segments that share their standard set computes the references' distances once). Issue 37: the
Space ranked 4,000 reference lines per drawn segment (8 million distances each, 199 s)."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import analysis
from .scorer import SetRanking, TextEval


def ranked_references(scorer: TextEval, references: Sequence[str]) -> List[str]:
    """The references a drawing ranks: the first ``max_references`` of the scorer's budget,
    the ones its score used."""
    budget = scorer.budget()
    return list(references)[: budget.max_references] if budget is not None else list(references)


def segment_ranking(scorer: TextEval, prediction: str, references: Sequence[str],
                    pair_cache: Optional[Dict[Tuple[str, str], float]] = None) -> Tuple[list, SetRanking]:
    """``(names, ranking)`` of one segment's set: ``prediction``, ``ref 1``, ``ref 2``, ...
    (a scale needs three texts; with fewer, only the direct scores mean anything). References
    past the budget's ``max_references`` are left out, as in the score; ``pair_cache`` (a dict
    the caller keeps for one drawing) holds the pairwise distances by pair of texts."""
    texts = [prediction, *ranked_references(scorer, references)]
    names = ["prediction"] + [f"ref {k + 1}" for k in range(len(texts) - 1)]
    cache = pair_cache if pair_cache is not None else {}
    counts = scorer.counts(texts)
    matrix = analysis.dense(counts)
    kind = scorer.config.distance
    n = len(texts)
    distances = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            a, b = texts[i], texts[j]
            pair = (a, b) if a <= b else (b, a)
            if pair not in cache:  # a distance ignores the columns both texts lack: any set's matrix gives it
                cache[pair] = analysis.pair_distance(matrix[i], matrix[j], kind)[0]
            distances[i, j] = distances[j, i] = cache[pair]
    result = analysis.analyse(analysis.same_views(matrix), kind, distances=distances)
    tokens = [int(sum(c.values())) for c in counts]
    return names, analysis.ranking(result, scorer.config.approach, scorer.config.min_r2, names, tokens)


__all__ = ["ranked_references", "segment_ranking"]

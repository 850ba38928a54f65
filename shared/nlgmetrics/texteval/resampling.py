"""TextEval's ``corpus="document"`` score for many resampled corpora at once: the
significance tests' resampler (:meth:`TextEval.resampler <nlgmetrics.texteval.scorer.TextEval.resampler>`).

The records' counts are one dense matrix (segments x documents x features: the prediction,
then each reference slot), so a block of resamples' documents is one product
``weights @ counts`` (a resample's weights: how often it draws each segment), exact for
integer counts. Each resample's rating then runs as arrays over the block, the same arithmetic
as :class:`~nlgmetrics.texteval.analysis.StandardSet.rate` on that resample's documents:
the prediction's distance from the summed references (``direct``), or the pairwise distances
and each document's distance from the rest, 1-D classical scaling and its orientation toward
the consensus (``scaling``). Scores equal scoring each resampled corpus from scratch up to the
order of floating-point sums (the tests hold them to 1e-9)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from ..core.significance import draw_counts
from ..core.stats import classical_mds_1d_rows, g2_neg_log_p_rows, g2_rows

#: how many weights one block of resamples holds at most (8 MB)
BLOCK_VALUES = 2**20


def distance_rows(a: np.ndarray, b: np.ndarray, kind: str) -> np.ndarray:
    """:func:`~nlgmetrics.texteval.analysis.pair_distance`'s distance for each pair of rows."""
    value = g2_rows(a, b)
    if kind == "g2":
        return value
    df = np.maximum(np.count_nonzero(a + b, axis=1) - 1, 0)
    return g2_neg_log_p_rows(value, df)


def document_scores(docs: np.ndarray, kind: str, approach: str) -> np.ndarray:
    """The rating of document 0 of each row of ``docs`` (rows x documents x features) against
    the others as the standard set: what ``StandardSet(docs[r, 1:]).rate(docs[r, 0])`` scores."""
    rows, m = docs.shape[:2]
    if approach == "direct":
        return 0.0 - distance_rows(docs[:, 0], docs[:, 1:].sum(axis=1), kind)
    if m < 3:  # a scale of fewer than 3 texts puts every text at 0
        return np.zeros(rows)
    # a document the same in every row (the references under randomisation) is rated once
    same = [bool((docs[:, i] == docs[:1, i]).all()) for i in range(m)]

    def distance(a: np.ndarray, b: np.ndarray, both_same: bool) -> np.ndarray:
        return np.repeat(distance_rows(a[:1], b[:1], kind), rows) if both_same else distance_rows(a, b, kind)

    distances = np.zeros((rows, m, m))
    for i in range(m):
        for j in range(i + 1, m):
            distances[:, i, j] = distances[:, j, i] = distance(docs[:, i], docs[:, j], same[i] and same[j])
    total = docs.sum(axis=1)
    consensus = np.column_stack([-distance(docs[:, i], total - docs[:, i], all(same)) for i in range(m)])
    x = classical_mds_1d_rows(distances)
    x = np.where(np.abs(x) < 1e-12 * np.maximum(1.0, np.abs(x).max(axis=1, keepdims=True)), 0.0, x)
    # oriented as analysis.scale: by the sign of the covariance with the consensus, else so
    # that the member closest to its composite is on the positive side
    spread = (np.ptp(consensus, axis=1) > 0) & (np.ptp(x, axis=1) > 0)
    r = np.einsum("ij,ij->i", x - x.mean(axis=1, keepdims=True),
                  consensus - consensus.mean(axis=1, keepdims=True))
    best = x[np.arange(rows), np.argmax(consensus, axis=1)]
    sign = np.where(spread & (r != 0), np.sign(r), np.where(best < 0, -1.0, 1.0))
    return sign * x[:, 0] + 0.0


class DocumentResampler:
    """Positions (resamples x n, into ``records``, duplicates allowed) -> each resample's
    ``corpus="document"`` score: the predictions' document rated against the references'
    documents summed slot by slot (a record drawn twice counted twice; a row with fewer
    reference slots adds nothing to the missing ones)."""

    def __init__(self, records: Sequence[Mapping[str, Any]], kind: str, approach: str) -> None:
        self.kind, self.approach = kind, approach
        slots = max((len(r["reference_counts"]) for r in records), default=0)
        # the documents of every record, slot by slot (record g's slot s at g * (slots + 1) + s)
        docs = [c for r in records
                for c in (r["counts"], *r["reference_counts"], *([{}] * (slots - len(r["reference_counts"]))))]
        vocab: dict[str, int] = {}
        columns = np.fromiter((vocab.setdefault(k, len(vocab)) for k in chain.from_iterable(docs)), dtype=np.intp)
        values = np.fromiter(chain.from_iterable(c.values() for c in docs), dtype=float, count=len(columns))
        at = np.repeat(np.arange(len(docs)), np.fromiter(map(len, docs), dtype=np.intp, count=len(docs)))
        self.shape = (slots + 1, max(len(vocab), 1))
        counts = np.zeros((len(docs), self.shape[1]))
        counts[at, columns] = values
        self.counts = counts.reshape(len(records), self.shape[0] * self.shape[1])

    def documents(self, positions: np.ndarray) -> np.ndarray:
        """Each resample's documents (resamples x documents x features)."""
        weights = draw_counts(positions, len(self.counts)).astype(float)
        return (weights @ self.counts).reshape(len(positions), *self.shape)

    def swap_differences(self, swaps: np.ndarray) -> np.ndarray:
        """Approximate randomisation's differences with these records the pooled
        ``baseline + system`` (n each): for each row of ``swaps`` (trials x n, ``True`` where
        segment i's two records swap), the system side's score minus the baseline side's, as
        :func:`~nlgmetrics.core.significance.paired_randomization` would get from ``self``.
        A side's documents are the other system's totals shifted by the swapped segments'
        differences, one product over the features where the two systems differ."""
        swaps = np.asarray(swaps, dtype=bool)
        n = len(self.counts) // 2
        if swaps.ndim != 2 or 2 * n != len(self.counts) or swaps.shape[1] != n:
            raise ValueError(f"swaps must be trials x {n} over records pooled as baseline + system, "
                             f"got shape {swaps.shape} for {len(self.counts)} records")
        base, system = self.counts[:n], self.counts[n:]
        delta = base - system
        live = np.flatnonzero((delta != 0).any(axis=0))
        delta = delta[:, live]
        # whole counts whose every partial sum stays under 2**24 add exactly in float32 (half the work)
        exact32 = bool((delta == np.round(delta)).all()) and n * float(np.abs(delta).max(initial=0.0)) < 2**24
        dtype = np.float32 if exact32 else np.float64
        delta = delta.astype(dtype)
        step = max(1, BLOCK_VALUES // max(n, 1))
        out = np.empty(len(swaps))
        for start in range(0, len(swaps), step):
            shift = (swaps[start:start + step].astype(dtype) @ delta).astype(float)
            sides = np.repeat(np.stack([system.sum(axis=0), base.sum(axis=0)])[:, None], len(shift), axis=1)
            sides[0][:, live] += shift
            sides[1][:, live] -= shift
            scores = document_scores(sides.reshape(-1, *self.shape), self.kind, self.approach)
            out[start:start + len(shift)] = scores[:len(shift)] - scores[len(shift):]
        return out

    def __call__(self, positions: np.ndarray) -> np.ndarray:
        positions = np.asarray(positions, dtype=np.intp)
        if positions.ndim != 2:
            raise ValueError(f"positions must be resamples x segments, got shape {positions.shape}")
        if positions.size and (positions.min() < 0 or positions.max() >= len(self.counts)):
            raise ValueError(f"positions must lie in 0..{len(self.counts) - 1} (one per record)")
        step = max(1, BLOCK_VALUES // max(len(self.counts), 1))
        out = np.empty(len(positions))
        for start in range(0, len(positions), step):
            block = positions[start:start + step]
            out[start:start + len(block)] = document_scores(self.documents(block), self.kind, self.approach)
        return out

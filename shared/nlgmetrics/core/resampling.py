"""Resamplers for the significance tests (:mod:`nlgmetrics.core.significance`) and meta-evaluation:
a resampler maps positions (resamples x segments, into a list of records, duplicates allowed)
to one corpus score per resample. :func:`mean_resampler` is the form for a metric whose corpus
score is the mean of its segment scores (the core's default reduction and resampler,
:meth:`Scorer.resampler <nlgmetrics.core.scorer.Scorer.resampler>`); :func:`reduce_each`
reruns a metric's own corpus reduction per resample (exact for every metric: the default of a
metric with its own reduction).

>>> import numpy as np
>>> mean_resampler([1.0, 2.0, 4.0])(np.array([[0, 1, 2], [2, 2, 0]])).tolist()
[2.3333333333333335, 3.0]
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Sequence, Union

import numpy as np

if TYPE_CHECKING:
    from .inputs import Record

#: positions (resamples x segments, into a list of records) -> one corpus score per resample
Resampler = Callable[[np.ndarray], np.ndarray]


def reindexed(records: Sequence["Record"], positions: Sequence[int]) -> List["Record"]:
    """The records at ``positions`` (duplicates allowed), as a corpus of their own: shallow
    copies with ids ``0..n-1`` in that order, which every ``reduce_records`` accepts."""
    return [{**records[int(p)], "id": k} for k, p in enumerate(positions)]


def reduce_each(scorer: Any, records: Sequence["Record"]) -> Resampler:
    """The reference resampler: the metric's ``reduce_records`` run on each resampled corpus
    (:func:`reindexed`), its corpus score kept. Exact for every metric, slow (a full reduction
    with its details per resample)."""
    recs = list(records)

    def run(positions: np.ndarray) -> np.ndarray:
        return np.array([scorer.reduce_records(reindexed(recs, row)).score for row in positions], dtype=float)

    return run


def mean_resampler(values: Union[Sequence[float], np.ndarray]) -> Resampler:
    """The resampler of a metric whose corpus score is the mean of its segment scores."""
    v = np.asarray(values, dtype=float)

    def run(positions: np.ndarray) -> np.ndarray:
        return v[positions].mean(axis=1)

    return run


__all__ = ["Resampler", "mean_resampler", "reduce_each", "reindexed"]

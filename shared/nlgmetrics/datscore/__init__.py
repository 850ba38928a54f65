"""DATScore (data-augmented translation score): BARTScore-style conditional log-likelihoods
of a multilingual seq2seq model (M2M-100) over up to eight generation directions centred on
the hypothesis, with entropy token weights and one-vs-rest direction weights.

Per segment (``score_segments``, shardable): the source is translated into language ``a``
(Trans1) and the reference into language ``b`` (Trans2); each direction X -> Y gets

    Score(X->Y) = sum_t w_t log P(y_t | X, y_<t) / sum_t w_t

over the target tokens (the forced language token is given, ``</s>`` is scored), w_t = 1
(``uniform``) or the entropy of the model's distribution at step t (``entropy``).

Per corpus (``reduce_records``): DATScore_i = sum_d W_d Score_d,i with W_d the sum of the Pearson
correlations of direction d's scores with every other direction's over the corpus, negative
sums clipped to 0, normalised to sum 1 (``one-vs-rest``, on corpora of at least ``ovr_min_segments`` segments,
else uniform with a note and a warning); or uniform, or fixed weights.

Work is shared wherever the inputs allow (see :mod:`nlgmetrics.datscore.seq2seq`): each unique
source and reference is translated once, each unique text is encoded once (one encoder pass of
a hypothesis serves all four Hypo -> X directions), decoder batches are length-bucketed, and
scores do not depend on the batch size.

Checks: a translation that stops at the generation limit warns; a non-finite direction score
(activations overflowing fp16/bf16) is a ``ValueError`` naming the dtype, never a NaN score.

The package: :mod:`.directions` (direction names, augmentation languages, direction weights)
and :mod:`.scorer` (configuration and scorer). Each name below is imported from its module on
first use (:mod:`nlgmetrics.core.lazy`): ``import nlgmetrics.datscore`` loads no model library.
"""
# ruff: noqa: F401 - the exports are imported for type checkers only (tests/core/test_lazy_exports.py)
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import LazyExports

_EXPORTS = LazyExports(__name__, {
    ".config": ("DEFAULT_MODEL", "DATScoreConfig"),
    ".directions": ("ALL_DIRECTIONS", "DIRECTION_SETS", "DIRECTION_WEIGHTINGS", "MIN_SEGMENTS_FOR_OVR",
                    "augmentation_languages", "direction_weights", "one_vs_rest_weights"),
    ".scorer": ("DATScore",),
})
__all__ = _EXPORTS.names

__getattr__, __dir__ = _EXPORTS.attribute, _EXPORTS.dir  # PEP 562: names resolved on first use


if TYPE_CHECKING:
    from .config import DEFAULT_MODEL, DATScoreConfig
    from .directions import (
        ALL_DIRECTIONS,
        DIRECTION_SETS,
        DIRECTION_WEIGHTINGS,
        MIN_SEGMENTS_FOR_OVR,
        augmentation_languages,
        direction_weights,
        one_vs_rest_weights,
    )
    from .scorer import DATScore

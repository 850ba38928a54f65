"""SAM: sentiment-aware adjustment of any hypothesis-reference metric (Saadany et al., 2021).

The words the hypothesis and the reference do not share are looked up in a prior-polarity
lexicon; the sentiment distance of the two sides lowers the base metric score::

    S_h = sum_i alpha_i s_i,  alpha_i = |s_i| / sum_k |s_k|     (hypothesis mismatches, Eqs. 1, 3)
    S_r = sum_j beta_j s_j,   beta_j = |s_j| / sum_k |s_k|      (reference mismatches, Eqs. 2, 4)
    p = |S_h - S_r| / 2 in [0, 1],    SAM = C_hr - p * |C_hr - low|

``low`` is the lower end of the base metric's scale (0 for BLEU, chrF, METEOR, BERTScore;
``base_range[0]`` for caller-given scores), so on those scales SAM is the paper's
``C_hr * (1 - p)``, and on any scale SAM never rises as p grows (a negative score is pushed
further down, not toward 0). ``damping`` (off by default: the paper's p) optionally shrinks p
to ``p * min(1, k / n)`` for a mismatch of n > k items (:func:`damped_p`; measured in the card).

>>> from nlgmetrics.sam import adjust, sentiment_adjustment
>>> sentiment_adjustment([-0.669], [0.856])  # the paper's Example 4 (anger#n vs happiness#n)
(-0.669, 0.856, 0.7625)
>>> adjust(0.92, 0.5), adjust(-0.5, 0.5, low=-1.0), adjust(-0.5, 0.5)
(0.46, -0.75, -0.75)

Each name is imported from its module on first use (:mod:`nlgmetrics.core.lazy`).
"""
# ruff: noqa: F401 - the exports are imported for type checkers only (tests/core/test_lazy_exports.py)
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import LazyExports

_EXPORTS = LazyExports(__name__, {
    ".adjust": ("adjust", "damp", "damp_adjustment", "damped_p", "match_items", "sentiment_adjustment",
                "unmatched_count", "weighted_polarity"),
    ".config": ("BASE_LOW", "BASE_SCALES", "BASES", "DAMPING", "MATCHING", "PROFILES", "SAMConfig", "parse_range"),
    ".scorer": ("SAM", "check_base_score", "check_base_scores", "check_given"),
})
__all__ = _EXPORTS.names

__getattr__, __dir__ = _EXPORTS.attribute, _EXPORTS.dir  # PEP 562: names resolved on first use


if TYPE_CHECKING:
    from .adjust import (
        adjust,
        damp,
        damp_adjustment,
        damped_p,
        match_items,
        sentiment_adjustment,
        unmatched_count,
        weighted_polarity,
    )
    from .config import BASE_LOW, BASE_SCALES, BASES, DAMPING, MATCHING, PROFILES, SAMConfig, parse_range
    from .scorer import SAM, check_base_score, check_base_scores, check_given

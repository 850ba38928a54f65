"""RoMe (Rony et al., ACL 2022) in four parts: :mod:`.features` (preprocessing, F_EMD), :mod:`.ted` (F_TED),
:mod:`.grammar` (CoLA classifiers), :mod:`.network` (the final scorer network), :mod:`.scorer`
(:class:`RoMe` and :class:`RoMeConfig`); :mod:`.fit` fits a network for a configuration
that has no shipped one. Each name below is imported from its module on first use
(:mod:`nlgmetrics.core.lazy`): ``import nlgmetrics.rome`` loads no model library."""
# ruff: noqa: F401 - the exports are imported for type checkers only (tests/core/test_lazy_exports.py)
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import LazyExports

_EXPORTS = LazyExports(__name__, {
    "..core.inputs": ("visible_text",),
    ".config": ("ALIGNMENT_RULES", "ANTONYM_RULES", "COMPONENTS", "DELTA_EMD", "DELTA_TED", "EMD_WEIGHTINGS", "FIT",
                "FUNCTION_WORD_WEIGHT", "GAMMA", "NAME_RULES", "PROFILES", "RoMeConfig", "TED_NORMALIZATIONS",
                "UNALIGNED_COSTS"),
    ".features": ("FUNCTION_WORDS", "ROOT_LABEL", "antonym_mask", "content_weights", "earth_movers_distance",
                  "emd_similarity", "hard_alignment", "name_flags", "name_mask", "preprocess", "relative_position_gap",
                  "tfidf_weights", "transport_distance", "word_cosines", "zeroed_pairs"),
    ".grammar": ("CoLAClassifier", "TunedGrammarHead"),
    ".network": ("FEATURE_ORDER", "ScorerNetwork"),
    ".scorer": ("RoMe",),
    ".ted": ("DependencyTree", "dependency_tree", "ted_se"),
})
__all__ = _EXPORTS.names

__getattr__, __dir__ = _EXPORTS.attribute, _EXPORTS.dir  # PEP 562: names resolved on first use


if TYPE_CHECKING:
    from ..core.inputs import visible_text
    from .config import (
        ALIGNMENT_RULES,
        ANTONYM_RULES,
        COMPONENTS,
        DELTA_EMD,
        DELTA_TED,
        EMD_WEIGHTINGS,
        FIT,
        FUNCTION_WORD_WEIGHT,
        GAMMA,
        NAME_RULES,
        PROFILES,
        TED_NORMALIZATIONS,
        UNALIGNED_COSTS,
        RoMeConfig,
    )
    from .features import (
        FUNCTION_WORDS,
        ROOT_LABEL,
        antonym_mask,
        content_weights,
        earth_movers_distance,
        emd_similarity,
        hard_alignment,
        name_flags,
        name_mask,
        preprocess,
        relative_position_gap,
        tfidf_weights,
        transport_distance,
        word_cosines,
        zeroed_pairs,
    )
    from .grammar import CoLAClassifier, TunedGrammarHead
    from .network import FEATURE_ORDER, ScorerNetwork
    from .scorer import RoMe
    from .ted import DependencyTree, dependency_tree, ted_se

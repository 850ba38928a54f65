"""RoMe (Rony et al., ACL 2022) in four parts: :mod:`.features` (preprocessing, F_EMD), :mod:`.ted` (F_TED),
:mod:`.grammar` (CoLA classifiers), :mod:`.network` (the final scorer network), :mod:`.scorer`
(:class:`RoMe` and :class:`RoMeConfig`); :mod:`.fit` fits a network for a configuration
that has no shipped one. Each name below is imported from its module on first use
(:mod:`nlgmetrics.core.lazy`): ``import nlgmetrics.rome`` loads no model library."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import LazyExports

_EXPORTS = LazyExports(__name__, {
    ".config": ("COMPONENTS", "FIT", "PROFILES", "RoMeConfig"),
    ".features": ("ALIGNMENT_RULES", "ANTONYM_RULES", "DELTA_EMD", "DELTA_TED", "EMD_WEIGHTINGS",
                  "FUNCTION_WORD_WEIGHT", "FUNCTION_WORDS", "GAMMA", "NAME_RULES", "ROOT_LABEL",
                  "TED_NORMALIZATIONS", "UNALIGNED_COSTS", "antonym_mask", "content_weights",
                  "earth_movers_distance", "emd_similarity", "hard_alignment", "name_flags", "name_mask",
                  "preprocess", "relative_position_gap", "tfidf_weights", "transport_distance", "visible_text",
                  "word_cosines", "zeroed_pairs"),
    ".grammar": ("CoLAClassifier", "TunedGrammarHead"),
    ".network": ("FEATURE_ORDER", "ScorerNetwork"),
    ".scorer": ("RoMe",),
    ".ted": ("DependencyTree", "dependency_tree", "ted_se"),
})
__all__ = _EXPORTS.names

__getattr__, __dir__ = _EXPORTS.attribute, _EXPORTS.dir  # PEP 562: names resolved on first use


if TYPE_CHECKING:
    from .config import COMPONENTS, FIT, PROFILES, RoMeConfig
    from .features import (
        ALIGNMENT_RULES,
        ANTONYM_RULES,
        DELTA_EMD,
        DELTA_TED,
        EMD_WEIGHTINGS,
        FUNCTION_WORD_WEIGHT,
        FUNCTION_WORDS,
        GAMMA,
        NAME_RULES,
        ROOT_LABEL,
        TED_NORMALIZATIONS,
        UNALIGNED_COSTS,
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
        visible_text,
        word_cosines,
        zeroed_pairs,
    )
    from .grammar import CoLAClassifier, TunedGrammarHead
    from .network import FEATURE_ORDER, ScorerNetwork
    from .scorer import RoMe
    from .ted import DependencyTree, dependency_tree, ted_se

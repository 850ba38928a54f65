"""RoMe (Rony et al., ACL 2022) in four parts: :mod:`.features` (preprocessing, F_EMD), :mod:`.ted` (F_TED),
:mod:`.grammar` (CoLA classifiers), :mod:`.network` (the final scorer network), :mod:`.scorer`
(:class:`RoMe` and :class:`RoMeConfig`); :mod:`.fit` fits a network for a configuration
that has no shipped one."""
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

__all__ = ["ALIGNMENT_RULES", "ANTONYM_RULES", "COMPONENTS", "CoLAClassifier", "DELTA_EMD", "DELTA_TED", "DependencyTree",
           "EMD_WEIGHTINGS", "FEATURE_ORDER", "FIT", "FUNCTION_WORDS", "FUNCTION_WORD_WEIGHT", "GAMMA", "NAME_RULES",
           "PROFILES", "ROOT_LABEL", "RoMe", "RoMeConfig", "ScorerNetwork", "TED_NORMALIZATIONS",
           "TunedGrammarHead", "UNALIGNED_COSTS", "antonym_mask", "content_weights", "dependency_tree",
           "earth_movers_distance", "emd_similarity", "hard_alignment", "name_flags", "name_mask", "preprocess", "relative_position_gap",
           "ted_se", "tfidf_weights", "transport_distance", "visible_text", "word_cosines", "zeroed_pairs"]

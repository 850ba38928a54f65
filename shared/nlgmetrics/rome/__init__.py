"""RoMe (Rony et al., ACL 2022) in four parts: :mod:`.features` (preprocessing, F_EMD, F_TED),
:mod:`.grammar` (CoLA classifiers), :mod:`.network` (the final scorer network), :mod:`.scorer`
(:class:`RoMe` and :class:`RoMeConfig`); :mod:`.fitting` fits a network for a configuration
that has no shipped one."""
from .features import (
                       ALIGNMENT_RULES,
                       DELTA_EMD,
                       DELTA_TED,
                       GAMMA,
                       ROOT_LABEL,
                       TED_NORMALIZATIONS,
                       DependencyTree,
                       dependency_tree,
                       earth_movers_distance,
                       emd_similarity,
                       hard_alignment,
                       preprocess,
                       relative_position_gap,
                       ted_se,
                       tfidf_weights,
                       transport_distance,
                       word_cosines,
)
from .grammar import CoLAClassifier, TunedGrammarHead
from .network import FEATURE_ORDER, ScorerNetwork
from .scorer import COMPONENTS, FIT, PROFILES, RoMe, RoMeConfig

__all__ = ["ALIGNMENT_RULES", "COMPONENTS", "DELTA_EMD", "DELTA_TED", "FEATURE_ORDER", "FIT", "GAMMA", "PROFILES",
           "ROOT_LABEL", "TED_NORMALIZATIONS", "CoLAClassifier", "DependencyTree", "RoMe", "RoMeConfig",
           "ScorerNetwork", "TunedGrammarHead", "dependency_tree", "earth_movers_distance", "emd_similarity",
           "hard_alignment", "preprocess", "relative_position_gap", "ted_se", "tfidf_weights",
           "transport_distance", "word_cosines"]

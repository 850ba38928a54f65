"""DiscoTK (Joty et al., WMT 2014): compare the RST discourse tree of a hypothesis with that of
its reference by subset-tree kernels over five tree representations, then combine.

- **light**: the five normalised kernel scores (``dr-nolex``, ``dr-lex1``, ``dr-lex2``,
  ``dr-lex1.1``, ``dr-lex1.2``), each normalised per test set by Asiya's rule, averaged.
- **party**: light's five plus the members of Asiya's ULC that have a resource here (TER,
  METEOR with WordNet synonyms, head-word-chain matching over categories and relations,
  dependency overlap) and, with ``members="asiya+extra"`` (the default), chrF, sentence BLEU
  and MiniLM BERTScore; combined uniformly (per-test-set normalised) or with non-negative
  weights learned by pairwise logistic regression on same-source human better/worse pairs
  (segment score ``sigmoid(w . f + b)`` on the raw features; the shipped weights come from
  ``shared/tools/training/discotk_weights.py`` in a checkout).

Per-segment records carry the raw features, so per-test-set normalisation (corpus level)
happens in the reduction and sharded records reduce to the same result. Discourse trees come
from :class:`~nlgmetrics.discotk.discourse.HeuristicRSTParser` (an offline approximation of an RST
parser) or from the inputs themselves when they are RST trees (see :mod:`nlgmetrics.discotk.discourse`).

Files: :mod:`.config` (the options), :mod:`.combine` (normalisation, learned weights),
:mod:`.members` (party's non-discourse members), :mod:`.scorer` (the scorer). Each name below is
imported from its module on first use (:mod:`nlgmetrics.core.lazy`).
"""
# ruff: noqa: F401 - the exports are imported for type checkers only (tests/core/test_lazy_exports.py)
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import LazyExports

_EXPORTS = LazyExports(__name__, {
    ".combine": ("WEIGHTS_FILE", "PairwiseModel", "asiya_normalize", "fit_pairwise", "shipped_model"),
    ".config": ("INPUT_FORMATS", "NORMALIZATIONS", "VARIANTS", "DiscoTKConfig"),
    ".discourse": ("REPRESENTATIONS",),
    ".members": ("ABSENT_MEMBERS", "EXTRA_MEMBERS", "PARTY_MEMBERS", "DependencyItems", "dependency_overlap",
                 "hwcm", "meteor_similarity", "ter_similarity"),
    ".scorer": ("Analysis", "DiscoTK", "feature_names"),
})
__all__ = _EXPORTS.names

__getattr__, __dir__ = _EXPORTS.attribute, _EXPORTS.dir  # PEP 562: names resolved on first use


if TYPE_CHECKING:
    from .combine import WEIGHTS_FILE, PairwiseModel, asiya_normalize, fit_pairwise, shipped_model
    from .config import INPUT_FORMATS, NORMALIZATIONS, VARIANTS, DiscoTKConfig
    from .discourse import REPRESENTATIONS
    from .members import (
        ABSENT_MEMBERS,
        EXTRA_MEMBERS,
        PARTY_MEMBERS,
        DependencyItems,
        dependency_overlap,
        hwcm,
        meteor_similarity,
        ter_similarity,
    )
    from .scorer import Analysis, DiscoTK, feature_names

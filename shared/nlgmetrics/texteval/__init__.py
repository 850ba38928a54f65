"""TextEval (Brew and Thompson, 1994): rate a translation by how much it resembles the other
translations of the same source (its *standard set*), on the hypothesis that good
translations resemble each other more than bad ones.

Every text becomes a multinomial over one of three kinds of feature (``features``):

- ``words``: lowercased word tokens (a regex tokenizer that splits English clitics, on the
  NFC-normalised text without invisible characters; combining marks stay inside words);
- ``tags``: part-of-speech tags from the project's tagger (spaCy; Penn ``xpos`` by default);
- ``classes``: ambiguity classes, the set of tags a lexicon allows a word whatever its
  context: WordNet's POS set of the word plus the closed-class tags of a built-in list
  (:data:`CLOSED_CLASS`); numbers are ``NUM``, punctuation ``PUNCT``, words neither lists
  know ``X``.

The distance between two texts is Dunning's G2 of the 2 x k table of their counts
(``distance="g2"``, the default) or, as the paper reports its metrics, ``-ln p`` of that G2
under chi-square with k - 1 degrees of freedom (``distance="neg_log_p"``). G2 is the default
because the chi-square reference fails on sparse tables: for word counts of long texts k - 1
(the distinct words) exceeds G2, p rounds to 1 and every distance becomes 0 (measured on
WMT21 system documents, where the word scales degenerate; see the card). ``ngram=2`` counts
bigrams of the features instead (the paper's "further work").

Two approaches turn distances into ratings:

- ``direct``: the distance of a text from the composite (summed counts) of the rest of its
  set; the score is its negative, so higher = closer = better;
- ``scaling``: classical MDS of the set's pairwise distance matrix to one dimension; the
  score is the text's coordinate, oriented so that higher means closer to the consensus
  (the sign that makes the coordinates correlate positively with the direct scores), and
  the set's ``r2`` says how much of the pairwise distances the scale explains (the paper
  discards scales with r2 below about 0.1; records carry ``reliable = r2 >= min_r2``).

Three ways in:

- ``score(predictions, references)``: each prediction is rated against its own standard
  set, the references of its row (which do not include it). Per segment the set is
  ``[prediction] + references``; the work on a standard set shared by several rows (counts,
  composite, pairwise distances) is done once. The corpus score (``corpus="document"``,
  the default) treats the predictions as consecutive segments of one text and reference j
  of every row as consecutive segments of translator j's text, and rates that document the
  same way (a text of several sentences is one multinomial, as in the paper);
  ``corpus="mean"`` averages the segment scores instead.
- :meth:`TextEval.rank_set`: rate every member of a set of translations of one source
  against the rest (the paper's own use), optionally with a composite weighted by human
  ratings of the set.
- :meth:`TextEval.score_systems`: the system-level mode; each system's outputs are
  concatenated (their counts summed, so no n-gram spans two segments) and the systems rated
  as a set. Missing outputs (``None``) are allowed: each pair of systems is compared on the
  segments both have, and a system's composite is formed from the others' outputs of its
  own segments.

Edge cases (all documented results, none an error): a text with no tokens has distance 0
from anything (no evidence of difference), so in the direct approach an empty prediction
gets the best possible score 0 -- TextEval measures distributional similarity, not
adequacy, and favours short texts in general (small samples give small G2); a set of one
text gives score 0; a set of two gives both members the same direct score and scaling
coordinates 0 (a scale needs at least 3 texts; r2 is then ``nan``); identical texts give
distances 0, scores 0 and r2 1.

The package: :mod:`.features` (tokens, tags, ambiguity classes, n-grams), :mod:`.analysis`
(distances, composites, scaling, standard sets) and :mod:`.scorer` (configuration and scorer).
Each name below is imported from its module on first use (:mod:`nlgmetrics.core.lazy`).
"""
# ruff: noqa: F401 - the exports are imported for type checkers only (tests/core/test_lazy_exports.py)
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import LazyExports

_EXPORTS = LazyExports(__name__, {
    "..core.stats": ("g2_neg_log_p as neg_log_p",),
    ".analysis": ("DISTANCES", "SetRanking", "pair_distance", "rating_weights"),
    ".config": ("APPROACHES", "CORPUS_MODES", "TextEvalConfig"),
    ".features": ("CLOSED_CLASS", "FEATURES", "TAGSETS", "ambiguity_class", "ngram_counts", "tokenize"),
    ".scorer": ("TextEval",),
})
__all__ = _EXPORTS.names

__getattr__, __dir__ = _EXPORTS.attribute, _EXPORTS.dir  # PEP 562: names resolved on first use


if TYPE_CHECKING:
    from ..core.stats import g2_neg_log_p as neg_log_p
    from .analysis import DISTANCES, SetRanking, pair_distance, rating_weights
    from .config import APPROACHES, CORPUS_MODES, TextEvalConfig
    from .features import CLOSED_CLASS, FEATURES, TAGSETS, ambiguity_class, ngram_counts, tokenize
    from .scorer import TextEval

"""RST-style discourse trees for DiscoTK: the tree type, a bracketed RST text format, an offline
heuristic parser built on the dependency parse, and the five kernel representations.

**Tree type.** :class:`DiscourseTree` is either an EDU (elementary discourse unit: ``text``
and ``words``) or a relation node over two or more children, each child marked nucleus
(``N``) or satellite (``S``).

**Bracketed RST format** (the output format of Feng & Hirst's and similar RST parsers)::

    (Attribution[N][S] (Enablement[N][S] _!it will allow us!_ _!to enter the market ,!_) _!added Cermak .!_)

a relation node is ``(Relation[X][Y]... child child ...)`` with one ``[N]``/``[S]`` per child;
an EDU is its text between ``_!`` and ``!_``. A text made of one EDU is just ``_!text!_``.
:func:`from_rst` and :func:`to_rst` read and write it; ``to_rst(from_rst(s))`` is ``s`` with
whitespace normalised.

**Heuristic parser** (:class:`HeuristicRSTParser`): an approximation of a sentence-level RST
parser (the paper used CODRA, not installable here). Sentences come from the dependency
parser; within a sentence, clauses become EDUs (relative and participial clauses, adverbial
clauses, complements of attribution verbs, purpose to-infinitives, coordinated verbs,
prepositional gerunds); relation and nuclearity come from the clause type and its
connective (see ``SUBORDINATORS``, ``COORDINATORS``, ``ATTRIBUTION_VERBS``); sentences are
joined left to right, by the connective that opens the next sentence or as Elaboration.

**Representations** (all :class:`~nlgmetrics.core.trees.Tree`, under a ``ROOT`` node; an
empty text is the bare leaf ``ROOT``). Words are lowercased, punctuation dropped. A node's
nuclearity is Nucleus, Satellite, or Root for the top node; ``rel`` below is the relation of
the node itself, and for an EDU the relation of its parent (Root for a one-EDU text).

- ``dr-nolex``: ``(rel:nuc child ...)`` for relation nodes, leaf ``EDU:nuc`` for EDUs.
- ``dr-lex1``: as dr-nolex with ``(EDU:nuc (w1 *) (w2 *) ...)``: each word over a dummy leaf
  ``*`` so that single words match as pre-terminals.
- ``dr-lex2``: skeleton ``(SPAN (NUC nuc) (REL rel) child ...)`` and
  ``(EDU (NUC nuc) (NGRAM (w1 *) ...))``.
- ``dr-lex1.1`` / ``dr-lex1.2``: dr-lex1 / dr-lex2 with three more subtrees at each EDU,
  ``(NUC-LEX (w1 nuc) ...)``, ``(REL-LEX (w1 rel) ...)``, ``(NUCREL-LEX (w1 rel:nuc) ...)``,
  in which a word matches only under the same nuclearity, relation, or both. The words are
  the nodes (as in dr-lex1's ``(w *)``) so that these subtrees match only where words match:
  with the labels as nodes, two EDUs of equal length and no common word matched on all three.

Files: :mod:`.tree` (the tree type), :mod:`.rst` (reading and writing bracketed trees, auto-detection),
:mod:`.dis` (RST-DT's ``.dis`` files as RST-DT, CODRA, Feng-Hirst and educe write them),
:mod:`.relations` (relation names -> coarse classes),
:mod:`.parser` (the heuristic parser), :mod:`.representations` (the five kernel
representations), :mod:`.drawing` (text drawings).
"""
from __future__ import annotations

from nlgmetrics.discotk.discourse.drawing import draw
from nlgmetrics.discotk.discourse.parser import ATTRIBUTION_VERBS, COORDINATORS, SENTENCE_CONNECTIVES, SUBORDINATORS, HeuristicRSTParser
from nlgmetrics.discotk.discourse.relations import COARSE_CLASSES, coarse_relation
from nlgmetrics.discotk.discourse.representations import DUMMY, LEXICAL_LAYERS, REPRESENTATIONS, representation, representations
from nlgmetrics.discotk.discourse.rst import from_rst, looks_like_rst, to_dis, to_rst
from nlgmetrics.discotk.discourse.tree import NUCLEUS, ROOT, SATELLITE, DiscourseTree, edu_words, is_word

__all__ = ["ATTRIBUTION_VERBS", "COARSE_CLASSES", "COORDINATORS", "DUMMY", "LEXICAL_LAYERS", "NUCLEUS",
           "REPRESENTATIONS", "ROOT", "SATELLITE", "SENTENCE_CONNECTIVES", "SUBORDINATORS", "DiscourseTree",
           "HeuristicRSTParser", "coarse_relation", "draw", "edu_words", "from_rst", "is_word", "looks_like_rst",
           "representation", "representations", "to_dis", "to_rst"]

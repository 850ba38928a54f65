"""RoMe's F_TED without models: the dependency (lemma) tree of a parsed text and the tree edit
distance with soft lemma matching between two of them (:func:`ted_se`)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nlgmetrics.rome.tree_edit import tree_edit_distance

from ..core.inputs import check_choice
from ..core.linguistic import Parsed
from ..core.trees import Tree
from .config import DELTA_TED, TED_NORMALIZATIONS
from .features import ROOT_LABEL, word_cosines


# -- F_TED ----------------------------------------------------------------------------------
@dataclass
class DependencyTree:
    """A lemma tree under a virtual root, with the lemma row of each node in post-order
    (-1 for the root). ``lemmas`` are the node words in sentence order; ``roles`` (trees built
    with ``roles=True``) their voice-normalised core role: ``subj``, ``obj`` or empty."""

    tree: Tree
    lemmas: list[str]
    postorder_rows: list[int]
    roles: list[str] | None = None
    #: whether words past ``max_words`` were dropped
    cut: bool = False

    @property
    def size(self) -> int:
        """Number of word nodes (the virtual root is not counted)."""
        return len(self.lemmas)


#: word classes left out of a ``roles`` tree (auxiliaries, articles, prepositions, conjunctions)
FUNCTION_UPOS = ("DET", "AUX", "ADP", "CCONJ", "SCONJ")
_SUBJ = ("nsubj", "csubj")
_OBJ = ("obj", "dobj", "iobj", "dative", "nsubjpass", "nsubj:pass", "csubjpass", "csubj:pass")
_ROLE_RANK = {"subj": 0, "obj": 1, "": 2}
#: spaCy's labels of a copula's two arguments ("Paris is the capital": nsubj Paris, attr capital)
_COPULA_ARGS = ("nsubj", "attr")


def core_role(parsed: Parsed, tok: int) -> str:
    """``subj`` for an active subject or a passive agent (spaCy ``agent`` + ``pobj``, UD
    ``obl:agent`` or ``obl`` with case "by"), ``obj`` for an object or a passive subject, else
    an empty string: the role in the active voice."""
    t = parsed.tokens[tok]
    rel = t.deprel.lower()
    if rel in _SUBJ:
        return "subj"
    if rel in _OBJ:
        return "obj"
    if rel == "obl:agent":
        return "subj"
    if rel == "obl" and any(c.head == tok and c.deprel.lower() == "case" and c.lemma.lower() == "by"
                            for c in parsed.tokens):
        return "subj"
    if rel == "pobj" and 0 <= t.head < len(parsed.tokens) and parsed.tokens[t.head].deprel.lower() == "agent":
        return "subj"
    return ""


def copula_argument(parsed: Parsed, tok: int) -> bool:
    """True for the subject or the nominal predicate of a copula "be" that heads its clause
    (spaCy's scheme: "Paris is the capital" has nsubj Paris and attr capital under "is")."""
    t = parsed.tokens[tok]
    if t.deprel.lower() not in _COPULA_ARGS or not 0 <= t.head < len(parsed.tokens):
        return False
    head = parsed.tokens[t.head]
    return head.lemma.lower() == "be" and any(c.head == t.head and c.deprel.lower() == "attr" for c in parsed.tokens)


def dependency_tree(parsed: Parsed, max_words: int | None = None, *, roles: bool = False,
                    copula: bool = False) -> DependencyTree:
    """The lemmatised dependency tree of a parse: punctuation dropped (its dependents move to
    its head), words past ``max_words`` dropped the same way (``cut`` says so), sentence roots
    under one virtual root. Lemmas are lowercased.

    With ``roles`` (the ``ted_tree="roles"`` option): function words (:data:`FUNCTION_UPOS`)
    are dropped too, each word carries its active-voice core role (:func:`core_role`), and a
    node's children are ordered subject, object, then the rest in sentence order, so that a
    passive and its active form give the same tree and a role reversal does not.

    With ``copula`` as well (``ted_tree="roles_copula"``): the two arguments of an identity
    copula (:func:`copula_argument`) carry no role and are ordered by lemma, so "Paris is the
    capital of France" and "The capital of France is Paris" give the same tree, while "France
    is the capital of Paris" does not."""
    drop = ("PUNCT", "SPACE") + (FUNCTION_UPOS if roles else ())
    keep = [i for i, t in enumerate(parsed.tokens) if t.upos not in drop and t.text.strip()]
    cut = max_words is not None and len(keep) > max_words
    if max_words is not None:
        keep = keep[:max_words]
    row_of = {tok: row for row, tok in enumerate(keep)}
    cop = {tok for tok in keep if copula and roles and copula_argument(parsed, tok)}
    role_of = {tok: core_role(parsed, tok) if roles and tok not in cop else "" for tok in keep}
    children: dict[int, list[int]] = {-1: []}
    for tok in keep:
        head = parsed.tokens[tok].head
        steps = 0
        while head != -1 and head not in row_of and steps <= len(parsed.tokens):
            head = parsed.tokens[head].head
            steps += 1
        children.setdefault(head if head in row_of else -1, []).append(tok)
    lemmas = [(parsed.tokens[t].lemma or parsed.tokens[t].text).lower() for t in keep]

    def rank(k: int) -> tuple:
        if k in cop:  # after subject and object, before the rest, by lemma
            return (1.5, lemmas[row_of[k]], k)
        return (_ROLE_RANK[role_of[k]], "", k)

    for kids in children.values():
        kids.sort(key=rank if roles else (lambda k: (0, "", k)))

    order = _postorder_ids(children)
    nodes: dict[int, Tree] = {}
    for tok in order:  # built bottom-up, without recursion
        nodes[tok] = Tree(ROOT_LABEL if tok == -1 else lemmas[row_of[tok]],
                          [nodes[c] for c in children.get(tok, [])])
    return DependencyTree(nodes[-1], lemmas, [row_of.get(tok, -1) for tok in order],
                          [role_of[t] for t in keep] if roles else None, cut)


def _postorder_ids(children: dict[int, list[int]]) -> list[int]:
    """Token ids of the tree rooted at -1 in post-order (children in their list order)."""
    out: list[int] = []
    stack: list[tuple[int, int]] = [(-1, 0)]
    while stack:
        tok, k = stack.pop()
        kids = children.get(tok, [])
        if k < len(kids):
            stack.append((tok, k + 1))
            stack.append((kids[k], 0))
        else:
            out.append(tok)
    return out


def ted_se(hyp: DependencyTree, ref: DependencyTree, hyp_vecs: np.ndarray, ref_vecs: np.ndarray,
           *, delta: float = DELTA_TED, normalization: str = "max", hyp_opaque: Sequence[bool] | None = None,
           ref_opaque: Sequence[bool] | None = None) -> tuple[float, float]:
    """(normalised TED-SE, raw TED-SE). Unit insert/delete; substitution costs 0 when the two
    lemmas are equal or their vectors' cosine is >= delta, else 1 (and 1 when both trees carry
    roles and a subject meets an object); the virtual roots match.
    ``max`` divides by the larger tree and clips at 1 (the raw distance can exceed it when
    the shapes disagree), ``sum`` by the sum of both sizes. Two empty trees give 0."""
    check_choice("TED normalization", normalization, TED_NORMALIZATIONS)
    if hyp.size == 0 and ref.size == 0:
        return 0.0, 0.0
    hr, rr = np.array(hyp.postorder_rows), np.array(ref.postorder_rows)
    cost = np.ones((len(hr), len(rr)))
    if hyp.size and ref.size:
        sim = word_cosines(hyp.lemmas, ref.lemmas, hyp_vecs, ref_vecs, hyp_opaque, ref_opaque)
        same = np.array([[a == b for b in ref.lemmas] for a in hyp.lemmas])
        word_cost = np.where((sim >= delta) | same, 0.0, 1.0)
        if hyp.roles is not None and ref.roles is not None:  # a subject never equals an object
            clash = np.array([[bool(a) and bool(b) and a != b for b in ref.roles] for a in hyp.roles])
            word_cost = np.where(clash, 1.0, word_cost)
        hw, rw = hr >= 0, rr >= 0
        cost[np.ix_(hw, rw)] = word_cost[np.ix_(hr[hw], rr[rw])]
    cost[np.ix_(hr < 0, rr < 0)] = 0.0
    raw = tree_edit_distance(hyp.tree, ref.tree, cost)
    denominator = max(hyp.size, ref.size) if normalization == "max" else hyp.size + ref.size
    return float(min(raw / denominator, 1.0)), raw


"""The five tree representations of a discourse tree that DiscoTK's kernels compare
(see :mod:`nlgmetrics.discotk.discourse` for their forms)."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence

from nlgmetrics.core.trees import Tree
from nlgmetrics.discotk.discourse.tree import NUC_NAME, ROOT, DiscourseTree

DUMMY = "*"
REPRESENTATIONS = ("dr-nolex", "dr-lex1", "dr-lex2", "dr-lex1.1", "dr-lex1.2")


def _walk(tree: DiscourseTree, span: Callable[[DiscourseTree, str, List[Tree]], Tree],
          edu: Callable[[DiscourseTree, str, str], Tree]) -> Tree:
    def rec(node: DiscourseTree, nuc: str, parent_relation: str) -> Tree:
        if node.is_edu():
            return edu(node, nuc, parent_relation)
        kids = [rec(c, NUC_NAME[n], node.relation) for c, n in zip(node.children, node.nuclearity)]
        return span(node, nuc, kids)

    return Tree("ROOT", [rec(tree, ROOT, ROOT)])


def _sequence(items: List[Tree], layer: str, tag: str) -> List[Tree]:
    """Word nodes as the children of their parent (``flat``), or as a right-branching chain
    ``(tag w1 (tag w2 (tag w3)))`` (``chain``)."""
    if layer == "flat":
        return items
    node: Optional[Tree] = None
    for item in reversed(items):
        node = Tree(tag, [item] + ([node] if node is not None else []))
    return [] if node is None else [node]


def _words(words: Sequence[str], layer: str) -> List[Tree]:
    return _sequence([Tree(w, [Tree(DUMMY)]) for w in words], layer, "W")


def _propagated(words: Sequence[str], nuc: str, relation: str, layer: str) -> List[Tree]:
    if not words:
        return []
    out = []
    for tag, label in (("NUC-LEX", nuc), ("REL-LEX", relation), ("NUCREL-LEX", f"{relation}:{nuc}")):
        # the word is the node, its status the leaf: the subtree's production lists the words,
        # so it matches only where the words do, and a word matches only under the same status
        out.append(Tree(tag, _sequence([Tree(w, [Tree(label)]) for w in words], layer, "W")))
    return out


def _style1(tree: DiscourseTree, lexical: bool, propagate: bool, layer: str) -> Tree:
    def span(node: DiscourseTree, nuc: str, kids: List[Tree]) -> Tree:
        return Tree(f"{node.relation}:{nuc}", kids)

    def edu(node: DiscourseTree, nuc: str, relation: str) -> Tree:
        kids = _words(node.words, layer) if lexical else []
        if propagate:
            kids += _propagated(node.words, nuc, relation, layer)
        return Tree(f"EDU:{nuc}", kids)

    return _walk(tree, span, edu)


def _style2(tree: DiscourseTree, propagate: bool, layer: str) -> Tree:
    def span(node: DiscourseTree, nuc: str, kids: List[Tree]) -> Tree:
        return Tree("SPAN", [Tree("NUC", [Tree(nuc)]), Tree("REL", [Tree(node.relation)])] + kids)

    def edu(node: DiscourseTree, nuc: str, relation: str) -> Tree:
        kids = [Tree("NUC", [Tree(nuc)]), Tree("NGRAM", _words(node.words, layer))]
        if propagate:
            kids += _propagated(node.words, nuc, relation, layer)
        return Tree("EDU", kids)

    return _walk(tree, span, edu)


LEXICAL_LAYERS = ("flat", "chain")
_BUILDERS: Dict[str, Callable[[DiscourseTree, str], Tree]] = {
    "dr-nolex": lambda t, layer: _style1(t, lexical=False, propagate=False, layer=layer),
    "dr-lex1": lambda t, layer: _style1(t, lexical=True, propagate=False, layer=layer),
    "dr-lex2": lambda t, layer: _style2(t, propagate=False, layer=layer),
    "dr-lex1.1": lambda t, layer: _style1(t, lexical=True, propagate=True, layer=layer),
    "dr-lex1.2": lambda t, layer: _style2(t, propagate=True, layer=layer),
}


def representation(tree: Optional[DiscourseTree], name: str, lexical_layer: str = "flat") -> Tree:
    """One of :data:`REPRESENTATIONS` of ``tree`` (``None``, an empty text, gives ``ROOT``);
    ``lexical_layer`` is ``flat`` (the paper's) or ``chain`` (see the module doc)."""
    if name not in _BUILDERS:
        raise ValueError(f"unknown representation {name!r}; choose from {', '.join(REPRESENTATIONS)}")
    if lexical_layer not in LEXICAL_LAYERS:
        raise ValueError(f"unknown lexical_layer {lexical_layer!r}; choose flat or chain")
    return Tree("ROOT") if tree is None else _BUILDERS[name](tree, lexical_layer)


def representations(tree: Optional[DiscourseTree], lexical_layer: str = "flat") -> Dict[str, Tree]:
    """All five representations of ``tree``."""
    return {name: representation(tree, name, lexical_layer) for name in REPRESENTATIONS}

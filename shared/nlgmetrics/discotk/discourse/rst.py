"""Reading and writing RST trees as text.

- The **bracketed** format of Feng & Hirst's and similar parsers:
  ``(Elaboration[N][S] _!first unit!_ _!second unit!_)``; a label may have several words
  (``(Elaboration additional[N][S] ...)``).
- RST-DT's **.dis** format (also written by CODRA and DPLP)::

      ( Root (span 1 2)
        ( Nucleus (leaf 1) (rel2par span) (text _!The company said!_) )
        ( Satellite (leaf 2) (rel2par elaboration-additional) (text _!it would grow.!_) ) )

  A node's relation is the ``rel2par`` of its satellite children (or, when all children
  are nuclei, of its nuclei); ``<P>`` paragraph marks in EDU text are dropped.

Relation names are mapped to the coarse classes of :mod:`.relations` on reading. Trees nested
more than :data:`MAX_DEPTH` (400) relation nodes deep are refused with a ``ValueError``.
:func:`from_rst` reads both formats; :func:`to_rst` and :func:`to_dis` write them, and reading
what they write gives the same tree.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from nlgmetrics.core.budget import TOKENS
from nlgmetrics.discotk.discourse.relations import coarse_relation
from nlgmetrics.discotk.discourse.tree import DiscourseTree

_RST_TOKENS = re.compile(r"_!.*?!_|\(|\)|[^\s()]+", re.DOTALL)
_MARKS = re.compile(r"((?:\[[NS]\])+)$")
_DIS_KINDS = {"Root", "Nucleus", "Satellite"}
#: deepest RST tree read (nested relation nodes): the reader and everything that walks a
#: discourse tree recurse once per level, so a deeper tree would exhaust Python's stack
MAX_DEPTH = 400


def _nesting(tokens: List[str], dis: bool) -> int:
    """How many relation nodes nest at most (for ``.dis``, only brackets opening a node count,
    and its EDUs are nodes too: one level below the deepest relation)."""
    depth = top = 0
    opened: List[bool] = []
    for i, tok in enumerate(tokens):
        if tok == "(":
            is_node = not dis or (i + 1 < len(tokens) and tokens[i + 1] in _DIS_KINDS)
            opened.append(is_node)
            depth += is_node
            top = max(top, depth)
        elif tok == ")" and opened:
            depth -= opened.pop()
    return max(top - 1, 0) if dis else top


def to_rst(tree: Optional[DiscourseTree]) -> str:
    """The bracketed RST form; ``""`` for no tree (an empty text)."""
    if tree is None:
        return ""
    if tree.is_edu():
        return f"_!{tree.text}!_"
    label = tree.relation + "".join(f"[{n}]" for n in tree.nuclearity)
    return "(" + " ".join([label] + [to_rst(c) for c in tree.children]) + ")"


def from_rst(text: str) -> Optional[DiscourseTree]:
    """Read a bracketed or ``.dis`` RST tree (see the module doc); ``None`` for blank input.
    Raises ``ValueError`` naming the problem on malformed input, and on a tree nested more
    than :data:`MAX_DEPTH` relation nodes deep."""
    tokens = _RST_TOKENS.findall(text)
    if not tokens:
        return None
    dis = len(tokens) > 1 and tokens[0] == "(" and tokens[1] in _DIS_KINDS
    depth = _nesting(tokens, dis)
    if depth > MAX_DEPTH:
        raise ValueError(f"RST tree nested {depth} relation nodes deep; at most {MAX_DEPTH} are supported")
    if dis:
        return _from_dis(tokens)
    pos = 0

    def parse() -> DiscourseTree:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError("bracketed RST tree ends early: missing ')'")
        tok = tokens[pos]
        pos += 1
        if tok.startswith("_!"):
            if len(tok) < 4 or not tok.endswith("!_"):
                raise ValueError(f"unclosed EDU {tok!r} at token {pos - 1}: EDUs are written _!text!_")
            return DiscourseTree.edu(tok[2:-2])
        if tok != "(":
            raise ValueError(f"expected '(' or an EDU _!...!_ at token {pos - 1}, got {tok!r}")
        if pos >= len(tokens):
            raise ValueError("bracketed RST tree ends after '('")
        start, words = pos, []
        while pos < len(tokens) and tokens[pos] not in "()" and not tokens[pos].startswith("_!"):
            words.append(tokens[pos])
            pos += 1
            if _MARKS.search(words[-1]):
                break
        marks = _MARKS.search(words[-1]) if words else None
        label = " ".join(words)
        name = label[:len(label) - len(marks.group(1))] if marks else ""
        if marks is None or not name.strip():
            got = label or (tokens[start] if start < len(tokens) else "the end")
            raise ValueError(f"expected a label like Elaboration[N][S] at token {start}, got {got!r}")
        nuclearity = tuple(marks.group(1)[1::3])
        children = []
        while pos < len(tokens) and tokens[pos] != ")":
            children.append(parse())
        if pos >= len(tokens):
            raise ValueError("unbalanced brackets in RST tree: missing ')'")
        pos += 1
        if len(children) != len(nuclearity):
            raise ValueError(f"{label} has {len(nuclearity)} nuclearity marks but {len(children)} children")
        return DiscourseTree(coarse_relation(name), children, nuclearity)

    tree = parse()
    if pos != len(tokens):
        raise ValueError(f"trailing text after the RST tree at token {pos}")
    return tree


def looks_like_rst(text: str) -> bool:
    """True for text in the bracketed RST format (starts with '(' or '_!' and has an EDU)."""
    stripped = text.lstrip()
    return stripped.startswith(("(", "_!")) and "_!" in stripped and "!_" in stripped


_EDU = re.compile(r"_!(.*?)!_", re.DOTALL)


def rst_size(text: str) -> Tuple[int, int]:
    """``(EDUs, tokens)`` of an RST tree's text without reading the tree (linear time): its
    ``_!...!_`` units and the word runs and punctuation marks inside them, the units the
    kernels' leaves are built from."""
    edus = tokens = 0
    for match in _EDU.finditer(text):
        edus += 1
        tokens += sum(1 for _ in TOKENS.finditer(match.group(1)))
    return edus, tokens


# -- the .dis format ------------------------------------------------------------------------
def _from_dis(tokens: List[str]) -> DiscourseTree:
    pos = 0

    def expect(tok: str) -> None:
        nonlocal pos
        if pos >= len(tokens) or tokens[pos] != tok:
            got = tokens[pos] if pos < len(tokens) else "the end"
            raise ValueError(f".dis tree: expected {tok!r} at token {pos}, got {got!r}")
        pos += 1

    def node() -> Tuple[str, str, DiscourseTree]:
        """(kind, rel2par, subtree) of the node that opens at ``pos``."""
        nonlocal pos
        expect("(")
        kind = tokens[pos] if pos < len(tokens) else ""
        if kind not in _DIS_KINDS:
            raise ValueError(f".dis tree: expected Root, Nucleus or Satellite at token {pos}, got {kind!r}")
        pos += 1
        rel2par, text, is_leaf, children = "", None, False, []
        while pos < len(tokens) and tokens[pos] != ")":
            if tokens[pos] == "(" and pos + 1 < len(tokens) and tokens[pos + 1] in _DIS_KINDS:
                children.append(node())
                continue
            expect("(")
            field = tokens[pos] if pos < len(tokens) else ""
            pos += 1
            values = []
            while pos < len(tokens) and tokens[pos] not in "()":
                values.append(tokens[pos])
                pos += 1
            expect(")")
            if field == "leaf":
                is_leaf = True
            elif field == "rel2par":
                rel2par = " ".join(values)
            elif field == "text":
                if len(values) != 1 or not values[0].startswith("_!") or not values[0].endswith("!_"):
                    raise ValueError(f".dis tree: EDU text must be written _!text!_ (token {pos})")
                text = values[0][2:-2].replace("<P>", " ")
            elif field != "span":
                raise ValueError(f".dis tree: unknown field {field!r} at token {pos}")
        expect(")")
        if is_leaf:
            if children or text is None:
                raise ValueError(".dis tree: a leaf has a (text _!...!_) and no children")
            return kind, rel2par, DiscourseTree.edu(text)
        if len(children) < 2:
            raise ValueError(f".dis tree: a span node needs at least two children, got {len(children)}")
        nuclearity = tuple("N" if k == "Nucleus" else "S" for k, _, _ in children)
        labels = [r for k, r, _ in children if k == "Satellite"] or [r for _, r, _ in children]
        relations = [r for r in labels if r and r.lower() != "span"]
        if not relations:
            raise ValueError(".dis tree: no rel2par names the relation of a span's children")
        return kind, rel2par, DiscourseTree(coarse_relation(relations[0]), [t for _, _, t in children], nuclearity)

    kind, _, tree = node()
    if pos != len(tokens):
        raise ValueError(f"trailing text after the .dis tree at token {pos}")
    return tree


def to_dis(tree: Optional[DiscourseTree]) -> str:
    """The RST-DT ``.dis`` form (one node per line); ``""`` for no tree."""
    if tree is None:
        return ""
    lines: List[str] = []
    counter = [0]

    def span(t: DiscourseTree) -> str:
        first = counter[0] + 1
        n = len(t.edus())
        return f"(leaf {first})" if t.is_edu() else f"(span {first} {first + n - 1})"

    def rec(t: DiscourseTree, kind: str, rel2par: str, depth: int) -> None:
        pad = "  " * depth
        rel = f" (rel2par {rel2par})" if rel2par else ""
        if t.is_edu():
            counter[0] += 1
            lines.append(f"{pad}( {kind} (leaf {counter[0]}){rel} (text _!{t.text}!_) )")
            return
        lines.append(f"{pad}( {kind} {span(t)}{rel}")
        multi = "S" not in t.nuclearity
        relation = "-".join(t.relation.split())
        for child, nuc in zip(t.children, t.nuclearity):
            child_rel = relation if (nuc == "S" or multi) else "span"
            rec(child, "Nucleus" if nuc == "N" else "Satellite", child_rel, depth + 1)
        lines.append(f"{pad})")

    rec(tree, "Root", "", 0)
    return "\n".join(lines)

"""RST-DT's ``.dis`` format: reading (as RST-DT, CODRA, the Feng-Hirst parser and educe write
it) and writing (RST-DT's own form).

A node is ``( Kind (span a b)|(leaf k) (rel2par name) [(text _!..._!)] children... )`` with
Kind Root, Nucleus or Satellite. On reading:

- EDU text may be written ``_!text_!`` or ``_!text!_``; ``<P>`` paragraph marks are dropped.
- Leaves must be numbered one after another, and each span must be the first and last leaf
  under it; the root may start at any number (a fragment such as ``(span 7 16)``).
- A node's relation is the ``rel2par`` of its satellites, or, when all its children are
  nuclei (a multinuclear List, Joint, Same-Unit, ...), of its nuclei; names map to the coarse
  classes (``consequence-s`` -> Cause). One nucleus with satellites of *different* relations
  (``S N S``) becomes nested binary nodes, the satellites after the nucleus attached first
  (nearest first), then those before it (nearest first).
- A partial or broken tree (a span with one child, leaves or spans that do not add up, a
  missing bracket) is one ``ValueError`` naming the line and column.
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

from nlgmetrics.discotk.discourse.relations import coarse_relation
from nlgmetrics.discotk.discourse.source import DIS_KINDS, Source, check_edu_text
from nlgmetrics.discotk.discourse.tree import DiscourseTree

_FMT = ".dis tree"


class _Node(NamedTuple):
    kind: str
    rel2par: str
    tree: DiscourseTree
    at: int  # token index of its opening bracket


def _number(src: Source, i: int, values: List[Tuple[str, int]], field: str, count: int) -> Tuple[int, ...]:
    if len(values) != count or not all(v.isdigit() for v, _ in values):
        want = "one number" if count == 1 else "two numbers"
        raise src.error(i, f"({field} ...) needs {want}, got {' '.join(v for v, _ in values) or 'none'}", _FMT)
    return tuple(int(v) for v, _ in values)


def read_dis(src: Source) -> DiscourseTree:
    """The tree of a ``.dis`` text already tokenized (see the module doc)."""
    # long: a recursive-descent reader; its nested steps (expect, node, parse) share the token position
    tokens = src.tokens
    pos = 0
    next_leaf: Optional[int] = None

    def expect(tok: str, what: str) -> None:
        nonlocal pos
        if pos >= len(tokens) or tokens[pos].text != tok:
            raise src.error(pos, f"expected {tok!r} {what}, got {src.got(pos)}", _FMT)
        pos += 1

    def node() -> _Node:
        nonlocal pos, next_leaf
        at, first = pos, next_leaf
        expect("(", "to open a node")
        kind = tokens[pos].text if pos < len(tokens) else ""
        if kind not in DIS_KINDS:
            raise src.error(pos, f"expected Root, Nucleus or Satellite, got {src.got(pos)}", _FMT)
        pos += 1
        rel2par, text, leaf, span = "", None, None, None
        children: List[_Node] = []
        while pos < len(tokens) and tokens[pos].text != ")":
            if tokens[pos].text == "(" and pos + 1 < len(tokens) and tokens[pos + 1].text in DIS_KINDS:
                children.append(node())
                continue
            field_at = pos
            expect("(", f"(a field or a child of the {kind} opened at {src.where(at)})")
            field = tokens[pos].text if pos < len(tokens) else ""
            pos += 1
            values: List[Tuple[str, int]] = []
            while pos < len(tokens) and tokens[pos].text not in "()":
                values.append((tokens[pos].text, pos))
                pos += 1
            expect(")", f"to close ({field} ...")
            if field == "leaf":
                leaf = _number(src, field_at, values, field, 1)[0]
            elif field == "span":
                span = _number(src, field_at, values, field, 2)
            elif field == "rel2par":
                rel2par = " ".join(v for v, _ in values)
            elif field == "text":
                edu = tokens[values[0][1]].edu if len(values) == 1 else None
                if edu is None:
                    raise src.error(field_at, "EDU text must be written _!text_! (or _!text!_), got "
                                    f"{src.got(values[0][1]) if values else 'nothing'}", _FMT)
                text = edu.replace("<P>", " ")
            else:
                raise src.error(field_at, f"unknown field {field!r} (expected span, leaf, rel2par or text)", _FMT)
        if pos >= len(tokens):
            raise src.error(at, f"the {kind} opened here is never closed: missing ')' (a partial tree?)", _FMT)
        pos += 1
        if leaf is not None:
            if children or text is None:
                raise src.error(at, "a (leaf ...) node has a (text _!..._!) and no children", _FMT)
            if next_leaf is not None and leaf != next_leaf:
                raise src.error(at, f"leaf {leaf} where leaf {next_leaf} comes next (a partial tree?)", _FMT)
            next_leaf = leaf + 1
            return _Node(kind, rel2par, DiscourseTree.edu(text), at)
        if span is None:
            raise src.error(at, "a node needs (span a b) or (leaf k)", _FMT)
        if len(children) < 2:
            raise src.error(at, f"the node (span {span[0]} {span[1]}) has {len(children)} child"
                            f"{'ren' if len(children) != 1 else ''}; a span needs two or more (a partial tree?)", _FMT)
        if next_leaf is None or span != (first, next_leaf - 1):
            raise src.error(at, f"(span {span[0]} {span[1]}) but the leaves under it are {first}-"
                            f"{(next_leaf or 1) - 1} (a partial tree?)", _FMT)
        return _Node(kind, rel2par, _relation_node(src, children), at)

    # the first leaf number is the root span's start (a fragment may start past 1)
    if len(tokens) > 3 and tokens[2].text == "(" and tokens[3].text in ("span", "leaf") and len(tokens) > 4 \
            and tokens[4].text.isdigit():
        next_leaf = int(tokens[4].text)
    root = node()
    if root.kind != "Root":
        raise src.error(0, f"the tree must open with ( Root, got ( {root.kind}", _FMT)
    if pos != len(tokens):
        raise src.error(pos, f"text after the end of the tree: {src.got(pos)}", _FMT)
    return root.tree


def _relation_node(src: Source, children: List[_Node]) -> DiscourseTree:
    nuclei = [k for k, c in enumerate(children) if c.kind == "Nucleus"]
    if not nuclei:
        raise src.error(children[0].at, "a span's children are all satellites: one must be a Nucleus", _FMT)
    for c in children:
        if c.kind == "Root":
            raise src.error(c.at, "Root inside the tree: only the first node is the Root", _FMT)
    satellites = [c for c in children if c.kind == "Satellite"]
    named = satellites or children
    relations = [c.rel2par for c in named if c.rel2par and c.rel2par.lower() != "span"]
    if not relations:
        raise src.error(children[0].at, "no rel2par names the relation of this span's children", _FMT)
    if len(nuclei) == 1 and len({coarse_relation(c.rel2par) for c in satellites}) > 1:
        k = nuclei[0]
        tree = children[k].tree
        for sat in children[k + 1:]:
            tree = DiscourseTree(_named(src, sat), [tree, sat.tree], ("N", "S"))
        for sat in reversed(children[:k]):
            tree = DiscourseTree(_named(src, sat), [sat.tree, tree], ("S", "N"))
        return tree
    nuclearity = tuple("N" if c.kind == "Nucleus" else "S" for c in children)
    return DiscourseTree(coarse_relation(relations[0]), [c.tree for c in children], nuclearity)


def _named(src: Source, sat: _Node) -> str:
    if not sat.rel2par or sat.rel2par.lower() == "span":
        raise src.error(sat.at, "a Satellite needs a (rel2par relation)", _FMT)
    return coarse_relation(sat.rel2par)


def to_dis(tree: Optional[DiscourseTree]) -> str:
    """The RST-DT ``.dis`` form (one node per line, EDU text written ``_!text_!``); ``""``
    for no tree."""
    if tree is None:
        return ""
    lines: List[str] = []
    counter = [0]

    def rec(t: DiscourseTree, kind: str, rel2par: str, depth: int) -> None:
        pad = "  " * depth
        rel = f" (rel2par {rel2par})" if rel2par else ""
        if t.is_edu():
            counter[0] += 1
            lines.append(f"{pad}( {kind} (leaf {counter[0]}){rel} (text _!{check_edu_text(t.text)}_!) )")
            return
        first = counter[0] + 1
        lines.append(f"{pad}( {kind} (span {first} {first + len(t.edus()) - 1}){rel}")
        multi = "S" not in t.nuclearity
        relation = "-".join(t.relation.split())
        for child, nuc in zip(t.children, t.nuclearity):
            child_rel = relation if (nuc == "S" or multi) else "span"
            rec(child, "Nucleus" if nuc == "N" else "Satellite", child_rel, depth + 1)
        lines.append(f"{pad})")

    rec(tree, "Root", "", 0)
    return "\n".join(lines)

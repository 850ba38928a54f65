"""Reading and writing RST trees as text: the bracketed format of Feng & Hirst's and similar
parsers (see :mod:`nlgmetrics.discourse`)."""
from __future__ import annotations

import re
from typing import Optional

from .tree import DiscourseTree

_RST_TOKENS = re.compile(r"_!.*?!_|\(|\)|[^\s()]+", re.DOTALL)
_RST_LABEL = re.compile(r"^([^\[\]\s]+)((?:\[[NS]\])+)$")


def to_rst(tree: Optional[DiscourseTree]) -> str:
    """The bracketed RST form; ``""`` for no tree (an empty text)."""
    if tree is None:
        return ""
    if tree.is_edu():
        return f"_!{tree.text}!_"
    label = tree.relation + "".join(f"[{n}]" for n in tree.nuclearity)
    return "(" + " ".join([label] + [to_rst(c) for c in tree.children]) + ")"


def from_rst(text: str) -> Optional[DiscourseTree]:
    """Read a bracketed RST tree (see the module doc); ``None`` for blank input. Raises
    ``ValueError`` naming the problem on malformed input."""
    tokens = _RST_TOKENS.findall(text)
    if not tokens:
        return None
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
        match = _RST_LABEL.match(tokens[pos])
        if not match:
            raise ValueError(f"expected a label like Elaboration[N][S] at token {pos}, got {tokens[pos]!r}")
        pos += 1
        nuclearity = tuple(match.group(2)[1::3])
        children = []
        while pos < len(tokens) and tokens[pos] != ")":
            children.append(parse())
        if pos >= len(tokens):
            raise ValueError("unbalanced brackets in RST tree: missing ')'")
        pos += 1
        if len(children) != len(nuclearity):
            raise ValueError(f"{match.group(0)} has {len(nuclearity)} nuclearity marks but {len(children)} children")
        return DiscourseTree(match.group(1), children, nuclearity)

    tree = parse()
    if pos != len(tokens):
        raise ValueError(f"trailing text after the RST tree at token {pos}")
    return tree


def looks_like_rst(text: str) -> bool:
    """True for text in the bracketed RST format (starts with '(' or '_!' and has an EDU)."""
    stripped = text.lstrip()
    return stripped.startswith(("(", "_!")) and "_!" in stripped and "!_" in stripped

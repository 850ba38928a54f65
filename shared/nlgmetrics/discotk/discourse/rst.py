"""Reading and writing RST trees as text: the bracketed format, the shared tokenizer (with
line and column of every token), auto-detection and the size check.

- The **bracketed** format of Feng & Hirst's and similar parsers:
  ``(Elaboration[N][S] _!first unit!_ _!second unit!_)``; a label may have several words
  (``(Elaboration additional[N][S] ...)``).
- RST-DT's **.dis** format, as RST-DT, CODRA, the Feng-Hirst parser and educe write it (read
  and written by :mod:`.dis`)::

      ( Root (span 1 2)
        ( Nucleus (leaf 1) (rel2par span) (text _!The company said_!) )
        ( Satellite (leaf 2) (rel2par elaboration-additional) (text _!it would grow.<P>_!) ) )

EDU text is written ``_!text_!`` (RST-DT's form) or ``_!text!_``: it runs to the first ``_!``
or ``!_`` followed by a bracket, another EDU or the end. Relation names are mapped to the
coarse classes of :mod:`.relations` on reading. Every error is one ``ValueError`` naming the
line and column where the problem is. Trees nested more than :data:`MAX_DEPTH` (400) relation
nodes deep are refused. :func:`from_rst` reads both formats; :func:`to_rst` and
:func:`~.dis.to_dis` write them, and reading what they write gives the same tree.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple

from nlgmetrics.core.budget import TOKENS
from nlgmetrics.discotk.discourse.relations import coarse_relation
from nlgmetrics.discotk.discourse.source import DIS_KINDS, EDU_RE, Source, check_edu_text
from nlgmetrics.discotk.discourse.tree import DiscourseTree

_MARKS = re.compile(r"((?:\[[NS]\])+)$")
#: the opening of a .dis tree: ( Root (span 1 9) or ( Root (leaf 1)
_DIS_START = re.compile(r"\s*\(\s*Root\s*\(\s*(?:span|leaf)\b")
#: the opening of a bracketed tree: (Relation words[N][S]
_BRACKETED_START = re.compile(r"\s*\(\s*[^\s()_!][^()]*?(?:\[[NS]\])+\s*(?:\(|_!)")
#: deepest RST tree read (nested relation nodes): the reader and everything that walks a
#: discourse tree recurse once per level, so a deeper tree would exhaust Python's stack
MAX_DEPTH = 400


def _nesting(src: Source, dis: bool) -> int:
    """How many relation nodes nest at most (for ``.dis``, only brackets opening a node count,
    and its EDUs are nodes too: one level below the deepest relation)."""
    depth = top = 0
    opened: List[bool] = []
    tokens = src.tokens
    for i, tok in enumerate(tokens):
        if tok.text == "(":
            is_node = not dis or (i + 1 < len(tokens) and tokens[i + 1].text in DIS_KINDS)
            opened.append(is_node)
            depth += is_node
            top = max(top, depth)
        elif tok.text == ")" and opened:
            depth -= opened.pop()
    return max(top - 1, 0) if dis else top


def to_rst(tree: Optional[DiscourseTree]) -> str:
    """The bracketed RST form; ``""`` for no tree (an empty text)."""
    if tree is None:
        return ""
    if tree.is_edu():
        text = check_edu_text(tree.text)
        return f"_!{text}_!" if text.endswith("_") else f"_!{text}!_"  # text_ + !_ would read as _!
    label = tree.relation + "".join(f"[{n}]" for n in tree.nuclearity)
    return "(" + " ".join([label] + [to_rst(c) for c in tree.children]) + ")"


def from_rst(text: str) -> Optional[DiscourseTree]:
    """Read a bracketed or ``.dis`` RST tree (see the module doc); ``None`` for blank input.
    Raises one ``ValueError`` naming the line and column of the problem on malformed or
    partial input, and on a tree nested more than :data:`MAX_DEPTH` relation nodes deep."""
    # long: the bracketed format's recursive-descent reader; its nested steps share the token position
    src = Source(text)
    tokens = src.tokens
    if not tokens:
        return None
    dis = len(tokens) > 1 and tokens[0].text == "(" and tokens[1].text in DIS_KINDS
    depth = _nesting(src, dis)
    if depth > MAX_DEPTH:
        raise ValueError(f"RST tree nested {depth} relation nodes deep; at most {MAX_DEPTH} are supported")
    if dis:
        from nlgmetrics.discotk.discourse.dis import read_dis

        return read_dis(src)
    pos = 0

    def parse() -> DiscourseTree:
        nonlocal pos
        if pos >= len(tokens):
            raise src.error(pos, "the tree ends early: missing ')'")
        tok = tokens[pos]
        pos += 1
        if tok.edu is not None:
            return DiscourseTree.edu(tok.edu)
        if tok.text.startswith("_!"):
            if len(tok.text) > 3 and tok.text.endswith(("!_", "_!")):  # closed, but text follows it
                raise src.error(pos, f"expected '(', ')' or an EDU after an EDU, got {src.got(pos)}")
            raise src.error(pos - 1, f"an EDU that is not closed, {src.got(pos - 1)}: EDUs are written _!text!_")
        if tok.text != "(":
            raise src.error(pos - 1, f"expected '(' or an EDU _!...!_, got {src.got(pos - 1)}")
        start, words = pos, []
        while pos < len(tokens) and tokens[pos].text not in "()" and tokens[pos].edu is None \
                and not tokens[pos].text.startswith("_!"):
            words.append(tokens[pos].text)
            pos += 1
            if _MARKS.search(words[-1]):
                break
        marks = _MARKS.search(words[-1]) if words else None
        label = " ".join(words)
        name = label[:len(label) - len(marks.group(1))] if marks else ""
        if marks is None or not name.strip():
            got = repr(label) if label else src.got(start)
            raise src.error(start, f"expected a label like Elaboration[N][S], got {got}")
        nuclearity = tuple(marks.group(1)[1::3])
        children = []
        while pos < len(tokens) and tokens[pos].text != ")":
            children.append(parse())
        if pos >= len(tokens):
            raise src.error(start - 1, "this '(' is never closed: missing ')'")
        pos += 1
        if len(children) != len(nuclearity):
            raise src.error(start, f"{label} has {len(nuclearity)} nuclearity marks but {len(children)} children")
        try:
            return DiscourseTree(coarse_relation(name), children, nuclearity)
        except ValueError as err:
            raise src.error(start, str(err)) from None

    tree = parse()
    if pos != len(tokens):
        raise src.error(pos, f"text after the end of the tree: {src.got(pos)}")
    return tree


def looks_like_rst(text: str) -> bool:
    """Whether ``input_format="auto"`` reads ``text`` as an RST tree: a ``.dis`` tree
    (``( Root (span ...``) or a bracketed one (``(Relation[N][S] ...``) by its opening (it
    must then parse: a partial tree is an error, not a text), or a text that opens with an
    EDU ``_!...`` and parses as one."""
    if _DIS_START.match(text) or _BRACKETED_START.match(text):
        return True
    if not text.lstrip().startswith("_!"):
        return False
    try:
        from_rst(text)
    except ValueError:
        return False
    return True


def rst_size(text: str) -> Tuple[int, int]:
    """``(EDUs, tokens)`` of an RST tree's text without reading the tree (linear time): its
    EDUs (``_!...!_`` or ``_!..._!``) and the word runs and punctuation marks inside them,
    the units the kernels' leaves are built from."""
    edus = tokens = 0
    for match in EDU_RE.finditer(text):
        edus += 1
        tokens += sum(1 for _ in TOKENS.finditer(match.group(1)))
    return edus, tokens


def to_dis(tree: Optional[DiscourseTree]) -> str:
    """The RST-DT ``.dis`` form (see :func:`.dis.to_dis`)."""
    from nlgmetrics.discotk.discourse.dis import to_dis as write

    return write(tree)

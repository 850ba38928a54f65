"""One ordered, labelled tree type for dependency trees (RoMe's TED) and discourse trees
(DiscoTK's kernels), with a bracketed text form: ``(label child child ...)``; a leaf is a bare
token. Labels may not contain spaces or parentheses (they are escaped as ``-LRB-``/``-RRB-``/``_``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, List, Tuple

_ESCAPES = {"(": "-LRB-", ")": "-RRB-"}


def escape_label(label: str) -> str:
    out = str(label)
    for raw, esc in _ESCAPES.items():
        out = out.replace(raw, esc)
    return "_".join(out.split()) or "_"


@dataclass
class Tree:
    label: str
    children: List["Tree"] = field(default_factory=list)

    # -- structure ---------------------------------------------------------------------
    def is_leaf(self) -> bool:
        return not self.children

    def is_preterminal(self) -> bool:
        """A node whose children are all leaves (the kernel's base case)."""
        return bool(self.children) and all(c.is_leaf() for c in self.children)

    def production(self) -> Tuple[str, ...]:
        """Label followed by the children's labels (the CFG rule at this node)."""
        return (self.label,) + tuple(c.label for c in self.children)

    def postorder(self) -> Iterator["Tree"]:
        for c in self.children:
            yield from c.postorder()
        yield self

    def preorder(self) -> Iterator["Tree"]:
        yield self
        for c in self.children:
            yield from c.preorder()

    def __len__(self) -> int:
        return sum(1 for _ in self.preorder())

    def leaves(self) -> List[str]:
        return [n.label for n in self.preorder() if n.is_leaf()]

    # -- text form ---------------------------------------------------------------------
    def to_bracketed(self) -> str:
        if self.is_leaf():
            return escape_label(self.label)
        return "(" + " ".join([escape_label(self.label)] + [c.to_bracketed() for c in self.children]) + ")"

    __str__ = to_bracketed

    @classmethod
    def from_bracketed(cls, text: str) -> "Tree":
        """Parse ``(A (B x y) z)``; raises ``ValueError`` with the position on bad input."""
        tokens = text.replace("(", " ( ").replace(")", " ) ").split()
        if not tokens:
            raise ValueError("empty bracketed tree")
        pos = 0

        def parse() -> Tree:
            nonlocal pos
            tok = tokens[pos]
            if tok == ")":
                raise ValueError(f"unexpected ')' at token {pos}")
            if tok != "(":
                pos += 1
                return Tree(tok)
            pos += 1
            if pos >= len(tokens) or tokens[pos] in "()":
                raise ValueError(f"missing label after '(' at token {pos}")
            node = Tree(tokens[pos])
            pos += 1
            while pos < len(tokens) and tokens[pos] != ")":
                node.children.append(parse())
            if pos >= len(tokens):
                raise ValueError("unbalanced brackets: missing ')'")
            pos += 1
            return node

        tree = parse()
        if pos != len(tokens):
            raise ValueError(f"trailing text after the tree at token {pos}")
        return tree

"""Text drawing of a tree, one node per line (as in the metric card)."""
from __future__ import annotations

from nlgmetrics.core.trees import Tree


def draw(tree: Tree) -> str:
    """An indented drawing of a tree (one node per line), as used in the metric card."""
    lines = [tree.label]

    def rec(node: Tree, prefix: str) -> None:
        for k, child in enumerate(node.children):
            last = k == len(node.children) - 1
            lines.append(prefix + ("└── " if last else "├── ") + child.label)
            rec(child, prefix + ("    " if last else "│   "))

    rec(tree, "")
    return "\n".join(lines)

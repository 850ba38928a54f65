"""Zhang-Shasha tree edit distance between two ordered labelled trees (:class:`Tree`).

Edit operations: delete a node (its children move up to its parent), insert a node, and
substitute (relabel) a node. Insert and delete costs are constants; the substitution cost is
pluggable, because RoMe's TED-SE treats two words as equal when their embeddings are close:

- ``None``: 0 when the labels are equal, else 1 (the classic unit-cost distance);
- a callable ``cost(a, b)`` on two :class:`Tree` nodes;
- a matrix ``cost[i][j]`` indexed by the nodes' positions in post-order (``tree.postorder()``),
  which is the fast path when the costs come from a similarity matrix.

Zhang, K. and Shasha, D. (1989). Simple fast algorithms for the editing distance between
trees and related problems. SIAM J. Comput. 18(6).
"""
from __future__ import annotations

from typing import Callable, List, Sequence, Tuple, Union

import numpy as np

from nlgmetrics.core.trees import Tree

SubstitutionCost = Union[None, Callable[[Tree, Tree], float], Sequence[Sequence[float]], np.ndarray]


def _postorder_with_leftmost(tree: Tree) -> Tuple[List[Tree], List[int]]:
    """Nodes in post-order and, for each, the post-order index of its leftmost leaf.
    Iterative, so deep trees do not hit the recursion limit."""
    nodes: List[Tree] = []
    leftmost: List[int] = []
    # stack entries: node, next child to visit, post-order index of its first child
    stack: List[List] = [[tree, 0, -1]]
    while stack:
        entry = stack[-1]
        node, child = entry[0], entry[1]
        if child < len(node.children):
            entry[1] += 1
            stack.append([node.children[child], 0, -1])
            continue
        stack.pop()
        index = len(nodes)
        nodes.append(node)
        leftmost.append(leftmost[entry[2]] if node.children else index)
        if stack and stack[-1][2] < 0:
            stack[-1][2] = index
    return nodes, leftmost


def _keyroots(leftmost: List[int]) -> List[int]:
    """Nodes that have a left sibling, plus the root: the highest node for each leftmost leaf."""
    highest = {}
    for index, leaf in enumerate(leftmost):
        highest[leaf] = index
    return sorted(highest.values())


def _cost_matrix(nodes1: List[Tree], nodes2: List[Tree], cost: SubstitutionCost) -> List[List[float]]:
    if cost is None:
        return [[0.0 if a.label == b.label else 1.0 for b in nodes2] for a in nodes1]
    if callable(cost):
        return [[float(cost(a, b)) for b in nodes2] for a in nodes1]
    matrix = np.asarray(cost, dtype=float)
    if matrix.shape != (len(nodes1), len(nodes2)):
        raise ValueError(f"substitution cost matrix has shape {matrix.shape}, expected "
                         f"{(len(nodes1), len(nodes2))} (nodes in post-order)")
    return matrix.tolist()


def ted_work(tree: Tree) -> int:
    """The work :func:`tree_edit_distance` does for ``tree`` on one side: the sizes of its
    keyroots' subtrees summed; a pair fills ``ted_work(a) * ted_work(b)`` cells (linear time).

    >>> ted_work(Tree("a", [Tree("b"), Tree("c"), Tree("d")]))
    6
    """
    _, leftmost = _postorder_with_leftmost(tree)
    return sum(k - leftmost[k] + 1 for k in _keyroots(leftmost))


def tree_edit_distance(tree1: Tree, tree2: Tree, substitution: SubstitutionCost = None, *,
                       insert_cost: float = 1.0, delete_cost: float = 1.0) -> float:
    """Minimum total cost of deletions, insertions and substitutions turning ``tree1`` into
    ``tree2`` (Zhang-Shasha, O(|T1| |T2| min(depth, leaves)^2) time)."""
    nodes1, left1 = _postorder_with_leftmost(tree1)
    nodes2, left2 = _postorder_with_leftmost(tree2)
    sub = _cost_matrix(nodes1, nodes2, substitution)
    n1, n2 = len(nodes1), len(nodes2)
    treedist = [[0.0] * n2 for _ in range(n1)]
    for k1 in _keyroots(left1):
        l1 = left1[k1]
        rows = k1 - l1 + 2
        for k2 in _keyroots(left2):
            l2 = left2[k2]
            cols = k2 - l2 + 2
            forest = [[0.0] * cols for _ in range(rows)]
            for x in range(1, rows):
                forest[x][0] = forest[x - 1][0] + delete_cost
            for y in range(1, cols):
                forest[0][y] = forest[0][y - 1] + insert_cost
            for x in range(1, rows):
                a = l1 + x - 1
                la = left1[a]
                prev, cur = forest[x - 1], forest[x]
                sub_a, tree_a = sub[a], treedist[a]
                for y in range(1, cols):
                    b = l2 + y - 1
                    best = min(prev[y] + delete_cost, cur[y - 1] + insert_cost)
                    if la == l1 and left2[b] == l2:
                        value = min(best, prev[y - 1] + sub_a[b])
                        cur[y] = value
                        tree_a[b] = value
                    else:
                        cur[y] = min(best, forest[la - l1][left2[b] - l2] + tree_a[b])
    return float(treedist[n1 - 1][n2 - 1])

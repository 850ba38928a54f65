"""Subset-tree (SST) kernel of Collins & Duffy with Moschitti's decay, over :class:`Tree`.

K(T1, T2) = sum over pairs of internal nodes (n1, n2) of Delta(n1, n2), where
Delta = 0 when the productions at n1 and n2 differ, and otherwise
Delta = lambda * prod_j (1 + Delta(child_j(n1), child_j(n2)))
(a leaf child contributes Delta = 0, so matching pre-terminals give Delta = lambda).
K counts the subset trees (fragments whose nodes keep all or none of their children) the two
trees share, each weighted by lambda ** (number of its internal nodes).

**Fast evaluation** (Moschitti 2006, "Making tree kernels practical for natural language
learning"): each tree is *compiled* once (its internal nodes in postorder with their productions
and heights); a kernel groups each tree's nodes by production, each group sorted by node height,
and merges the two trees' production lists, so only node pairs
with equal productions are ever visited. The dynamic program runs over those pairs a block at a
time (numpy): for a production shared by both trees, the Delta values of its node pairs form
one matrix, filled by level (a pair's children have lower heights on both sides, so pairs whose
lower height is h only need pairs below h). Groups of pre-terminals (all children leaves, as
the word nodes ``(w *)`` of the lexical representations) have Delta = lambda for every pair and
are counted, not enumerated: the work is linear in the words, however often a word repeats.
Each Delta is the same product, in the same order, as the recursive definition, and K is the
correctly rounded sum of all Deltas (``math.fsum``; a count of equal Deltas is added as exact
powers of two), so K does not depend on the order pairs are visited in.

Normalisation (``K(a, b) / sqrt(K(a, a) K(b, b))``) switches to the log domain whenever a
kernel or the product of the self-kernels overflows a float, or that product underflows
(below the smallest normal float, as with a decay of 1e-200).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from nlgmetrics.core.trees import Tree

DEFAULT_LAMBDA = 0.4
#: the smallest normal float: below it a product of self-kernels has lost precision (or is 0)
_TINY = sys.float_info.min
#: a node's label followed by its children's labels
Production = Tuple[str, ...]


@dataclass(frozen=True)
class Group:
    """The nodes of one production in one tree, sorted by height: ``heights``, and per node and
    child position the child's production number (``-1`` for a leaf child) and its place in
    that production's group (``kid_pid``, ``kid_slot``, shape nodes x arity). ``uniform[j]`` is
    the production number every node's child ``j`` has, or ``-2`` when they differ; ``leafy``
    when every child is a leaf (a pre-terminal group: Delta = lambda for each pair)."""

    heights: np.ndarray
    kid_pid: np.ndarray
    kid_slot: np.ndarray
    uniform: Tuple[int, ...]
    leafy: bool


@dataclass(frozen=True)
class CompiledTree:
    """A tree ready for kernel evaluation: its internal nodes in postorder.

    ``productions[i]`` is node i's production (label and children's labels); ``children[i]``
    holds, per child of node i, the child's index among the internal nodes or -1 for a leaf
    child; ``heights[i]`` node i's height. The index by production (:func:`by_production`) and
    the per-production arrays the kernel works on (:func:`groups_of`) are built per evaluation,
    not kept: a cached analysis holds the compact tuples only (the arrays took three times its
    memory, the index as much again as the tuples: issue 44)."""

    productions: Tuple[Production, ...]
    children: Tuple[Tuple[int, ...], ...]
    heights: Tuple[int, ...]

    def __len__(self) -> int:
        return len(self.productions)


def compile_tree(tree: Tree, shared: Optional[Dict[Any, Any]] = None) -> CompiledTree:
    """The internal nodes of ``tree`` in postorder, with their productions, children and
    heights. Equal productions, labels and children tuples share one object, across the trees
    compiled with the same ``shared`` dict too (the representations of one text)."""
    productions: List[Production] = []
    children: List[Tuple[int, ...]] = []
    heights: List[int] = []
    index: Dict[int, int] = {}
    same: Dict[Any, Any] = {} if shared is None else shared
    stack: List[Tuple[Tree, bool]] = [(tree, False)]
    while stack:  # iterative postorder, children left to right
        node, expanded = stack.pop()
        if not node.children:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children))
            continue
        kids = tuple(index[id(c)] if c.children else -1 for c in node.children)
        children.append(same.setdefault(kids, kids))
        heights.append(1 + max((heights[k] for k in kids if k >= 0), default=0))
        index[id(node)] = len(productions)
        production = tuple(same.setdefault(label, label) for label in (node.label, *(c.label for c in node.children)))
        productions.append(same.setdefault(production, production))
    return CompiledTree(tuple(productions), tuple(children), tuple(heights))


def by_production(tree: CompiledTree) -> Dict[Production, Tuple[int, ...]]:
    """Each production of ``tree`` (in the order of its first node) and its nodes, sorted by
    height; a production's place in this order is its number."""
    members: Dict[Production, List[int]] = {}
    for i, p in enumerate(tree.productions):
        members.setdefault(p, []).append(i)
    heights = tree.heights
    return {p: tuple(sorted(v, key=lambda i: heights[i])) for p, v in members.items()}


def groups_of(tree: CompiledTree, index: Optional[Dict[Production, Tuple[int, ...]]] = None) -> Tuple[Group, ...]:
    """The :class:`Group` of each production of ``tree``, in the order of ``index``
    (:func:`by_production`, computed when not given)."""
    productions, children, heights = tree.productions, tree.children, tree.heights
    index = by_production(tree) if index is None else index
    pid = {p: k for k, p in enumerate(index)}
    slot = [0] * len(productions)
    for nodes in index.values():
        for s, i in enumerate(nodes):
            slot[i] = s
    groups = []
    for p, nodes in index.items():
        kid_pid = np.array([[pid[productions[k]] if k >= 0 else -1 for k in children[i]] for i in nodes],
                           dtype=np.int64).reshape(len(nodes), len(p) - 1)
        kid_slot = np.array([[slot[k] if k >= 0 else 0 for k in children[i]] for i in nodes],
                            dtype=np.int64).reshape(len(nodes), len(p) - 1)
        uniform = tuple(int(col[0]) if (col == col[0]).all() else -2 for col in kid_pid.T)
        groups.append(Group(np.array([heights[i] for i in nodes], dtype=np.int64), kid_pid, kid_slot, uniform,
                            bool((kid_pid < 0).all())))
    return tuple(groups)


def _as_compiled(tree: "TreeLike") -> CompiledTree:
    return tree if isinstance(tree, CompiledTree) else compile_tree(tree)


def _check_decay(lam: float) -> None:
    if not 0.0 < lam <= 1.0:
        raise ValueError(f"the decay lambda must be in (0, 1], got {lam}")


def _deltas(a: CompiledTree, b: CompiledTree, lam: float, log: bool
            ) -> Tuple[List[Tuple[float, int]], List[np.ndarray]]:
    """The Deltas of all node pairs with equal productions: ``(value, count)`` for the
    pre-terminal groups, a matrix per other shared production (log Deltas when ``log``)."""
    index_a = by_production(a)
    index_b = by_production(b) if b is not a else index_a
    pid_b = {p: k for k, p in enumerate(index_b)}
    shared = [(i, pid_b[p]) for i, p in enumerate(index_a) if p in pid_b]
    groups_a = groups_of(a, index_a)
    groups_b = groups_of(b, index_b) if b is not a else groups_a
    to_b = np.full(len(groups_a) + 1, -3, dtype=np.int64)  # a's production number -> b's (-3: none)
    for i, j in shared:
        to_b[i] = j
    start = math.log(lam) if log else lam
    const: Dict[int, float] = {}  # a's production -> the Delta of each pair (pre-terminal groups)
    counts: List[Tuple[float, int]] = []
    matrices: Dict[int, np.ndarray] = {}
    tasks: List[Tuple[int, int, int]] = []
    for i, j in shared:
        ga, gb = groups_a[i], groups_b[j]
        if ga.leafy and gb.leafy:
            const[i] = start
            counts.append((start, len(ga.heights) * len(gb.heights)))
            continue
        matrices[i] = np.zeros((len(ga.heights), len(gb.heights)))
        tasks.extend((int(h), i, j) for h in np.union1d(ga.heights, gb.heights))
    tasks.sort()

    def factor(q: int, sa: np.ndarray, sb: np.ndarray) -> Union[float, np.ndarray]:
        d = const[q] if q in const else matrices[q][np.ix_(sa, sb)]
        return np.logaddexp(0.0, d) if log else 1.0 + d

    def block(i: int, j: int, ra: slice, cb: slice) -> None:
        ga, gb = groups_a[i], groups_b[j]
        value = np.full((ra.stop - ra.start, cb.stop - cb.start), start)
        for k, (ua, ub) in enumerate(zip(ga.uniform, gb.uniform)):
            if ua >= 0 and ub >= 0:  # every node has the same child production here, on both sides
                if to_b[ua] == ub:
                    f = factor(ua, ga.kid_slot[ra, k], gb.kid_slot[cb, k])
                    value = value + f if log else value * f
                continue
            pa, pb = to_b[ga.kid_pid[ra, k]], gb.kid_pid[cb, k]
            pa = np.where(ga.kid_pid[ra, k] >= 0, pa, -3)
            for q_b in np.intersect1d(pa, pb[pb >= 0]):
                rows, cols = np.nonzero(pa == q_b)[0], np.nonzero(pb == q_b)[0]
                q = int(ga.kid_pid[ra, k][rows[0]])
                f = factor(q, ga.kid_slot[ra, k][rows], gb.kid_slot[cb, k][cols])
                sub = np.ix_(rows, cols)
                value[sub] = value[sub] + f if log else value[sub] * f
        matrices[i][ra, cb] = value

    with np.errstate(over="ignore"):  # an overflowing Delta is inf, as in float arithmetic
        for h, i, j in tasks:
            _level(groups_a, groups_b, h, i, j, block)
    return counts, list(matrices.values())


def _level(groups_a: Tuple[Group, ...], groups_b: Tuple[Group, ...], h: int, i: int, j: int,
           block: Callable[..., None]) -> None:
    """The pairs of production groups ``i`` (of a) and ``j`` (of b) whose lower height is h:
    (h, >= h) and (> h, h)."""
    ha, hb = groups_a[i].heights, groups_b[j].heights
    a0, a1 = int(np.searchsorted(ha, h)), int(np.searchsorted(ha, h, "right"))
    b0, b1 = int(np.searchsorted(hb, h)), int(np.searchsorted(hb, h, "right"))
    if a0 < a1 and b0 < len(hb):
        block(i, j, slice(a0, a1), slice(b0, len(hb)))
    if a1 < len(ha) and b0 < b1:
        block(i, j, slice(a1, len(ha)), slice(b0, b1))


def _exact_multiple(value: float, count: int) -> List[float]:
    """``value * count`` as floats whose exact sum it is: ``value * 2**k`` per bit of count."""
    return [math.ldexp(value, k) for k in range(count.bit_length()) if count >> k & 1]


def sst_kernel(a: "TreeLike", b: "TreeLike", lam: float = DEFAULT_LAMBDA) -> float:
    """K(a, b) for two trees (:class:`Tree` or :class:`CompiledTree`), decay ``lam`` in (0, 1]:
    the correctly rounded sum of the Deltas of all node pairs."""
    _check_decay(lam)
    counts, matrices = _deltas(_as_compiled(a), _as_compiled(b), lam, log=False)
    terms: List[float] = [t for v, n in counts for t in _exact_multiple(v, n)]
    for m in matrices:  # every entry is a node pair's Delta (each pair of the group is filled)
        terms.extend(m.ravel().tolist())
    return math.fsum(terms)


def log_sst_kernel(a: "TreeLike", b: "TreeLike", lam: float = DEFAULT_LAMBDA) -> float:
    """log K(a, b) computed in the log domain (``-inf`` when K = 0): the same dynamic program
    as :func:`sst_kernel`, for trees whose kernel overflows a float (a flat node with
    thousands of children has K ~ lam * (1 + lam) ** n)."""
    _check_decay(lam)
    counts, matrices = _deltas(_as_compiled(a), _as_compiled(b), lam, log=True)
    logs = [v + math.log(n) for v, n in counts]
    arrays = [m.ravel() for m in matrices if m.size]
    if not logs and not arrays:
        return float("-inf")
    top = max(logs + [float(x.max()) for x in arrays])
    total = math.fsum([math.exp(v - top) for v in logs] + [float(np.exp(x - top).sum()) for x in arrays])
    return top + math.log(total)


def normalized_kernel(a: "TreeLike", b: "TreeLike", lam: float = DEFAULT_LAMBDA, *, self_a: Optional[float] = None,
                      self_b: Optional[float] = None) -> float:
    """K(a, b) / sqrt(K(a, a) K(b, b)) in [0, 1]. Pass precomputed self-kernels to avoid
    recomputing them. A tree with no internal node (a bare leaf) has self-kernel 0: two such
    trees give 1.0, one of them against any other tree 0.0."""
    a, b = _as_compiled(a), _as_compiled(b)
    kaa = sst_kernel(a, a, lam) if self_a is None else self_a
    kbb = sst_kernel(b, b, lam) if self_b is None else self_b
    if kaa <= 0.0 or kbb <= 0.0:
        return 1.0 if kaa <= 0.0 and kbb <= 0.0 else 0.0
    kab = sst_kernel(a, b, lam)
    if kab <= 0.0:
        return 0.0
    product = kaa * kbb
    if math.isinf(kaa) or math.isinf(kbb) or math.isinf(kab) or math.isinf(product) or product < _TINY:
        # overflow of a kernel or of the product, or underflow of the product (a decay such as
        # 1e-200 makes it subnormal or 0): exp(log kab - (log kaa + log kbb) / 2), with the
        # kernels that are not normal floats recomputed in the log domain
        log_ab = log_sst_kernel(a, b, lam) if not _TINY <= kab < math.inf else math.log(kab)
        log_aa = log_sst_kernel(a, a, lam) if not _TINY <= kaa < math.inf else math.log(kaa)
        log_bb = log_sst_kernel(b, b, lam) if not _TINY <= kbb < math.inf else math.log(kbb)
        return min(1.0, math.exp(log_ab - 0.5 * (log_aa + log_bb)))
    return min(1.0, kab / math.sqrt(product))


#: a tree as given or already compiled
TreeLike = Union[Tree, CompiledTree]

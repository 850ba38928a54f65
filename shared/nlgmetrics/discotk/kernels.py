"""Subset-tree (SST) kernel of Collins & Duffy with Moschitti's decay, over :class:`Tree`.

K(T1, T2) = sum over pairs of internal nodes (n1, n2) of Delta(n1, n2), where
Delta = 0 when the productions at n1 and n2 differ, and otherwise
Delta = lambda * prod_j (1 + Delta(child_j(n1), child_j(n2)))
(a leaf child contributes Delta = 0, so matching pre-terminals give Delta = lambda).
K counts the subset trees (fragments whose nodes keep all or none of their children) the two
trees share, each weighted by lambda ** (number of its internal nodes).

Trees are first *compiled* (nodes in postorder, an index from production to nodes); a compiled
tree is reused for every pair it takes part in, and only node pairs with equal productions are
ever visited. Productions are kept as tuples of labels inside each compiled tree: there is no
process-wide table, so memory is held only as long as the compiled trees themselves.

Normalisation (``K(a, b) / sqrt(K(a, a) K(b, b))``) switches to the log domain whenever a
kernel or the product of the self-kernels overflows a float, or that product underflows
(below the smallest normal float, as with a decay of 1e-200).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, Union

from nlgmetrics.core.trees import Tree

DEFAULT_LAMBDA = 0.4
#: the smallest normal float: below it a product of self-kernels has lost precision (or is 0)
_TINY = sys.float_info.min
#: a node's label followed by its children's labels
Production = Tuple[str, ...]

@dataclass(frozen=True)
class CompiledTree:
    """A tree ready for kernel evaluation: its internal nodes in postorder.

    ``children[i]`` holds, per child of node i, the child's index among the internal nodes
    or -1 for a leaf child; ``by_production`` maps a production (label and children's labels)
    to the nodes that have it.
    """

    productions: Tuple[Production, ...]
    children: Tuple[Tuple[int, ...], ...]
    by_production: Dict[Production, Tuple[int, ...]]

    def __len__(self) -> int:
        return len(self.productions)


def compile_tree(tree: Tree) -> CompiledTree:
    """Index the internal nodes of ``tree`` (postorder) by production."""
    productions: List[Production] = []
    children: List[Tuple[int, ...]] = []
    index: Dict[int, int] = {}
    stack: List[Tuple[Tree, bool]] = [(tree, False)]
    while stack:  # iterative postorder, children left to right
        node, expanded = stack.pop()
        if not node.children:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children))
            continue
        children.append(tuple(index[id(c)] if c.children else -1 for c in node.children))
        index[id(node)] = len(productions)
        productions.append((node.label,) + tuple(c.label for c in node.children))
    groups: Dict[Production, List[int]] = {}
    for i, p in enumerate(productions):
        groups.setdefault(p, []).append(i)
    return CompiledTree(tuple(productions), tuple(children), {p: tuple(v) for p, v in groups.items()})


def _as_compiled(tree: "TreeLike") -> CompiledTree:
    return tree if isinstance(tree, CompiledTree) else compile_tree(tree)


def sst_kernel(a: "TreeLike", b: "TreeLike", lam: float = DEFAULT_LAMBDA) -> float:
    """K(a, b) for two trees (:class:`Tree` or :class:`CompiledTree`), decay ``lam`` in (0, 1]."""
    if not 0.0 < lam <= 1.0:
        raise ValueError(f"the decay lambda must be in (0, 1], got {lam}")
    a, b = _as_compiled(a), _as_compiled(b)
    if len(a) > len(b):  # iterate over the smaller tree's nodes
        a, b = b, a
    delta: Dict[Tuple[int, int], float] = {}
    total = 0.0
    b_index, b_children = b.by_production, b.children
    # postorder: the children of node i are visited before i, so their deltas are known
    for i, prod in enumerate(a.productions):
        matches = b_index.get(prod)
        if not matches:
            continue
        kids = a.children[i]
        for j in matches:
            value = lam
            for x, y in zip(kids, b_children[j]):
                if x >= 0 and y >= 0:
                    d = delta.get((x, y))
                    if d:
                        value *= 1.0 + d
            delta[(i, j)] = value
            total += value
    return total


def log_sst_kernel(a: "TreeLike", b: "TreeLike", lam: float = DEFAULT_LAMBDA) -> float:
    """log K(a, b) computed in the log domain (``-inf`` when K = 0): the same dynamic program
    as :func:`sst_kernel`, for trees whose kernel overflows a float (a flat node with
    thousands of children has K ~ lam * (1 + lam) ** n)."""
    if not 0.0 < lam <= 1.0:
        raise ValueError(f"the decay lambda must be in (0, 1], got {lam}")
    a, b = _as_compiled(a), _as_compiled(b)
    log_lam = math.log(lam)
    log_delta: Dict[Tuple[int, int], float] = {}
    terms: List[float] = []
    for i, prod in enumerate(a.productions):
        for j in b.by_production.get(prod, ()):
            value = log_lam
            for x, y in zip(a.children[i], b.children[j]):
                d = log_delta.get((x, y)) if x >= 0 and y >= 0 else None
                if d is not None:
                    value += d + math.log1p(math.exp(-d)) if d > 0 else math.log1p(math.exp(d))
            log_delta[(i, j)] = value
            terms.append(value)
    if not terms:
        return float("-inf")
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


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

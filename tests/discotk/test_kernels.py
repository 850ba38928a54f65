"""Subset-tree kernel: parity with brute-force enumeration of common subset trees, the
normalised form, and hand-computed values."""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from typing import List, Tuple

import pytest

from nlgmetrics.core.trees import Tree
from nlgmetrics.discotk.kernels import compile_tree, log_sst_kernel, normalized_kernel, sst_kernel


def fragments(node: Tree) -> List[Tuple[str, int]]:
    """Every subset tree rooted at ``node`` (each node keeps all or none of its children) as
    (bracketed string, number of internal nodes)."""
    options = []
    for child in node.children:
        opts = [(child.label, 0)]
        if not child.is_leaf():
            opts += fragments(child)
        options.append(opts)
    return [("(" + " ".join([node.label] + [s for s, _ in combo]) + ")", 1 + sum(k for _, k in combo))
            for combo in itertools.product(*options)]


def brute_force(a: Tree, b: Tree, lam: float) -> float:
    def bag(tree: Tree) -> Counter:
        return Counter(f for n in tree.preorder() if not n.is_leaf() for f in fragments(n))

    fa, fb = bag(a), bag(b)
    return sum(fa[f] * fb[f] * lam ** f[1] for f in fa.keys() & fb.keys())


def random_tree(rng: random.Random, depth: int) -> Tree:
    if depth == 0 or rng.random() < 0.25:
        return Tree(rng.choice("ab"))
    return Tree(rng.choice("ABC"), [random_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))])


def test_hand_computed_values():
    pre = Tree.from_bracketed("(A b)")
    assert sst_kernel(pre, pre, 0.4) == pytest.approx(0.4)
    t = Tree.from_bracketed("(S (A a) (B b))")
    # (A a), (B b), (S A B), (S (A a) B), (S A (B b)), (S (A a) (B b))
    assert sst_kernel(t, t, 1.0) == pytest.approx(6)
    assert sst_kernel(t, t, 0.5) == pytest.approx(0.5 + 0.5 + 0.5 * 1.5 * 1.5)
    u = Tree.from_bracketed("(S (A a) (B c))")
    assert sst_kernel(t, u, 1.0) == pytest.approx(3)  # (A a), (S A B), (S (A a) B)


@pytest.mark.parametrize("lam", [0.4, 1.0, 0.1])
def test_equals_brute_force_on_random_trees(lam):
    rng = random.Random(7)
    for _ in range(120):
        a, b = random_tree(rng, 4), random_tree(rng, 4)
        assert sst_kernel(a, b, lam) == pytest.approx(brute_force(a, b, lam), rel=1e-9, abs=1e-12)
        assert sst_kernel(a, b, lam) == pytest.approx(sst_kernel(b, a, lam))


def test_equals_brute_force_on_a_discourse_representation():
    a = Tree.from_bracketed("(ROOT (Elaboration:Root (EDU:Nucleus (the *) (cat *)) (EDU:Satellite (sat *))))")
    b = Tree.from_bracketed("(ROOT (Elaboration:Root (EDU:Nucleus (a *) (cat *)) (EDU:Satellite (sat *))))")
    assert sst_kernel(a, b) == pytest.approx(brute_force(a, b, 0.4))


def test_normalised_kernel_of_a_tree_with_itself_is_one():
    rng = random.Random(3)
    for _ in range(50):
        t = random_tree(rng, 4)
        assert normalized_kernel(t, t) == pytest.approx(1.0)
    assert normalized_kernel(Tree("ROOT"), Tree("ROOT")) == 1.0  # no internal node


def test_normalised_kernel_range_and_precomputed_self_kernels():
    a = Tree.from_bracketed("(S (A a) (B b) (C c))")
    b = Tree.from_bracketed("(S (A a) (B x) (C c))")
    ca, cb = compile_tree(a), compile_tree(b)
    value = normalized_kernel(ca, cb, 0.4)
    expected = sst_kernel(a, b) / math.sqrt(sst_kernel(a, a) * sst_kernel(b, b))
    assert 0 < value < 1 and value == pytest.approx(expected)
    assert normalized_kernel(ca, cb, 0.4, self_a=sst_kernel(a, a), self_b=sst_kernel(b, b)) == pytest.approx(value)
    assert normalized_kernel(a, Tree("ROOT")) == 0.0


def test_decay_must_be_in_range():
    t = Tree.from_bracketed("(A b)")
    for bad in (0.0, -1.0, 1.5):
        with pytest.raises(ValueError):
            sst_kernel(t, t, bad)


def test_log_domain_kernel_and_overflow():
    rng = random.Random(11)
    for _ in range(30):
        a, b = random_tree(rng, 4), random_tree(rng, 4)
        k = sst_kernel(a, b, 0.4)
        assert log_sst_kernel(a, b, 0.4) == (pytest.approx(math.log(k)) if k > 0 else float("-inf"))
    # a flat node with 3000 word children: K(t, t) ~ 0.4 * 1.4 ** 3000 overflows a float
    words = [f"w{i}" for i in range(3000)]
    t = Tree("EDU", [Tree(w, [Tree("*")]) for w in words])
    u = Tree("EDU", [Tree(w, [Tree("*")]) for w in words[:-1] + ["other"]])
    assert math.isinf(sst_kernel(t, t))
    assert normalized_kernel(t, t) == pytest.approx(1.0)
    value = normalized_kernel(t, u)
    # no common EDU production: only the 2999 shared pre-terminals (0.4 each) remain
    expected = math.exp(math.log(2999 * 0.4) - log_sst_kernel(t, t, 0.4))
    assert math.isfinite(value) and value == pytest.approx(expected) and value < 1e-100


@pytest.mark.parametrize("lam", [1e-200, 1e-320, 5e-324])
def test_normalized_kernel_survives_an_underflowing_decay(lam):
    # a = (S (A x) (B y)), b = (S (A x) (B z)): K(a, b) = 2 lam + lam^2 and
    # K(a, a) = K(b, b) = 3 lam + 2 lam^2 + lam^3, so the normalised kernel tends to 2/3;
    # K(a, a) K(b, b) underflows (to 0 for these decays), which used to divide by zero
    a = Tree("S", [Tree("A", [Tree("x")]), Tree("B", [Tree("y")])])
    b = Tree("S", [Tree("A", [Tree("x")]), Tree("B", [Tree("z")])])
    assert sst_kernel(a, a, lam) * sst_kernel(b, b, lam) == 0.0
    assert normalized_kernel(a, b, lam) == pytest.approx(2 / 3, rel=1e-12)
    assert normalized_kernel(a, a, lam) == pytest.approx(1.0, rel=1e-12)
    # ordinary decays keep the plain quotient, bit for bit
    assert normalized_kernel(a, b, 0.4) == (2 * 0.4 + 0.4 ** 2) / math.sqrt((3 * 0.4 + 2 * 0.16 + 0.4 ** 3) ** 2)
    assert normalized_kernel(a, b, 1e-150) == sst_kernel(a, b, 1e-150) / math.sqrt(sst_kernel(a, a, 1e-150) ** 2)


# -- the fast kernel (production groups, numpy blocks) against the recursive definition ----------
def recursive_kernel(a: Tree, b: Tree, lam: float) -> float:
    """Collins & Duffy's kernel straight from its definition: Delta of every pair of internal
    nodes, recursively, summed with math.fsum (the correctly rounded sum)."""
    memo: dict = {}

    def production(n: Tree) -> tuple:
        return (n.label,) + tuple(c.label for c in n.children)

    def delta(x: Tree, y: Tree) -> float:
        key = (id(x), id(y))
        if key not in memo:
            value = 0.0
            if production(x) == production(y):
                value = lam
                for cx, cy in zip(x.children, y.children):
                    if cx.children and cy.children:
                        d = delta(cx, cy)
                        if d:
                            value *= 1.0 + d
            memo[key] = value
        return memo[key]

    inner_a = [n for n in a.preorder() if n.children]
    inner_b = [n for n in b.preorder() if n.children]
    return math.fsum(delta(x, y) for x in inner_a for y in inner_b)


def _trees(labels: str, leaves: str, depth: int):
    from hypothesis import strategies as st

    leaf = st.sampled_from(leaves).map(Tree)
    return st.recursive(leaf, lambda kids: st.builds(Tree, st.sampled_from(labels), st.lists(kids, min_size=1,
                                                                                              max_size=3)),
                        max_leaves=depth)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(_trees("ABW", "ab*", 30), _trees("ABW", "ab*", 30), st.sampled_from([0.4, 1.0, 0.1, 0.77, 1e-200]))
def test_fast_kernel_equals_the_recursive_definition_exactly(a, b, lam):
    # few labels, so productions repeat at many heights (chains, nodes whose child is a leaf in
    # one tree and a subtree in the other): every path of the block dynamic program is taken
    assert sst_kernel(a, b, lam) == recursive_kernel(a, b, lam)
    assert sst_kernel(b, a, lam) == sst_kernel(a, b, lam)
    k = recursive_kernel(a, b, lam)
    if k > 0 and lam > 1e-100:
        assert log_sst_kernel(a, b, lam) == pytest.approx(math.log(k), rel=1e-12, abs=1e-12)


def test_repeated_words_are_counted_not_enumerated():
    # 3000 equal pre-terminals on each side: 9 million pairs of Delta = lam, summed exactly
    t = Tree("EDU", [Tree("x", [Tree("*")]) for _ in range(3000)])
    u = Tree("S", [Tree("x", [Tree("*")]) for _ in range(3000)])
    assert sst_kernel(t, u, 0.4) == math.fsum([0.4] * 9_000_000)

"""RoMe's building blocks without models: the transport problem, the hard alignment, the
Zhang-Shasha tree edit distance (against a brute-force recursion) and TED-SE's node equality."""
from __future__ import annotations

import functools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.core.lexical import wordnet_antonyms, wordnet_common_word, wordnet_related_forms
from nlgmetrics.core.trees import Tree
from nlgmetrics.rome import (
    FUNCTION_WORD_WEIGHT,
    DependencyTree,
    ScorerNetwork,
    antonym_mask,
    content_weights,
    earth_movers_distance,
    emd_similarity,
    hard_alignment,
    name_flags,
    name_mask,
    preprocess,
    relative_position_gap,
    ted_se,
    tfidf_weights,
    transport_distance,
)
from nlgmetrics.rome.tree_edit import tree_edit_distance


# -- F_EMD ---------------------------------------------------------------------------------
def test_preprocess_lowercases_and_strips_punctuation():
    assert preprocess("Hello, World! It's 4154411100. ok?") == ["hello", "world", "it", "s", "4154411100", "ok"]
    assert preprocess("...!") == []
    assert preprocess("Ça va 🙂") == ["ça", "va", "🙂"]


def test_tfidf_weights_hand_computed():
    w = tfidf_weights(["a", "b", "b"], ["a", "c"])
    raw = np.array([math.log10(2), (1 + math.log10(2)) * math.log10(3), (1 + math.log10(2)) * math.log10(3)])
    assert np.allclose(w, raw / raw.sum())
    assert tfidf_weights([], ["a"]).shape == (0,)


def test_transport_value_equals_pot_emd():
    import ot

    rng = np.random.default_rng(0)
    for m, n in [(1, 1), (3, 5), (6, 4), (7, 7)]:
        a, b = rng.random(m), rng.random(n)
        a, b = a / a.sum(), b / b.sum()
        cos = rng.uniform(-0.2, 1.0, size=(m, n))
        dist = transport_distance(cos, hard_alignment(cos), 0.07)
        expected = float((ot.emd(a, b, dist) * dist).sum())
        assert earth_movers_distance(dist, a, b) == pytest.approx(expected, abs=1e-12)
        # with normalised weights and a one-to-one alignment the optimum has a closed form
        closed = 1.0 - sum(min(a[i], b[j]) * (1 - dist[i, j]) for i, j in hard_alignment(cos))
        assert expected == pytest.approx(closed, abs=1e-9)


def test_transport_toy_cases_by_hand():
    assert earth_movers_distance(np.array([[0.2, 1.0], [1.0, 0.4]]), [0.5, 0.5], [0.5, 0.5]) == pytest.approx(0.3)
    assert earth_movers_distance(np.array([[0.1], [1.0]]), [0.5, 0.5], [1.0]) == pytest.approx(0.55)


def test_emd_similarity_hand_computed():
    hyp = np.array([[1.0, 0.0], [0.0, 1.0]])
    # cos(h2, r2) = 0.6 is not above the 0.60 threshold: only a-a is aligned
    ref = np.array([[1.0, 0.0], [0.8, 0.6]])
    f, pairs = emd_similarity(["a", "b"], ["a", "c"], hyp, ref)
    share_a = math.log10(2) / (math.log10(2) + math.log10(3))
    assert pairs == [(0, 0)]
    assert f == pytest.approx(share_a)
    # cos(h2, r2) = 0.8: aligned, d = 1 - 0.8 (no soft penalty when m = n)
    f, pairs = emd_similarity(["a", "b"], ["a", "c"], hyp, np.array([[1.0, 0.0], [0.6, 0.8]]))
    assert pairs == [(0, 0), (1, 1)]
    assert f == pytest.approx(1 - (1 - share_a) * 0.2)


def test_emd_unaligned_cosine_hand_computed():
    # the 2x2 case above: cos = [[1, 0.8], [0, 0.6]]; only a-a is aligned (cost 0). With
    # emd_unaligned="cosine" the other pairs cost 1 - cos: d = [[0, 0.2], [1, 0.4]]. Weights
    # (p, q) on both sides, p = share of "a"; flows x = f_aa, f_ac = f_ba = p - x, f_bc = q - p + x
    # cost 0.2 (p - x) + (p - x) + 0.4 (q - p + x) = 0.8 p + 0.4 q - 0.8 x, least at x = p
    hyp, ref = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.8, 0.6]])
    share_a = math.log10(2) / (math.log10(2) + math.log10(3))
    cos = hyp @ ref.T
    assert transport_distance(cos, [(0, 0)], 0.07, "cosine") == pytest.approx(np.array([[0.0, 0.2], [1.0, 0.4]]))
    f, pairs = emd_similarity(["a", "b"], ["a", "c"], hyp, ref, unaligned="cosine")
    assert pairs == [(0, 0)]
    assert f == pytest.approx(1 - 0.4 * (1 - share_a))
    f_one, _ = emd_similarity(["a", "b"], ["a", "c"], hyp, ref, unaligned="one")
    assert f_one == pytest.approx(share_a) and f > f_one
    # negative cosines cost 1 (clipped), aligned pairs keep their soft-penalised cost
    d = transport_distance(np.array([[-0.5, 0.9], [0.3, 0.7]]), [(1, 1)], 0.07, "cosine")
    assert d == pytest.approx(np.array([[1.0, 0.1], [0.7, 0.3]]))
    with pytest.raises(ValueError):
        transport_distance(cos, [], 0.07, "zero")


def test_emd_antonyms_hand_computed():
    # "small garden" vs "large garden": small-large cos 0.8, garden-garden 1, the rest 0.
    # Content weights 1/2 each. Off: small-large aligned at cost 1 - 0.8 = 0.2 (equal lengths:
    # no position penalty), EMD 0.1. wordnet: small-large get cosine 0, so they are not aligned
    # and small moves at cost 1 wherever it goes, EMD 0.5.
    hyp = np.array([[0.8, 0.6, 0.0], [0.0, 0.0, 1.0]])
    ref = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    words_h, words_r = ["small", "garden"], ["large", "garden"]
    f_off, pairs_off = emd_similarity(words_h, words_r, hyp, ref, unaligned="cosine", weights="content")
    f_ant, pairs_ant = emd_similarity(words_h, words_r, hyp, ref, unaligned="cosine", weights="content",
                                      antonyms="wordnet")
    assert (f_off, pairs_off) == (pytest.approx(0.9), [(0, 0), (1, 1)])
    assert (f_ant, pairs_ant) == (pytest.approx(0.5), [(1, 1)])
    # a synonym is not touched; the rule is symmetric and looks through inflection
    f_syn, _ = emd_similarity(["big", "garden"], words_r, hyp, ref, unaligned="cosine", weights="content",
                              antonyms="wordnet")
    assert f_syn == pytest.approx(0.9)
    assert antonym_mask(["larger", "cheap", "the"], ["smaller", "expensive", "the"]).tolist() == [
        [True, False, False], [False, True, False], [False, False, False]]
    assert antonym_mask([], ["a"]).shape == (0, 1)
    with pytest.raises(ValueError, match="antonym"):
        emd_similarity(words_h, words_r, hyp, ref, antonyms="lexicon")


def test_emd_names_hand_computed():
    # "Paris garden" vs "London garden" with the vectors of the antonym case above: Paris-London
    # cos 0.8. Off: aligned at cost 0.2, F_EMD 0.9. capitalised: both are names and differ, so
    # cosine 0, not aligned, cost 1 for Paris's half of the mass: F_EMD 0.5.
    hyp = np.array([[0.8, 0.6, 0.0], [0.0, 0.0, 1.0]])
    ref = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    text_h, text_r = "Visit the Paris garden.", "Visit the London garden."
    words_h, words_r = preprocess(text_h)[2:], preprocess(text_r)[2:]
    names_h, names_r = name_flags(text_h)[2:], name_flags(text_r)[2:]
    assert (words_h, names_h, names_r) == (["paris", "garden"], [True, False], [True, False])
    options = {"unaligned": "cosine", "weights": "content", "hyp_names": names_h, "ref_names": names_r}
    assert emd_similarity(words_h, words_r, hyp, ref, **options) == (pytest.approx(0.9), [(0, 0), (1, 1)])
    assert emd_similarity(words_h, words_r, hyp, ref, names="capitalised", **options) == (
        pytest.approx(0.5), [(1, 1)])
    # the same name (any case) and a name against a common word are left to the encoder
    assert name_mask(["paris", "paris", "city"], ["paris", "london"], [True, True, False], [True, True]).tolist() == [
        [False, True], [False, True], [False, False]]
    # two forms of one name by WordNet (a demonym and its place) are not two names
    assert name_mask(["japanese", "swedish"], ["japan", "norway"], [True, True], [True, True]).tolist() == [
        [False, True], [True, True]]
    with pytest.raises(ValueError, match="name flags"):
        emd_similarity(words_h, words_r, hyp, ref, names="capitalised")
    with pytest.raises(ValueError, match="name rule"):
        emd_similarity(words_h, words_r, hyp, ref, names="ner", **options)


@pytest.mark.parametrize("text, flags", [
    ("Paris is the capital of France.", [True, False, False, False, False, True]),
    # a common word starting a sentence is no name; a name is one there too
    ("Cats sleep. Berlin sleeps! London never does", [False, False, False, False, True, False, False]),
    ("The Eagle serves Italian food near Café Rouge", [False, True, False, True, False, False, True, True]),
    ("the BBC and CNN reported it", [False, True, False, True, False, False]),
    # casing that says nothing: ALL CAPS, Title Case; no case at all; function words
    ("THE FOOD AT THE EAGLE IS GREAT", [False] * 7),
    ("Man Bites Dog In Park", [False] * 5),
    ("東京は日本の首都です", [False]),
    ("I think It is fine", [False, False, False, False, False]),
    ("", []),
    ("Paris 🗼 is lovely", [True, False, False, False]),
])
def test_name_flags(text, flags):
    assert name_flags(text) == flags
    assert len(name_flags(text)) == len(preprocess(text))


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.text(max_size=60), st.text(alphabet="PpLlAa. !?É", max_size=30))
def test_name_flags_any_text(text, other):
    """One flag per F_EMD word for any text, and the name mask is the same pair set read from
    either side."""
    flags, words = name_flags(text), preprocess(text)
    assert len(flags) == len(words) and all(isinstance(f, bool) for f in flags)
    oflags, owords = name_flags(other), preprocess(other)
    assert (name_mask(words, owords, flags, oflags) == name_mask(owords, words, oflags, flags).T).all()


def test_wordnet_common_word():
    assert wordnet_common_word("cats") and wordnet_common_word("China") and wordnet_common_word("running")
    assert not wordnet_common_word("Paris") and not wordnet_common_word("Zorblax") and not wordnet_common_word("東京")


def test_wordnet_related_forms():
    assert "japan" in wordnet_related_forms("Japanese") and "netherlands" in wordnet_related_forms("dutch")
    assert {"great", "britain"} <= wordnet_related_forms("british")
    assert "norway" not in wordnet_related_forms("swedish") and wordnet_related_forms("東京") == frozenset()


def test_wordnet_antonyms_direct_and_indirect():
    assert {"small", "little"} <= wordnet_antonyms("large")  # direct
    assert "tiny" in wordnet_antonyms("large")  # a satellite of the antonym "small"
    assert "cold" in wordnet_antonyms("scorching")  # a satellite's head "hot" has the antonym
    assert "big" not in wordnet_antonyms("large") and "large" not in wordnet_antonyms("large")
    assert wordnet_antonyms("table") == frozenset() and wordnet_antonyms("東京") == frozenset()


def test_content_weights_hand_computed():
    words = ["the", "cat", "sat", "on", "the", "mat"]
    fw = FUNCTION_WORD_WEIGHT
    raw = np.array([(1 + math.log10(2)) * fw, 1, 1, fw, (1 + math.log10(2)) * fw, 1])
    assert np.allclose(content_weights(words, ["a", "dog"]), raw / raw.sum())
    assert np.allclose(content_weights(words), content_weights(words, words))  # the other side does not matter
    assert content_weights(["the", "cat"]) == pytest.approx([fw / (1 + fw), 1 / (1 + fw)])
    assert content_weights(["not", "a", "cat"]).tolist()[0] == pytest.approx(1 / (2 + fw))  # negation is content
    assert content_weights([]).shape == (0,)
    assert content_weights(["the", "cat"], function_weight=0.5) == pytest.approx([1 / 3, 2 / 3])
    assert content_weights(["the", "cat"], function_weight=1.0) == pytest.approx([0.5, 0.5])
    # "the"-"the" (cos 1) and "cat"-"dog" (cos 0.8) aligned: EMD = w(cat) * 0.2 on both weightings
    hyp, ref = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.6, 0.8]])
    f, pairs = emd_similarity(["the", "cat"], ["the", "dog"], hyp, ref, weights="content")
    assert pairs == [(0, 0), (1, 1)]
    assert f == pytest.approx(1 - 0.2 / (1 + fw))
    f_tfidf, _ = emd_similarity(["the", "cat"], ["the", "dog"], hyp, ref, weights="tfidf")
    assert f_tfidf == pytest.approx(1 - 0.2 * math.log10(3) / (math.log10(2) + math.log10(3)))
    with pytest.raises(ValueError):
        emd_similarity(["the"], ["the"], hyp[:1], ref[:1], weights="idf")


def test_soft_penalty_vanishes_for_equal_lengths_only():
    cos = np.full((3, 3), 0.9)
    pairs = [(0, 2), (1, 1), (2, 0)]
    assert np.allclose(transport_distance(cos, pairs, 0.07)[tuple(np.array(pairs).T)], 0.1)
    cos = np.full((2, 4), 0.9)
    d = transport_distance(cos, [(0, 3)], 0.07)
    gap = relative_position_gap(2, 4)[0, 3]
    assert d[0, 3] == pytest.approx(1 - 0.9 * math.exp(-0.07 * (2 * 2 / 6) * gap))
    assert d[1].tolist() == [1.0] * 4 and d[0, :3].tolist() == [1.0] * 3


def _one_hot(words, vocabulary):
    return np.array([[1.0 if w == v else 0.0 for v in vocabulary] for w in words])


def test_passive_of_equal_length_scores_as_the_active_form_with_lexical_vectors():
    # with word-identity vectors the alignment is exact; the soft penalty then vanishes for
    # equal lengths, so the passive order scores exactly what the same words score in the
    # reference's (active) order, and an unequal length costs only the small soft penalty
    ref = ["the", "critics", "have", "praised", "the", "novel"]
    passive = ["the", "novel", "was", "praised", "by", "critics"]
    active = ["the", "critics", "praised", "novel", "was", "by"]
    vocab = sorted(set(ref + active + passive + ["by"]))
    f_active, _ = emd_similarity(active, ref, _one_hot(active, vocab), _one_hot(ref, vocab))
    f_passive, pairs = emd_similarity(passive, ref, _one_hot(passive, vocab), _one_hot(ref, vocab))
    assert sorted((passive[i], ref[j]) for i, j in pairs) == [
        ("critics", "critics"), ("novel", "novel"), ("praised", "praised"), ("the", "the")]
    shorter = passive[:-1]  # m != n: moved words pay exp(-gamma * 2|m-n|/(m+n) * gap)
    f_short, _ = emd_similarity(shorter, ref, _one_hot(shorter, vocab), _one_hot(ref, vocab), gamma=0.07)
    f_short0, _ = emd_similarity(shorter, ref, _one_hot(shorter, vocab), _one_hot(ref, vocab), gamma=0.0)
    assert f_passive == pytest.approx(f_active)
    assert f_short < f_short0 < f_short + 0.01


def test_thresholded_rule_looks_past_nearer_dissimilar_words():
    # word 0's partner (cos 0.9) sits half a sentence away: 0.9 * 0.5 = 0.45 loses to the
    # dissimilar word in place (0.5 * 1), which the threshold then refuses
    cos = np.array([[0.5, 0.9], [0.2, 0.3]])
    assert hard_alignment(cos) == []
    assert hard_alignment(cos, rule="thresholded") == [(0, 1)]
    with pytest.raises(ValueError):
        hard_alignment(cos, rule="greedy")


def test_emd_similarity_empty_sides():
    assert emd_similarity([], ["a"], np.zeros((0, 2)), np.ones((1, 2))) == (0.0, [])
    assert emd_similarity(["a"], [], np.ones((1, 2)), np.zeros((0, 2))) == (0.0, [])


# -- hard alignment -------------------------------------------------------------------------
@pytest.mark.parametrize("rule", ["argmax", "thresholded"])
def test_alignment_is_one_to_one_and_respects_threshold(rule):
    rng = np.random.default_rng(1)
    for _ in range(200):
        m, n = rng.integers(1, 9, size=2)
        cos = rng.uniform(0.3, 1.0, size=(m, n))
        pairs = hard_alignment(cos, 0.60, rule)
        rows, cols = [i for i, _ in pairs], [j for _, j in pairs]
        assert len(set(rows)) == len(rows) and len(set(cols)) == len(cols)
        assert all(cos[i, j] > 0.60 for i, j in pairs)
        score = cos * (1 - relative_position_gap(m, n))
        if rule == "argmax":
            assert all(j == int(np.argmax(score[i])) for i, j in pairs)


def test_alignment_threshold_is_strict_and_repeats_are_refused():
    assert hard_alignment(np.array([[0.60]])) == []
    assert hard_alignment(np.array([[0.61]])) == [(0, 0)]
    # a repeated hypothesis word wants the same reference word: only the first gets it
    assert hard_alignment(np.array([[0.95], [0.95], [0.95]])) == [(0, 0)]


# -- tree edit distance ----------------------------------------------------------------------
def _random_tree(rng: random.Random, size: int, labels: str) -> Tree:
    nodes = [Tree(rng.choice(labels))]
    for _ in range(size - 1):
        parent = rng.choice(nodes)
        child = Tree(rng.choice(labels))
        parent.children.insert(rng.randint(0, len(parent.children)), child)
        nodes.append(child)
    return nodes[0]


def _frozen(tree: Tree, counter: list) -> tuple:
    """(postorder id, children) with ids assigned in post-order."""
    kids = tuple(_frozen(c, counter) for c in tree.children)
    counter[0] += 1
    return (counter[0] - 1, kids)


def brute_force_ted(t1: Tree, t2: Tree, cost) -> float:
    """The textbook forest recursion (rightmost roots), memoised; independent of Zhang-Shasha."""
    f1, f2 = _frozen(t1, [0]), _frozen(t2, [0])

    @functools.cache
    def fd(a: tuple, b: tuple) -> float:
        if not a and not b:
            return 0.0
        if not b:
            return fd(a[:-1] + a[-1][1], ()) + 1
        if not a:
            return fd((), b[:-1] + b[-1][1]) + 1
        v, w = a[-1], b[-1]
        return min(fd(a[:-1] + v[1], b) + 1, fd(a, b[:-1] + w[1]) + 1,
                   fd(v[1], w[1]) + fd(a[:-1], b[:-1]) + cost[v[0]][w[0]])

    return fd((f1,), (f2,))


def test_zhang_shasha_classic_example():
    a = Tree.from_bracketed("(f (d a (c b)) e)")
    b = Tree.from_bracketed("(f (c (d a b)) e)")
    assert tree_edit_distance(a, b) == 2.0
    assert tree_edit_distance(a, a) == 0.0
    assert tree_edit_distance(Tree("x"), b) == 6.0


@pytest.mark.parametrize("seed", range(6))
def test_zhang_shasha_equals_brute_force(seed):
    rng = random.Random(seed)
    for _ in range(15):
        t1 = _random_tree(rng, rng.randint(1, 7), "abc")
        t2 = _random_tree(rng, rng.randint(1, 7), "abc")
        n1, n2 = list(t1.postorder()), list(t2.postorder())
        unit = [[0.0 if x.label == y.label else 1.0 for y in n2] for x in n1]
        assert tree_edit_distance(t1, t2) == brute_force_ted(t1, t2, unit)
        weighted = [[rng.choice([0.0, 0.5, 1.0]) for _ in n2] for _ in n1]
        assert tree_edit_distance(t1, t2, np.array(weighted)) == pytest.approx(brute_force_ted(t1, t2, weighted))
        assert tree_edit_distance(t1, t2, lambda x, y: 0.0 if x.label == y.label else 1.0) == brute_force_ted(t1, t2, unit)


def test_zhang_shasha_deep_tree_has_no_recursion_limit():
    chain = Tree("a")
    node = chain
    for _ in range(3000):
        node.children.append(Tree("a"))
        node = node.children[0]
    assert tree_edit_distance(chain, Tree("a")) == 3000.0


def test_cost_matrix_shape_is_checked():
    with pytest.raises(ValueError, match="post-order"):
        tree_edit_distance(Tree("a", [Tree("b")]), Tree("a"), np.zeros((1, 1)))


# -- TED-SE -----------------------------------------------------------------------------------
def _dep(lemmas, heads) -> DependencyTree:
    """A DependencyTree from lemmas and head indices (-1 = root), like dependency_tree builds."""
    from nlgmetrics.core.linguistic import Parsed, Token
    from nlgmetrics.rome import dependency_tree

    tokens = [Token(w, w, "NOUN", "NN", h, "dep", 0) for w, h in zip(lemmas, heads)]
    return dependency_tree(Parsed(" ".join(lemmas), tokens, "test", [range(len(tokens))]))


def _unit(*angles):
    return np.array([[math.cos(a), math.sin(a)] for a in angles])


def test_ted_se_synonyms_cost_nothing_above_threshold():
    hyp, ref = _dep(["house", "big"], [-1, 0]), _dep(["house", "large"], [-1, 0])
    same = 0.0
    for cos_big_large, expected in [(0.70, 0.0), (0.65, 0.0), (0.60, 1.0)]:
        hv = _unit(same, math.acos(cos_big_large))
        rv = _unit(same, 0.0)
        norm, raw = ted_se(hyp, ref, hv, rv, delta=0.65)
        assert raw == expected
        assert norm == pytest.approx(expected / 2)


def test_ted_se_equals_brute_force_with_semantic_costs():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n1, n2 = rng.integers(1, 6, size=2)
        heads1 = [-1] + [int(rng.integers(0, i)) for i in range(1, n1)]
        heads2 = [-1] + [int(rng.integers(0, i)) for i in range(1, n2)]
        hyp = _dep([f"w{rng.integers(0, 4)}" for _ in range(n1)], heads1)
        ref = _dep([f"w{rng.integers(0, 4)}" for _ in range(n2)], heads2)
        hv, rv = rng.normal(size=(n1, 3)), rng.normal(size=(n2, 3))
        cos = (hv / np.linalg.norm(hv, axis=1, keepdims=True)) @ (rv / np.linalg.norm(rv, axis=1, keepdims=True)).T
        # post-order cost: the roots match, words cost 0 when equal or similar enough
        cost = []
        for a in hyp.postorder_rows:
            row = []
            for b in ref.postorder_rows:
                if a < 0 or b < 0:
                    row.append(0.0 if a < 0 and b < 0 else 1.0)
                else:
                    row.append(0.0 if hyp.lemmas[a] == ref.lemmas[b] or cos[a, b] >= 0.65 else 1.0)
            cost.append(row)
        norm, raw = ted_se(hyp, ref, hv, rv)
        assert raw == brute_force_ted(hyp.tree, ref.tree, cost)
        assert norm == pytest.approx(min(raw / max(n1, n2), 1.0))


def test_ted_se_ranges_and_normalizations():
    empty = _dep([], [])
    one = _dep(["word"], [-1])
    assert ted_se(empty, empty, np.zeros((0, 2)), np.zeros((0, 2))) == (0.0, 0.0)
    assert ted_se(empty, one, np.zeros((0, 2)), np.ones((1, 2))) == (1.0, 1.0)
    chain = _dep(list("abcd"), [-1, 0, 1, 2])
    star = _dep(list("efgh"), [-1, -1, -1, -1])
    zeros = np.zeros((4, 2))
    zeros[:, 0] = 1
    far = np.zeros((4, 2))
    far[:, 1] = 1
    # a chain cannot map onto a star beyond one node: 1 substitution, 3 deletions, 3 insertions,
    # more than the larger tree, so the max-normalised distance is clipped at 1
    norm, raw = ted_se(chain, star, zeros, far)
    assert raw == 7.0 and norm == 1.0
    assert ted_se(chain, star, zeros, far, normalization="sum")[0] == pytest.approx(7 / 8)
    with pytest.raises(ValueError):
        ted_se(chain, star, zeros, far, normalization="min")


def test_dependency_tree_drops_punctuation_and_keeps_dependents():
    from nlgmetrics.core.linguistic import Parsed, Token
    from nlgmetrics.rome import dependency_tree

    toks = [Token("Cats", "cat", "NOUN", "NNS", 1, "nsubj", 0), Token("sleep", "sleep", "VERB", "VBP", -1, "root", 0),
            Token(",", ",", "PUNCT", ",", 1, "punct", 0), Token("yes", "yes", "INTJ", "UH", 2, "dep", 0),
            Token(".", ".", "PUNCT", ".", 1, "punct", 0)]
    tree = dependency_tree(Parsed("Cats sleep , yes .", toks, "test", [range(5)]))
    assert tree.tree.to_bracketed() == "(<root> (sleep cat yes))"
    assert tree.lemmas == ["cat", "sleep", "yes"]
    assert tree.size == 3
    cut = dependency_tree(Parsed("Cats sleep , yes .", toks, "test", [range(5)]), max_words=1)
    assert cut.tree.to_bracketed() == "(<root> cat)"
    assert cut.cut and not tree.cut  # punctuation does not count: three words fit max_words=3
    assert not dependency_tree(Parsed("Cats sleep , yes .", toks, "test", [range(5)]), max_words=3).cut


def _copula(*words):
    """A spaCy-style parse of "X is the Y of Z" given as (text, lemma, upos, head, deprel) rows."""
    from nlgmetrics.core.linguistic import Parsed, Token

    toks = [Token(w, lem, upos, "XX", head, rel, 0) for w, lem, upos, head, rel in words]
    return Parsed(" ".join(w[0] for w in words), toks, "test", [range(len(toks))])


def test_copula_arguments_are_ordered_by_lemma():
    from nlgmetrics.rome import dependency_tree

    # "Paris is the capital of France": nsubj Paris, attr capital (-> of -> France) under "is"
    active = _copula(("Paris", "paris", "PROPN", 1, "nsubj"), ("is", "be", "AUX", -1, "root"),
                     ("the", "the", "DET", 3, "det"), ("capital", "capital", "NOUN", 1, "attr"),
                     ("of", "of", "ADP", 3, "prep"), ("France", "france", "PROPN", 4, "pobj"))
    # "The capital of France is Paris": nsubj capital, attr Paris
    swapped = _copula(("The", "the", "DET", 1, "det"), ("capital", "capital", "NOUN", 4, "nsubj"),
                      ("of", "of", "ADP", 1, "prep"), ("France", "france", "PROPN", 2, "pobj"),
                      ("is", "be", "AUX", -1, "root"), ("Paris", "paris", "PROPN", 4, "attr"))
    # "France is the capital of Paris": the entities in reversed places
    reversal = _copula(("France", "france", "PROPN", 1, "nsubj"), ("is", "be", "AUX", -1, "root"),
                       ("the", "the", "DET", 3, "det"), ("capital", "capital", "NOUN", 1, "attr"),
                       ("of", "of", "ADP", 3, "prep"), ("Paris", "paris", "PROPN", 4, "pobj"))
    roles = [dependency_tree(p, roles=True) for p in (active, swapped, reversal)]
    assert [t.tree.to_bracketed() for t in roles] == [
        "(<root> paris (capital france))", "(<root> (capital france) paris)", "(<root> france (capital paris))"]
    assert roles[0].roles == ["subj", "", ""]
    cop = [dependency_tree(p, roles=True, copula=True) for p in (active, swapped, reversal)]
    assert cop[0].tree.to_bracketed() == cop[1].tree.to_bracketed() == "(<root> (capital france) paris)"
    assert cop[2].tree.to_bracketed() == "(<root> (capital paris) france)"
    assert cop[0].roles == ["", "", ""]
    # a verb's subject keeps its role: no attr, so "be" is not an identity copula here
    verb = _copula(("Paris", "paris", "PROPN", 1, "nsubj"), ("is", "be", "AUX", 2, "aux"),
                   ("growing", "grow", "VERB", -1, "root"))
    assert dependency_tree(verb, roles=True, copula=True).roles == ["subj", ""]


# -- the scorer network ------------------------------------------------------------------------
def test_scorer_network_forward(tmp_path):
    import json

    layers = [{"weight": np.eye(30, 3).tolist(), "bias": [0.0] * 30},
              {"weight": np.eye(20, 30).tolist(), "bias": [0.0] * 20},
              {"weight": [[1.0] * 20], "bias": [-1.0]}]
    path = tmp_path / "net.json"
    path.write_text(json.dumps({"layers": layers}))
    net = ScorerNetwork(path)
    out = net(np.array([[0.5, 0.25, 1.0], [-1.0, -1.0, -1.0]]))
    assert out == pytest.approx([1 / (1 + math.exp(-(1.75 - 1))), 1 / (1 + math.exp(1))])


# -- the training scripts are deterministic ---------------------------------------------------
def test_scorer_training_pairs_and_network_are_reproducible():
    from training.rome_scorer import PERTURBATIONS, make_pairs, train_network

    first, second = make_pairs(), make_pairs()
    assert first == second
    assert len(first["train"]) == 5000 and len(first["test"]) == 1000
    kinds = {kind for _, _, kind, label in first["train"] if label == 0}
    assert kinds == set(PERTURBATIONS)
    assert all(ref != hyp for ref, hyp, _, label in first["train"] if label == 0)
    rng = np.random.default_rng(0)
    x = rng.random((48, 3)).astype(np.float32)
    y = (x[:, 2] > 0.5).astype(np.float32)
    a, b = train_network(x, y), train_network(x, y)
    assert all(np.array_equal(p.detach().numpy(), q.detach().numpy()) for p, q in zip(a.parameters(), b.parameters()))


def test_make_resident_copies_weights_and_keeps_ties():
    """Memory-mapped checkpoint weights are copied into process memory once (the RoMe-lite
    memory growth of issue 17 was the mmapped embedding table paging in per new token id);
    values, tied parameters and distinct same-shaped parameters are preserved."""
    import torch

    from nlgmetrics.core.embeddings import make_resident

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
    model[1].weight = model[0].weight  # tied
    before = [p.detach().clone() for p in model.parameters()]
    old_ptrs = {p.data_ptr() for p in model.parameters()}
    make_resident(model)
    after = list(model.parameters())
    assert all(torch.equal(a, b) for a, b in zip(before, after))
    assert not old_ptrs & {p.data_ptr() for p in after}
    assert model[1].weight is model[0].weight or model[1].weight.data_ptr() == model[0].weight.data_ptr()
    assert model[0].bias.data_ptr() != model[1].bias.data_ptr()
    ptrs = [p.data_ptr() for p in model.parameters()]
    make_resident(model)  # idempotent: no second copy
    assert ptrs == [p.data_ptr() for p in model.parameters()]

"""TextEval: G2 and -log p against scipy, MDS recovery, leave-one-out composites, the set API,
the system-level mode, segment/corpus scoring, sharding and edge cases."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chi2, chi2_contingency, power_divergence

from nlgmetrics.core.stats import classical_mds_1d, g2
from nlgmetrics.texteval import (
    TextEval,
    ambiguity_class,
    neg_log_p,
    ngram_counts,
    rating_weights,
    tokenize,
)


def scipy_g2(a, b) -> float:
    """G2 of the 2 x k table by scipy, columns empty in both rows dropped."""
    table = np.array([a, b], dtype=float)
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2 or (table.sum(axis=1) == 0).any():
        return 0.0
    return float(chi2_contingency(table, lambda_="log-likelihood", correction=False)[0])


@pytest.fixture(scope="module")
def words() -> TextEval:
    return TextEval(features="words", quiet=True)


# --- G2 and -log p ---------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(8))
def test_g2_matches_scipy_on_random_tables_with_zero_cells(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 30))
    a = rng.integers(0, 6, k) * (rng.random(k) > 0.3)  # many zero cells
    b = rng.integers(0, 6, k) * (rng.random(k) > 0.3)
    a[0], b[1] = 3, 2  # both rows non-empty
    ours = g2(a, b)
    assert ours == pytest.approx(scipy_g2(a, b), rel=1e-10, abs=1e-10)
    # the same statistic by power_divergence on the flattened observed vs expected table
    table = np.array([a, b], dtype=float)
    table = table[:, table.sum(axis=0) > 0]
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    stat, _ = power_divergence(table.ravel(), expected.ravel(), lambda_="log-likelihood")
    assert ours == pytest.approx(stat, rel=1e-10, abs=1e-10)
    # and through the scorer, with its degrees of freedom k - 1 over non-empty columns
    scorer = TextEval(features="words", distance="g2")
    dist, value, df = scorer.pair_distance(a, b)
    assert dist == value == pytest.approx(ours)
    assert df == table.shape[1] - 1


def test_neg_log_p_is_chi2_survival_and_finite_in_the_far_tail():
    for value, df in [(0.01, 1), (3.0, 4), (50.0, 3), (500.0, 10), (1000.0, 40), (3000.0, 2000)]:
        assert neg_log_p(value, df) == pytest.approx(-chi2.logsf(value, df), rel=1e-9)
    # scipy's logsf underflows to -inf here; ours stays finite and increasing
    assert math.isinf(-chi2.logsf(1e5, 10))
    far = [neg_log_p(v, 10) for v in (1e4, 1e5, 1e6)]
    assert all(math.isfinite(f) for f in far) and far[0] < far[1] < far[2]
    assert far[1] == pytest.approx(1e5 / 2, rel=1e-3)  # -ln Q ~ x/2 for x >> df
    assert neg_log_p(0.0, 3) == 0.0 and neg_log_p(5.0, 0) == 0.0


# --- classical MDS -----------------------------------------------------------------------

def test_mds_recovers_a_known_configuration_up_to_sign():
    truth = np.array([0.0, 1.0, 3.0, 7.0, 12.0, 12.5])
    d = np.abs(truth[:, None] - truth[None, :])
    x, r2 = classical_mds_1d(d)
    centred = truth - truth.mean()
    assert r2 == pytest.approx(1.0)
    assert np.allclose(x, centred) or np.allclose(x, -centred)
    # the scorer orients it toward the consensus: here "consensus" = closeness to 3.0
    coords, r2b, sign = TextEval._scale(d, -np.abs(truth - 3.0) + 0.01 * truth)
    assert r2b == pytest.approx(1.0) and sign in (1, -1)
    assert np.allclose(coords, centred) or np.allclose(coords, -centred)
    consensus = -np.abs(truth - 12.0)  # members near 12 are the consensus: they come out on top
    coords, _, _ = TextEval._scale(d, consensus)
    assert coords[-1] > 0 and coords[0] < 0


# --- the direct approach: leave-one-out composites -----------------------------------------

COUNTS = [Counter({"a": 3, "b": 1}), Counter({"a": 1, "c": 2}), Counter({"b": 2, "c": 1, "d": 1}),
          Counter({"a": 2, "b": 2})]


def _vec(c, keys=("a", "b", "c", "d")):
    return [c.get(k, 0) for k in keys]


@pytest.mark.parametrize("distance", ["g2", "neg_log_p"])
def test_direct_distance_is_to_the_composite_of_the_rest(distance):
    scorer = TextEval(features="words", distance=distance)
    ranking = scorer.rank_counts(COUNTS)
    for i, own in enumerate(COUNTS):
        rest = sum((c for j, c in enumerate(COUNTS) if j != i), Counter())
        value = scipy_g2(_vec(own), _vec(rest))
        df = sum(1 for k in "abcd" if own[k] + rest[k] > 0) - 1
        expected = value if distance == "g2" else -chi2.logsf(value, df)
        assert -ranking.direct[i] == pytest.approx(expected, rel=1e-10)
    assert ranking.scores == ranking.direct
    # pairwise matrix: symmetric, zero diagonal, G2 of each pair
    d = np.array(ranking.distances)
    assert np.allclose(d, d.T) and np.allclose(np.diag(d), 0)
    if distance == "g2":
        assert d[0, 2] == pytest.approx(scipy_g2(_vec(COUNTS[0]), _vec(COUNTS[2])))


def test_weighted_composite_uses_the_ratings_of_the_rest():
    scorer = TextEval(features="words", distance="g2")
    ratings = [1.0, 4.0, 2.0, 3.0]
    ranking = scorer.rank_counts(COUNTS, ratings=ratings)
    # member 0: the rest are rated 4, 2, 3 -> min-max [1, 0, 0.5] -> mean-1 weights [2, 0, 1]
    assert np.allclose(rating_weights([4.0, 2.0, 3.0]), [2.0, 0.0, 1.0])
    composite = [2 * x + 0 * y + 1 * z for x, y, z in zip(_vec(COUNTS[1]), _vec(COUNTS[2]), _vec(COUNTS[3]))]
    assert -ranking.direct[0] == pytest.approx(scipy_g2(_vec(COUNTS[0]), composite))
    # equal ratings are the unweighted composite; the pairwise matrix never changes
    assert scorer.rank_counts(COUNTS, ratings=[2.0] * 4).direct == scorer.rank_counts(COUNTS).direct
    assert ranking.distances == scorer.rank_counts(COUNTS).distances
    with pytest.raises(ValueError, match="ratings has 2 values"):
        scorer.rank_counts(COUNTS, ratings=[1.0, 2.0])


def test_scaling_orientation_follows_the_direct_approach():
    texts = ["the cat sat on the mat", "the cat sat on a mat", "a cat sat on the mat",
             "the cat was sitting on the mat", "stock markets fell sharply in early trading today"]
    ranking = TextEval(features="words", approach="scaling").rank_set(texts)
    assert ranking.r2 > 0.5 and ranking.reliable
    assert ranking.scores == ranking.scaling
    assert int(np.argmin(ranking.scaling)) == 4 == int(np.argmin(ranking.direct))
    assert sum(ranking.scaling) == pytest.approx(0.0, abs=1e-9)  # MDS coordinates are centred


# --- documented edge cases -------------------------------------------------------------------

def test_sets_of_one_and_two_texts(words):
    one = words.rank_set(["a single translation"])
    assert one.scores == [0.0] and one.scaling == [0.0] and math.isnan(one.r2) and not one.reliable
    two = words.rank_set(["the cat sat", "a dog ran"])
    assert two.direct[0] == two.direct[1] < 0  # symmetric distance, same score
    assert two.scaling == [0.0, 0.0] and math.isnan(two.r2)
    assert words.rank_set([]).scores == []


def test_empty_and_identical_texts(words):
    empty = words.rank_set(["", "", ""])
    assert empty.scores == [0.0, 0.0, 0.0] and empty.r2 == 1.0 and empty.tokens == [0, 0, 0]
    same = TextEval(features="words", approach="scaling").rank_set(["same words here"] * 4)
    assert same.scores == [0.0] * 4 and same.r2 == 1.0
    mixed = words.rank_set(["", "the cat sat on the mat", "the cat sat on a mat"])
    assert mixed.direct[0] == 0.0  # an empty text carries no evidence of difference: distance 0
    assert all(math.isfinite(v) for v in mixed.direct + mixed.scaling)


@pytest.mark.parametrize("model", ["words", "classes", "tags"])
def test_bad_inputs_give_finite_scores(model):
    scorer = TextEval(features=model, quiet=True)
    preds = ["", "word", "今天天气很好", "🙂🙂 great 🙂", "x " * 3000]
    refs = [["the weather is nice today", "it is a fine day", "good weather today"]] * len(preds)
    result = scorer.score(preds, refs)
    assert all(math.isfinite(s) for s in result.scores) and math.isfinite(result.score)
    assert result.scores[0] == 0.0 and result.details[0]["tokens"] == 0


# --- features -------------------------------------------------------------------------------

def test_tokenizer_and_ambiguity_classes():
    assert tokenize("Don't stop: it’s 3.5 km!") == ["Do", "n't", "stop", ":", "it", "'s", "3.5", "km", "!"]
    assert ambiguity_class("can") == "AUX|NOUN|VERB"
    assert ambiguity_class("The") == "DET"
    assert ambiguity_class("to") == "ADP|PART"
    assert ambiguity_class("houses") == "NOUN|VERB"  # WordNet's lemmatiser: house (n, v)
    assert ambiguity_class("1,000") == "NUM"
    assert ambiguity_class(",") == "PUNCT"
    assert ambiguity_class("xyzzyq") == "X"


def test_ngram_counts():
    assert ngram_counts(["a", "b", "a"]) == Counter({"a": 2, "b": 1})
    assert ngram_counts(["a", "b"], 2) == Counter({"<s> a": 1, "a b": 1, "b </s>": 1})
    assert ngram_counts([], 2) == Counter()


def test_models_see_the_expected_symbols():
    text = "The dogs can run."
    assert TextEval(features="words").symbols([text]) == [["the", "dogs", "can", "run", "."]]
    assert TextEval(features="words", lowercase=False).symbols([text])[0][0] == "The"
    assert TextEval(features="classes").symbols([text]) == [["DET", "NOUN|VERB", "AUX|NOUN|VERB", "NOUN|VERB", "PUNCT"]]
    tags = TextEval(features="tags").symbols([text, "  "])
    assert tags[0] == ["DT", "NNS", "MD", "VB", "."] and tags[1] == []
    assert TextEval(features="tags", tagset="upos").symbols([text])[0] == ["DET", "NOUN", "AUX", "VERB", "PUNCT"]


def test_bigram_option_changes_the_multinomial(words):
    texts = ["the cat sat on the mat", "the mat sat on the cat", "a cat sat on a mat"]
    uni = words.rank_set(texts)
    bi = TextEval(features="words", ngram=2).rank_set(texts)
    assert uni.distances[0][1] == 0.0 and bi.distances[0][1] > 0  # same words, other order


# --- score(): segments, standard sets, corpus level, shards ----------------------------------

PREDS = ["the cat sat on the mat", "a dog barked at the postman loudly", "the cat is on the mat"]
REFS = [["the cat sat on a mat", "a cat was sitting on the mat", "there is a cat on the mat"],
        ["the dog barked at the postman", "a dog was barking at the mailman", "the dog barked loudly"],
        ["the cat sat on a mat", "a cat was sitting on the mat", "there is a cat on the mat"]]


@pytest.mark.parametrize("approach", ["direct", "scaling"])
def test_segment_score_is_the_prediction_in_its_standard_set(approach):
    scorer = TextEval(features="words", approach=approach, distance="neg_log_p", corpus="mean", quiet=True)
    result = scorer.score(PREDS, REFS)
    for i, (pred, refs) in enumerate(zip(PREDS, REFS)):
        ranking = scorer.rank_set([pred] + refs)
        if approach == "direct":
            composite = sum(scorer.counts(refs), Counter())
            keys = sorted(set(composite) | set(scorer.counts([pred])[0]))
            value = scipy_g2([scorer.counts([pred])[0].get(k, 0) for k in keys], [composite[k] for k in keys])
            assert -result.scores[i] == pytest.approx(neg_log_p(value, len(keys) - 1), rel=1e-10)
            assert result.scores[i] == pytest.approx(ranking.direct[0])
        else:
            assert result.scores[i] == pytest.approx(ranking.scaling[0], abs=1e-12)
            assert result.details[i]["r2"] == pytest.approx(ranking.r2)
    assert result.score == pytest.approx(np.mean(result.scores))


def test_shared_standard_set_is_computed_once_and_gives_the_same_scores():
    scorer = TextEval(features="words", approach="scaling", corpus="mean", quiet=True)
    shared = REFS[0]
    preds = ["the cat sat on the mat", "a cat on a mat", "dogs bark", "the cat sat on the mat"]
    together = scorer.score(preds, [shared] * len(preds))
    alone = [scorer.score([p], [shared]).scores[0] for p in preds]
    assert together.scores == pytest.approx(alone)
    assert together.scores[0] == together.scores[3]


@pytest.mark.parametrize("approach", ["direct", "scaling"])
def test_each_member_against_the_rest_via_score_equals_rank_set(approach):
    """Rows whose standard sets overlap (each output of a source against the others) share
    cached pair distances; the result is rank_set's."""
    texts = PREDS + REFS[0] + REFS[1][:1]
    scorer = TextEval(features="words", approach=approach, corpus="mean", quiet=True)
    result = scorer.score(texts, [texts[:i] + texts[i + 1:] for i in range(len(texts))])
    assert result.scores == pytest.approx(getattr(scorer.rank_set(texts), approach), abs=1e-9)


@pytest.mark.parametrize("approach", ["direct", "scaling"])
def test_document_corpus_score_concatenates_and_survives_sharding(approach):
    scorer = TextEval(features="words", approach=approach, quiet=True)
    inputs = scorer.validate(PREDS, REFS)
    records = scorer.score_segments(inputs)
    whole = scorer.reduce(records)
    shards = scorer.reduce(list(reversed(records[1:])) + records[:1])
    assert whole.score == shards.score and whole.scores == shards.scores
    # the document: all predictions against reference j of every row concatenated
    docs = [sum(scorer.counts([r[j] for r in REFS]), Counter()) for j in range(3)]
    expected = scorer.rank_counts([sum(scorer.counts(PREDS), Counter())] + docs)
    assert whole.score == pytest.approx(expected.scores[0] if approach == "scaling" else expected.direct[0])
    assert "counts" not in whole.details[0]
    assert TextEval(features="words", corpus="mean").score(PREDS, REFS).score == pytest.approx(
        np.mean(TextEval(features="words", corpus="mean").score(PREDS, REFS).scores))


def test_unequal_reference_counts():
    refs = [REFS[0], REFS[1][:2], REFS[2]]
    assert len(TextEval(features="words", quiet=True).score(PREDS, refs).scores) == 3  # direct: fine
    with pytest.raises(ValueError, match="same number of references"):
        TextEval(features="words", approach="scaling", quiet=True).score(PREDS, refs)
    mean = TextEval(features="words", approach="scaling", corpus="mean", quiet=True).score(PREDS, refs)
    assert len(mean.scores) == 3


def test_single_string_reference_rows_and_invalid_options():
    result = TextEval(features="words", quiet=True).score(["the cat"], ["the cat"])
    assert result.scores == [0.0]
    with pytest.raises(ValueError, match="unknown features"):
        TextEval(features="lemmas")
    with pytest.raises(ValueError, match="ngram"):
        TextEval(ngram=0)


# --- system-level mode -----------------------------------------------------------------------

def test_system_level_mode_concatenates_each_systems_outputs(words):
    outputs = {"A": ["the cat sat on the mat", "the dog barked"],
               "B": ["a cat sat on a mat", "a dog was barking"],
               "C": ["the cat is on the mat", "the dog barked loudly"],
               "D": ["cat mat", "dog"]}
    ranking = words.score_systems(outputs)
    docs = [sum(words.counts(v), Counter()) for v in outputs.values()]
    expected = words.rank_counts(docs)
    assert ranking.names == ["A", "B", "C", "D"]
    assert ranking.direct == pytest.approx(expected.direct)
    assert np.allclose(ranking.distances, expected.distances)
    rated = words.score_systems(outputs, ratings={"A": 3, "B": 1, "C": 2, "D": 0})
    assert rated.direct == pytest.approx(words.rank_counts(docs, ratings=[3, 1, 2, 0]).direct)


def test_system_level_mode_with_missing_outputs_compares_shared_segments(words):
    assert words.config.distance == "g2"  # the default
    outputs = {"A": ["the cat sat on the mat", "the dog barked", None],
               "B": ["a cat sat on a mat", None, "birds sing"],
               "C": ["the cat is on the mat", "the dog barked loudly", "the birds sang"]}
    ranking = words.score_systems(outputs)
    cnt = {s: [None if t is None else words.counts([t])[0] for t in v] for s, v in outputs.items()}
    # A vs B only on segment 0; A's composite = B's and C's outputs of segments 0 and 1
    ab = words.rank_counts([cnt["A"][0], cnt["B"][0]])
    assert ranking.distances[0][1] == pytest.approx(ab.distances[0][1])
    a_doc = cnt["A"][0] + cnt["A"][1]
    rest = [cnt["B"][0] + cnt["C"][0] + cnt["C"][1]]
    keys = sorted(set(a_doc) | set(rest[0]))
    value = scipy_g2([a_doc.get(k, 0) for k in keys], [rest[0].get(k, 0) for k in keys])
    assert -ranking.direct[0] == pytest.approx(value)
    with pytest.raises(ValueError, match="one entry"):
        words.score_systems({"A": ["x"], "B": ["y", "z"]})


def test_bare_strings_are_refused_not_split_into_characters(words):
    # a bare string used to become one member (or segment) per character
    with pytest.raises(ValueError, match="texts must be a list of strings, not a single str"):
        words.rank_set("abc")
    with pytest.raises(ValueError, match=r"outputs\['A'\] must be a list of strings, not a single str"):
        words.score_systems({"A": "abc", "B": "abd", "C": "abe"})
    with pytest.raises(ValueError, match=r"outputs\['B'\]\[1\] must be a str, got int"):
        words.score_systems({"A": ["a b", None], "B": ["a c", 3]})
    with pytest.raises(ValueError, match=r"texts\[1\] is None"):
        words.rank_set(["a b", None])
    one = words.rank_set(["abc"])
    assert one.names == ["0"] and one.tokens == [1] and one.scores == [0.0]
    systems = words.score_systems({"A": ["abc"], "B": ["abd"], "C": ["abe"]})
    # three one-token documents, no token shared: G2 of [[1, 0, 0], [0, 1, 1]] = 2 ln 6.75
    assert systems.tokens == [1, 1, 1] and systems.direct == pytest.approx([-2 * math.log(6.75)] * 3)


def test_ratings_must_rate_every_system(words):
    outputs = {"A": ["the cat sat"], "B": ["a cat sat"], "C": ["the dog ran"]}
    with pytest.raises(ValueError, match="ratings has no rating for system\\(s\\) 'B', 'C'"):
        words.score_systems(outputs, ratings={"A": 1})
    rated = words.score_systems(outputs, ratings={"A": 2, "B": 1, "C": 0})
    assert rated.direct == pytest.approx(words.rank_set([v[0] for v in outputs.values()], ratings=[2, 1, 0]).direct)


# --- evaluate wrapper ------------------------------------------------------------------------

def test_evaluate_wrapper_matches_the_core():
    evaluate = pytest.importorskip("evaluate")
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "metrics" / "texteval"
    metric = evaluate.load(str(path), "words")
    out = metric.compute(predictions=PREDS, references=REFS, return_details=True)
    core = TextEval(features="words", quiet=True).score(PREDS, REFS)
    assert out["scores"] == pytest.approx(core.scores) and out["score"] == pytest.approx(core.score)
    assert out["signature"] == core.signature

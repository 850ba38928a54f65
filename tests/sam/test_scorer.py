"""SAM: the paper's Table 1, the adjustment formula, items (POS mapping, multiword entries,
unknown words), matching modes, base metrics and scales, bad input, the evaluate wrapper."""
from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics.core.lexical import sentence_bleu, sentence_chrf, sentence_meteor
from nlgmetrics.core.linguistic import get_analyzer
from nlgmetrics.sam import SAM, adjust, match_items, sentiment_adjustment, weighted_polarity
from nlgmetrics.sam.lexicon import Lexicon, load_lexicon
from nlgmetrics.sam.tagger import text_items

ROOT = Path(__file__).resolve().parents[2]

EX3_HYP = "If he had blown himself up in your country, God would forgive him"
EX3_REF = "If he had blown himself up in your country, God would not forgive"
EX4_HYP = "What is this amount of anger, I don't understand!"
EX4_REF = "What is this amount of happiness, I don't understand!"
#: the SentiWords 1.1 values the paper's Table 1 shows
#: no entries (load_lexicon refuses an empty mapping; a Lexicon is taken as it is)
NO_LEXICON = Lexicon("none", {})
TABLE1_LEXICON = {"him#a": 0.0, "not#r": -1.0, "anger#n": -0.669, "happiness#n": 0.856}


def given(**options) -> SAM:
    return nlgmetrics.load("sam", base="given", **options)


def items_of(text: str, lexicon, multiword: bool = True):
    return text_items(get_analyzer(light=True).analyze([text])[0], load_lexicon(lexicon), multiword)


# -- Table 1 ------------------------------------------------------------------------------------
def test_table1_formula_with_the_papers_mismatches():
    assert sentiment_adjustment([0.0], [-1.0]) == (0.0, -1.0, 0.5)
    assert round(adjust(0.92, 0.5), 2) == 0.46
    s_h, s_r, p = sentiment_adjustment([-0.669], [0.856])
    assert (s_h, s_r) == (-0.669, 0.856)
    assert p == pytest.approx(0.7625, abs=1e-12)
    assert round(adjust(0.85, p), 2) == 0.20


@pytest.mark.parametrize("matching", ["lemma", "meteor"])  # the paper's lemma#pos matching, and the default
def test_table1_end_to_end_with_injected_lexicon(matching):
    result = given(lexicon=TABLE1_LEXICON, matching=matching).score(
        [EX3_HYP, EX4_HYP], [EX3_REF, EX4_REF], base_scores=[0.92, 0.85])
    ex3, ex4 = result.details
    assert (ex3["s_h"], ex3["s_r"], ex3["p"]) == (0.0, -1.0, 0.5)
    assert result.scores[0] == pytest.approx(0.46, abs=1e-12)
    assert ex3["mismatches"]["reference"] == [{"word": "not", "item": "not#r", "polarity": -1.0, "known": True}]
    # spaCy tags "him" PRP (lemma "he"), not the paper's him#a: no a/n/r/v pos, polarity 0 either way
    assert [m["word"] for m in ex3["mismatches"]["hypothesis"]] == ["him"]
    assert ex3["mismatches"]["hypothesis"][0]["polarity"] == 0.0
    assert (ex4["s_h"], ex4["s_r"]) == (-0.669, 0.856)
    assert ex4["p"] == pytest.approx(0.7625, abs=1e-12)
    assert result.scores[1] == pytest.approx(0.85 * 0.2375, abs=1e-12)
    assert round(result.scores[1], 2) == 0.20
    assert [m["item"] for m in ex4["mismatches"]["hypothesis"]] == ["anger#n"]
    assert [m["item"] for m in ex4["mismatches"]["reference"]] == ["happiness#n"]
    assert result.score == pytest.approx((0.46 + 0.85 * 0.2375) / 2)
    assert result.corpus["base_score"] == pytest.approx(0.885)


# -- the formula --------------------------------------------------------------------------------
def test_weighted_polarity_is_the_abs_weighted_mean():
    assert weighted_polarity([]) == 0.0
    assert weighted_polarity([0.0, 0.0]) == 0.0
    # alpha = (0.5, 0.25, 0) / 0.75
    assert weighted_polarity([0.5, -0.25, 0.0]) == pytest.approx((0.25 - 0.0625) / 0.75)
    assert weighted_polarity([-1.0]) == -1.0


def test_p_bounds_and_symmetry():
    rng = random.Random(0)
    for _ in range(200):
        h = [rng.uniform(-1, 1) for _ in range(rng.randint(0, 4))]
        r = [rng.uniform(-1, 1) for _ in range(rng.randint(0, 4))]
        s_h, s_r, p = sentiment_adjustment(h, r)
        assert 0.0 <= p <= 1.0
        assert sentiment_adjustment(r, h)[2] == pytest.approx(p)
    assert sentiment_adjustment([1.0], [-1.0])[2] == 1.0


# -- items: POS mapping, multiword entries, unknown words ----------------------------------------
def test_pos_mapping_penn_to_lexicon_pos():
    lex = {"happy#a": 0.7, "love#v": 0.6, "quickly#r": 0.1, "joy#n": 0.8, "not#r": -0.6}
    items = items_of("She loved the joy and quickly became happy, didn't she?", lex)
    keys = {it.word: it.key for it in items}
    assert keys["loved"] == "love#v" and keys["joy"] == "joy#n"
    assert keys["quickly"] == "quickly#r" and keys["happy"] == "happy#a"
    assert keys["n't"] == "not#r"
    assert keys["She"] == "she#pron"  # no a/n/r/v pos: lowercased UPOS, never in a lexicon
    assert "," not in keys and "?" not in keys  # punctuation is no item
    polarity = {it.word: it.polarity for it in items}
    assert polarity["loved"] == 0.6 and polarity["n't"] == -0.6 and polarity["She"] == 0.0
    # the pos must agree: an adjective-only entry does not score the noun
    (item,) = [it for it in items_of("The joy", {"joy#a": 0.9}) if it.word == "joy"]
    assert (item.key, item.polarity, item.known) == ("joy#n", 0.0, False)


def test_multiword_entries_are_one_item():
    lex = {"ice_cream#n": 0.5, "cream#n": 0.1}
    items = items_of("I like ice cream", lex)
    assert [it.key for it in items][-1] == "ice_cream#n"
    assert items[-1].word == "ice cream" and items[-1].polarity == 0.5
    separate = items_of("I like ice cream", lex, multiword=False)
    assert [it.key for it in separate][-2:] == ["ice#n", "cream#n"]
    # hypothesis "ice cream" vs reference "cream": the multiword item is the mismatch
    result = given(lexicon=lex, multiword=True).score(["I like ice cream"], ["I like cream"], base_scores=[1.0])
    assert [m["item"] for m in result.details[0]["mismatches"]["hypothesis"]] == ["ice_cream#n"]
    assert [m["item"] for m in result.details[0]["mismatches"]["reference"]] == ["cream#n"]
    assert result.details[0]["p"] == pytest.approx(abs(0.5 - 0.1) / 2)


def test_unknown_words_have_polarity_zero_and_are_still_listed():
    result = given(lexicon={"happy#a": 0.7}).score(["the zorblat glimmed"], ["the florp glimmed"],
                                                  base_scores=[0.8])
    rec = result.details[0]
    assert rec["p"] == 0.0 and result.scores[0] == 0.8
    assert rec["mismatches"]["hypothesis"][0]["known"] is False
    assert rec["mismatches"]["hypothesis"][0]["polarity"] == 0.0
    assert rec["mismatches"]["reference"][0]["word"] == "florp"


def test_items_match_on_lemma_even_when_the_lexicon_knows_the_word_form():
    # the lexicon has the plural form only: polarity comes from it, matching stays on lemma#pos
    result = given(lexicon={"cats#n": 0.5}).score(["I like cats"], ["I like a cat"], base_scores=[1.0])
    assert result.details[0]["p"] == 0.0 and result.scores[0] == 1.0


def test_mismatches_are_a_multiset():
    lex = {"good#a": 0.6}
    result = given(lexicon=lex).score(["good good food"], ["good food"], base_scores=[1.0])
    hyp = result.details[0]["mismatches"]["hypothesis"]
    assert [m["item"] for m in hyp] == ["good#a"] and result.details[0]["mismatches"]["reference"] == []
    assert result.details[0]["p"] == pytest.approx(0.3)


# -- matching modes -----------------------------------------------------------------------------
def test_meteor_matching_uses_stems_and_wordnet_synonyms():
    lex = {"glad#a": 0.5, "happy#a": 0.7}
    hyp, ref = "I am glad", "I am happy"
    lemma = given(lexicon=lex, matching="lemma").score([hyp], [ref], base_scores=[1.0])
    assert lemma.details[0]["p"] == pytest.approx(0.1)
    meteor = given(lexicon=lex, matching="meteor").score([hyp], [ref], base_scores=[1.0])
    assert meteor.details[0]["p"] == 0.0 and meteor.details[0]["mismatches"]["hypothesis"] == []
    hyp_items, ref_items = items_of("he forgives us", NO_LEXICON), items_of("he forgave us", NO_LEXICON)
    assert match_items(hyp_items, ref_items, "lemma") == ([], [])  # same lemma forgive#v
    left_h, left_r = match_items(items_of("quickly", NO_LEXICON), items_of("quick", NO_LEXICON), "meteor")
    assert (left_h, left_r) == ([], [])  # Porter stem stage
    with pytest.raises(ValueError, match="matching"):
        SAM(base="given", matching="fuzzy")


# -- base metrics and scales --------------------------------------------------------------------
@pytest.mark.parametrize("base,fn", [("bleu", sentence_bleu), ("chrf", sentence_chrf),
                                     ("meteor", sentence_meteor)])
def test_lexical_bases_keep_their_scale(base, fn):
    hyps = [EX4_HYP, "The weather is sunny, what a happy day"]
    refs = [EX4_REF, "The sun is shining, what a cheerful day"]
    result = nlgmetrics.score("sam", hyps, refs, base=base)
    assert result.corpus["scale"] == ("0-1" if base == "meteor" else "0-100")
    for h, r, score, rec in zip(hyps, refs, result.scores, result.details):
        assert rec["base"] == pytest.approx(fn(h, r))
        assert score == pytest.approx(rec["base"] * (1 - rec["p"]))
    # anger vs happiness, default sentivader: the mean of |anger#n| = 0.675 and |happiness#n| = 0.65
    # (tests/test_sam_vader.py::test_emotion_words)
    assert result.details[0]["p"] == pytest.approx((0.675 + 0.65) / 2)
    assert f"base:{base}" in result.signature and "lex:swn3vader@" in result.signature
    assert "|match:meteor|" in result.signature  # always shown: the default changed in 0.2


def test_bertscore_lite_base():
    from nlgmetrics.core.embeddings import ContextualEncoder, bertscore

    hyps, refs = [EX3_HYP, EX4_HYP], [EX3_REF, EX4_REF]
    result = nlgmetrics.score("sam", hyps, refs, base="bertscore", profile="lite", quiet=True)
    expected = bertscore(hyps, refs, ContextualEncoder("minilm", quiet=True))["f1"]
    assert [d["base"] for d in result.details] == pytest.approx(expected, abs=1e-5)
    assert result.scores == pytest.approx([b * (1 - d["p"]) for b, d in zip(expected, result.details)], abs=1e-5)
    assert "model:minilm@last" in result.signature and "profile:lite" in result.signature
    one_by_one = SAM(base="bertscore", profile="lite", batch_size=1, quiet=True).score(hyps, refs)
    assert one_by_one.scores == pytest.approx(result.scores, abs=1e-5)


def test_paper_profile_offline_gives_one_clear_error(monkeypatch):
    from nlgmetrics.core.models import ModelUnavailableError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailableError, match="roberta-large.*lite"):
        SAM(base="bertscore", profile="paper", quiet=True)


def test_identical_inputs_keep_the_base_score():
    texts = [EX4_REF, "I hate this terrible day"]
    for base in ("bleu", "meteor"):
        result = nlgmetrics.score("sam", texts, texts, base=base)
        for score, rec in zip(result.scores, result.details):
            assert rec["p"] == 0.0 and score == rec["base"]
            assert rec["mismatches"] == {"hypothesis": [], "reference": []}


def test_given_scores_validation():
    scorer = given()
    with pytest.raises(ValueError, match="base_scores"):
        scorer.score(["a"], ["b"])
    with pytest.raises(ValueError, match="items"):
        scorer.score(["a"], ["b"], base_scores=[0.1, 0.2])
    with pytest.raises(ValueError, match="finite"):
        scorer.score(["a"], ["b"], base_scores=[float("nan")])
    with pytest.raises(ValueError, match="base='given'"):
        nlgmetrics.load("sam", base="bleu").score(["a"], ["b"], base_scores=[0.1])
    with pytest.raises(ValueError, match="unknown base .rouge.; choose one of bleu"):
        SAM(base="rouge")
    with pytest.raises(ValueError, match="model/layer"):
        SAM(base="bleu", model="minilm")


# -- bad input ----------------------------------------------------------------------------------
def test_empty_and_odd_inputs_give_documented_finite_scores():
    hyps = ["", "", "   ", "happy", "😀😀 so happy", "我很高兴", "I am happy " * 400]
    refs = ["I am happy", "", "   ", "sad", "😀 so sad", "我很难过", "I am sad " * 400]
    result = nlgmetrics.score("sam", hyps, refs, base="meteor")
    assert all(math.isfinite(s) for s in result.scores)
    empty_hyp, both_empty, blank = result.details[:3]
    assert result.scores[0] == 0.0 and empty_hyp["s_h"] == 0.0 and empty_hyp["s_r"] > 0  # METEOR 0
    assert both_empty["p"] == 0.0 and result.scores[1] == both_empty["base"] == 0.0
    assert blank["mismatches"] == {"hypothesis": [], "reference": []}
    assert result.details[3]["p"] > 0.5  # happy#a vs sad#a
    assert result.details[6]["p"] > 0.5
    bleu = nlgmetrics.score("sam", hyps, refs, base="bleu")
    assert all(math.isfinite(s) for s in bleu.scores) and bleu.scores[0] == 0.0


def test_reduce_is_order_free():
    scorer = given(lexicon=TABLE1_LEXICON)
    inputs = scorer.validate([EX3_HYP, EX4_HYP], [EX3_REF, EX4_REF], base_scores=[0.92, 0.85])
    records = scorer.score_segments(inputs)
    assert scorer.reduce(records[::-1]).scores == scorer.reduce(records).scores


# -- the evaluate wrapper -----------------------------------------------------------------------
def test_evaluate_wrapper_matches_the_core():
    evaluate = pytest.importorskip("evaluate")
    module = evaluate.load(str(ROOT / "metrics" / "sam"))
    hyps, refs = [EX3_HYP, EX4_HYP], [EX3_REF, EX4_REF]
    out = module.compute(predictions=hyps, references=refs, return_details=True)
    core = nlgmetrics.score("sam", hyps, refs)
    assert out["scores"] == core.scores and out["signature"] == core.signature
    assert out["details"] == core.details
    given_module = evaluate.load(str(ROOT / "metrics" / "sam"), "given")
    out = given_module.compute(predictions=hyps, references=refs, base_scores=[0.92, 0.85],
                               lexicon=TABLE1_LEXICON)
    assert out["scores"] == pytest.approx([0.46, 0.85 * 0.2375])
    assert "base:given" in out["signature"]


def test_chrf_eps_smoothing_equals_sacrebleu():
    import sacrebleu

    hyps = ["The cat sat on the mat.", "a b", "Stocks fell sharply on Monday", "x", "It is nice to see you again"]
    refs = ["The cat is on the mat.", "a c", "Shares dropped on Monday", "yy", "Nice to see you"]
    for eps in (False, True):
        options = {"eps_smoothing": True} if eps else {}
        result = SAM(base="chrf", quiet=True, **options).score(hyps, refs)
        expected = [sacrebleu.sentence_chrf(h, [r], eps_smoothing=eps).score for h, r in zip(hyps, refs)]
        assert [d["base"] for d in result.details] == expected  # exactly sacrebleu's numbers
        assert ("|eps:yes|" in result.signature) == eps
    plain = SAM(base="chrf", quiet=True).score(hyps, refs)
    assert [d["base"] for d in plain.details] != [d["base"] for d in result.details]  # it does change scores
    with pytest.raises(ValueError, match="eps_smoothing applies to base='chrf' only"):
        SAM(base="bleu", eps_smoothing=True, quiet=True)

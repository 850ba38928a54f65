"""TextEval hardening (issue 17) and configuration (issue 12): ambiguity classes take WordNet's
senses of a word as a word (no acronym, letter or element senses), dotted abbreviations are
one token, an unknown option, the generated signature and the card's options table."""
from __future__ import annotations

from pathlib import Path

import pytest

from nlgmetrics.cli.cards import markdown_table
from nlgmetrics.texteval import TextEval, TextEvalConfig, ambiguity_class, tokenize

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("word, expected", [
    ("a", "DET"), ("A", "DET"),            # not the letter, vitamin A, ampere, angstrom
    ("an", "DET"),                          # not AN (Associate in Nursing)
    ("he", "PRON"),                         # not helium nor the Hebrew letter
    ("it", "PRON"), ("us", "PRON"), ("who", "PRON"), ("me", "PRON"),  # not IT, US, WHO, ME (Maine)
    ("I", "PRON"), ("i", "PRON"),           # not iodine, the letter, the Roman numeral
    ("was", "AUX|VERB"),                    # not WA (Washington) through the noun lemmatiser
    ("lest", "SCONJ"),                      # not "l" (fifty) through the adjective lemmatiser
])
def test_closed_class_words_take_no_acronym_letter_or_element_senses(word, expected):
    assert ambiguity_class(word) == expected


def test_open_class_senses_and_acronyms_written_in_capitals_remain():
    assert ambiguity_class("can") == "AUX|NOUN|VERB"
    assert ambiguity_class("houses") == "NOUN|VERB"
    assert ambiguity_class("Paris") == "NOUN"       # a proper noun is still a noun
    assert ambiguity_class("US") == "NOUN|PRON"     # written as the acronym, it is one
    assert ambiguity_class("U.S.") == "NOUN"
    assert ambiguity_class("will") == "AUX|NOUN|VERB"


def test_dotted_abbreviations_are_one_token():
    assert tokenize("The U.S. economy grew, e.g. in Ohio.") == ["The", "U.S.", "economy", "grew", ",", "e.g.", "in",
                                                               "Ohio", "."]
    assert tokenize("Don't stop: it’s 3.5 km!") == ["Do", "n't", "stop", ":", "it", "'s", "3.5", "km", "!"]
    assert TextEval(features="classes").symbols(["He was in the U.S."]) == [["PRON", "AUX|VERB", "ADJ|ADP|ADV|NOUN",
                                                                            "DET", "NOUN"]]


def test_unknown_option_and_checked_values():
    with pytest.raises(ValueError, match="unknown option 'model'; the options are: features"):
        TextEval(model="words")
    for options, match in [({"features": "lemmas"}, "unknown features"), ({"ngram": 0}, "ngram must be"),
                           ({"min_r2": 1.5}, "min_r2 must be"), ({"min_r2": float("nan")}, "finite"),
                           ({"linguistic_backend": "nltk"}, "linguistic_backend"), ({"lowercase": "maybe"}, "true or false")]:
        with pytest.raises(ValueError, match=match):
            TextEvalConfig.from_options(**options)


def test_signature_is_generated_from_the_configuration():
    sig = TextEval(features="words", quiet=True).signature
    assert sig.startswith("texteval|feat:words|approach:direct|dist:g2|corpus:document|")
    # each option signed where it can change a score (see the inert test below)
    changed = [("ngram", 2, {"features": "words"}), ("lowercase", False, {"features": "words"}),
               ("tagset", "upos", {"features": "tags"}), ("min_r2", 0.3, {"features": "words", "approach": "scaling"})]
    for name, value, context in changed:
        key = TextEvalConfig.spec(name).short
        assert f"|{key}:" in TextEval(quiet=True, **context, **{name: value}).signature, name
    assert "|lex:wordnet3.0-words+closed" in TextEval(features="classes", quiet=True).signature


def test_card_options_table_is_generated():
    card = (ROOT / "metrics" / "texteval" / "README.md").read_text(encoding="utf-8")
    start, end = card.index("<!-- options:start -->"), card.index("<!-- options:end -->")
    assert card[start:end].split("-->", 1)[1].strip() == markdown_table(TextEvalConfig)


# --- the tokenizer on canonically equivalent, non-Latin and invisible characters -------------

NFC_TEXT = "Le café crème est très bon."
NFC_REFS = [["Le café est très bon.", "Un café crème très bon.", "La crème est bonne."]]


@pytest.mark.parametrize("features", ["words", "classes"])
def test_decomposed_text_scores_exactly_as_the_composed_one(features):
    import unicodedata

    nfd = unicodedata.normalize("NFD", NFC_TEXT)
    assert nfd != NFC_TEXT
    scorer = TextEval(features=features, quiet=True)
    composed = scorer.score([NFC_TEXT], NFC_REFS).score
    assert composed < 0  # a real distance, not an empty comparison
    assert scorer.score([nfd], NFC_REFS).score == composed
    assert scorer.score([nfd], [[NFC_TEXT]]).score == 0.0  # was -13.92 with words
    refs_nfd = [[unicodedata.normalize("NFD", r) for r in NFC_REFS[0]]]
    assert scorer.score([NFC_TEXT], refs_nfd).score == composed


def test_combining_marks_stay_inside_words():
    assert tokenize("राम ने किताब पढ़ी") == ["राम", "ने", "किताब", "पढ़ी"]
    assert tokenize("cre\u0300me bru\u0302le\u0301e") == ["crème", "brûlée"]
    # the clitic, abbreviation and hyphen rules are unchanged
    assert tokenize("Don't go to the U.S. well-known") == ["Do", "n't", "go", "to", "the", "U.S.", "well-known"]


@pytest.mark.parametrize("invisible", ["\u200b", "\x00", "\u00ad", "\ufeff", "\u2060"])
def test_invisible_characters_are_no_tokens_and_do_not_change_the_score(invisible):
    text = "the cat sat on the mat"
    refs = [["a cat sat on a mat", "the dog sat on the mat", "the cat is on the mat"]]
    scorer = TextEval(features="words", quiet=True)
    plain = scorer.score([text], refs).score
    assert plain < 0
    inside = text.replace("cat", f"c{invisible}at").replace(" on", f" {invisible}on")
    assert tokenize(inside) == tokenize(text) == ["the", "cat", "sat", "on", "the", "mat"]
    assert scorer.score([inside], refs).score == plain


PREDS = ["The Cat sat on the mat .", "A dog ran in the Park", "Birds sing"]
REFS = [["the cat is on the mat", "A cat sat on a mat", "The Cat was on the mat"],
        ["the dog runs in the park", "a Dog ran through the park", "dogs ran"],
        ["the birds sang", "Birds are singing", "a bird sings"]]


@pytest.mark.parametrize("context, inert", [
    ({"features": "words"}, {"tagset": "upos"}),
    ({"features": "words"}, {"linguistic_backend": "stanza"}),  # no tagger is built, so none is named
    ({"features": "classes"}, {"tagset": "upos", "linguistic_backend": "stanza", "lowercase": False}),
    ({"features": "tags"}, {"lowercase": False}),
    ({"features": "words"}, {"min_r2": 0.9}),                    # approach="direct"
])
def test_options_that_cannot_change_a_score_are_not_signed(context, inert):
    base = TextEval(quiet=True, **context).score(PREDS, REFS)
    other = TextEval(quiet=True, **context, **inert).score(PREDS, REFS)
    assert other.scores == base.scores and other.score == base.score and other.details == base.details
    assert other.signature == base.signature
    assert TextEvalConfig(**context, **inert).unused_options() >= set(inert)


@pytest.mark.parametrize("context, option", [
    ({"features": "words"}, {"lowercase": False}),
    ({"features": "tags"}, {"tagset": "upos"}),
])
def test_options_that_change_the_scores_stay_signed(context, option):
    base = TextEval(quiet=True, **context).score(PREDS, REFS)
    other = TextEval(quiet=True, **context, **option).score(PREDS, REFS)
    assert other.scores != base.scores
    (name, value), = option.items()
    key = TextEvalConfig.spec(name).short
    assert f"|{key}:" in other.signature and f"|{key}:" not in base.signature


def test_min_r2_is_signed_with_scaling_where_it_sets_the_reliability_flags():
    lenient = TextEval(features="words", approach="scaling", min_r2=0.0, quiet=True).score(PREDS, REFS)
    strict = TextEval(features="words", approach="scaling", min_r2=1.0, quiet=True).score(PREDS, REFS)
    assert strict.scores == lenient.scores
    assert [d["reliable"] for d in lenient.details] == [True] * 3
    assert strict.corpus["unreliable_segments"] == 3 and lenient.corpus["unreliable_segments"] == 0 and "|minr2:1|" in strict.signature

"""SAM's lookup tagger (linguistic_backend="lookup"): the table builder is deterministic, the
shipped table reads back, the rule for unknown forms, agreement with spaCy on hand-checked
sentiment words, Table 1 with the paper's polarities, and the signature naming the table."""
from __future__ import annotations

import gzip
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from training import sam_tagger

import nlgmetrics
from nlgmetrics.core.linguistic import clean_text, get_analyzer, wordnet_pos
from nlgmetrics.core.resources import data_path
from nlgmetrics.sam.lexicon import load_lexicon
from nlgmetrics.sam.tagger import lookup_analyzer, read_tagger_table, rule_analysis

from .test_scorer import EX3_HYP, EX3_REF, EX4_HYP, EX4_REF, TABLE1_LEXICON

#: hand-checked: sentence -> {sentiment word: (WordNet pos, lemma)}
HAND = {
    "The film was terrible and the actors were awful.": {"terrible": ("a", "terrible"), "awful": ("a", "awful")},
    "I enjoy this wonderful city.": {"enjoy": ("v", "enjoy"), "wonderful": ("a", "wonderful")},
    "She disliked the food and cried all night.": {"cried": ("v", "cry")},
    "They were angry, sad and disappointed.": {"angry": ("a", "angry"), "sad": ("a", "sad")},
    "The police said the attack killed three people.": {"attack": ("n", "attack"), "killed": ("v", "kill")},
    "What a great day, we are so happy!": {"great": ("a", "great"), "happy": ("a", "happy")},
    "His death was a tragedy for the whole family.": {"death": ("n", "death"), "tragedy": ("n", "tragedy")},
    "Fans celebrated the victory with joy.": {"celebrated": ("v", "celebrate"), "victory": ("n", "victory"),
                                              "joy": ("n", "joy")},
}


def analyses(analyzer, text):
    return {t.text: (wordnet_pos(t.xpos, t.upos), t.lemma.lower()) for t in analyzer.analyze([text])[0].tokens}


def test_best_analysis_is_the_most_frequent_then_the_smallest():
    counts = {"saw": Counter({("VBD", "VERB", "see"): 3, ("NN", "NOUN", "saw"): 1}),
              "love": Counter({("VB", "VERB", "love"): 2, ("NN", "NOUN", "love"): 2}),
              "zz": Counter({("NN", "NOUN", "zz"): 1})}
    rows = sam_tagger.best_analyses(counts)
    assert rows == [("love", "NN", "NOUN", "love"), ("saw", "VBD", "VERB", "see"), ("zz", "NN", "NOUN", "zz")]
    assert sam_tagger.best_analyses(counts, min_count=2) == rows[:2]
    text = sam_tagger.render(rows, 1)
    assert text.endswith("love\tNN\tNOUN\tlove\nsaw\tVBD\tVERB\tsee\nzz\tNN\tNOUN\tzz\n")
    assert text.startswith("# SAM lookup tagger")


def test_only_dictionary_words_ship():
    words = frozenset({"lol", "ice cream"})
    keep = [("the", "DT", "DET", "the"), ("n't", "RB", "PART", "not"), ("!", ".", "PUNCT", "!"),
            ("killed", "VBD", "VERB", "kill"), ("lol", "UH", "INTJ", "lol"), ("cats", "NNS", "NOUN", "cat")]
    drop = [("@someone", "NNP", "PROPN", "@someone"), ("Colorado", "NNP", "PROPN", "Colorado"),
            ("#ThoughtfulThursday", "NN", "NOUN", "#ThoughtfulThursday"), ("loveee", "NN", "NOUN", "loveee"),
            ("b.com", "NN", "NOUN", "b.com"), ("u2", "PRP", "PRON", "u2")]
    assert [sam_tagger.shippable(row, words) for row in keep] == [True] * len(keep)
    assert [sam_tagger.shippable(row, words) for row in drop] == [False] * len(drop)
    assert {"good will", "happy"} <= sam_tagger.lexicon_words()


def test_builder_is_deterministic_on_spacy_output(tmp_path):
    texts = ["I saw a saw.", "We saw it.", "Great!"]
    counts = sam_tagger.count_analyses(texts)
    assert counts["saw"] == Counter({("VBD", "VERB", "see"): 2, ("NN", "NOUN", "saw"): 1})
    first = sam_tagger.best_analyses(counts)
    # by hand: every form once, sorted by code point, "saw" the verb (2 of its 3 uses)
    assert first == [("!", ".", "PUNCT", "!"), (".", ".", "PUNCT", "."), ("Great", "JJ", "ADJ", "great"),
                     ("I", "PRP", "PRON", "I"), ("We", "PRP", "PRON", "we"), ("a", "DT", "DET", "a"),
                     ("it", "PRP", "PRON", "it"), ("saw", "VBD", "VERB", "see")]
    a, b = tmp_path / "a.tsv.gz", tmp_path / "b.tsv.gz"
    for path in (a, b):
        sam_tagger.write_gzip(sam_tagger.render(first, 1), path)
    data = a.read_bytes()
    assert data == b.read_bytes()
    # the gzip header pins what would differ between runs: no file name (FLG 0), mtime 0
    assert data[:4] == b"\x1f\x8b\x08\x00" and data[4:8] == b"\x00\x00\x00\x00"
    assert gzip.decompress(data).decode("utf-8") == sam_tagger.render(first, 1)
    assert read_tagger_table(a)["saw"] == ("VBD", "VERB", "see")


def test_shipped_table_reads_back():
    table = read_tagger_table(data_path("sam_tagger.tsv.gz"))
    assert len(table) > 12_000
    # dictionary words only: nothing of the training text's names, handles or hashtags ships
    assert not [form for form, (_, upos, _) in table.items() if upos == "PROPN" or "@" in form or "#" in form]
    assert table["killed"] == ("VBN", "VERB", "kill") and table["angry"] == ("JJ", "ADJ", "angry")
    assert table["!"][1] == "PUNCT"


def test_rule_for_forms_the_table_lacks():
    assert rule_analysis("cats") == ("NN", "NOUN", "cat")
    assert rule_analysis("running") == ("VB", "VERB", "run")
    assert rule_analysis("Xyzzyville") == ("NNP", "PROPN", "Xyzzyville")
    assert rule_analysis("1,234") == ("CD", "NUM", "1,234")
    assert rule_analysis("?!") == (".", "PUNCT", "?!")
    assert rule_analysis("qwxzv") == ("NN", "NOUN", "qwxzv")
    lookup = lookup_analyzer()
    assert lookup.analysis("Angry") == lookup.table["angry"]  # sentence-initial capital: the lowercase form


@pytest.mark.parametrize("sentence", sorted(HAND))
def test_agrees_with_spacy_on_hand_checked_sentiment_words(sentence):
    fast, slow = analyses(lookup_analyzer(), sentence), analyses(get_analyzer("spacy", light=True), sentence)
    for word, expected in HAND[sentence].items():
        assert fast[word] == expected, word
        assert slow[word] == expected, word
    spacy_tokens = [t.text for t in get_analyzer("spacy", light=True).analyze([sentence])[0].tokens]
    assert [t.text for t in lookup_analyzer().analyze([sentence])[0].tokens] == spacy_tokens


def test_a_known_disagreement_keeps_the_polarity():
    """One analysis per form: "love" is a noun in the table (its most frequent tag), a verb for
    spaCy in "I love it"; the default lexicon rates love#n and love#v alike (VADER's valence)."""
    assert analyses(lookup_analyzer(), "I love it.")["love"] == ("n", "love")
    assert analyses(get_analyzer("spacy", light=True), "I love it.")["love"] == ("v", "love")
    lexicon = load_lexicon()
    assert lexicon.get("love#n") == lexicon.get("love#v") > 0.5


def test_tokens_match_spacy_on_contractions_and_punctuation():
    text = "I don't understand!! It's 5 o'clock -- isn't it? (Well-known) U.S. e-mail: a@b.com"
    fast = [t.text for t in lookup_analyzer().analyze([text])[0].tokens]
    assert fast == [t.text for t in get_analyzer("spacy", light=True).analyze([text])[0].tokens]
    assert "n't" in fast and "!" in fast


def test_table1_with_the_papers_polarities():
    result = nlgmetrics.load("sam", base="given", lexicon=TABLE1_LEXICON, linguistic_backend="lookup").score(
        [EX3_HYP, EX4_HYP], [EX3_REF, EX4_REF], base_scores=[0.92, 0.85])
    ex3, ex4 = result.details
    assert (ex3["s_h"], ex3["s_r"], ex3["p"]) == (0.0, -1.0, 0.5)
    assert result.scores[0] == pytest.approx(0.46, abs=1e-12)
    assert ex4["p"] == pytest.approx(0.7625, abs=1e-12)
    assert round(result.scores[1], 2) == 0.20
    assert [m["item"] for m in ex4["mismatches"]["hypothesis"]] == ["anger#n"]
    assert [m["item"] for m in ex4["mismatches"]["reference"]] == ["happiness#n"]
    assert "lookup:sam_tagger@" in result.signature


def test_empty_and_odd_texts():
    parsed = lookup_analyzer().analyze(["", "  ", "\ud800 ok"])
    assert parsed[0].tokens == [] and all(t.upos == "SPACE" for t in parsed[1].tokens)
    assert [t.text for t in parsed[2].tokens][-1] == "ok" and parsed[2].text == "\ud800 ok"
    from nlgmetrics.core.linguistic import MAX_CHARS

    long = "good " * (MAX_CHARS // 5 + 10)
    with pytest.warns(UserWarning, match="truncated to 100000"):  # as the spaCy path warns
        tokens = lookup_analyzer().analyze([long])[0].tokens
    assert len(tokens) == MAX_CHARS // 5 and tokens[0].lemma == "good"


ANY_TEXT = st.one_of(st.text(st.characters(exclude_categories=()), max_size=30),
                     st.lists(st.sampled_from(sorted({w for s in HAND for w in s.split()}) + ["\ud800", "  ", "n't"]),
                              max_size=8).map(" ".join))


@settings(max_examples=150, deadline=None)
@given(ANY_TEXT, ANY_TEXT, st.floats(0.0, 1.0))
def test_lookup_sam_is_finite_and_never_above_the_base(hyp, ref, base):
    scorer = nlgmetrics.load("sam", base="given", linguistic_backend="lookup", quiet=True)
    result = scorer.score([hyp], [ref], base_scores=[base])
    assert 0.0 <= result.details[0]["p"] <= 1.0 and 0.0 <= result.scores[0] <= base + 1e-12
    words = [t.text for t in lookup_analyzer().analyze([hyp])[0].tokens]
    no_space = lambda text: re.sub(r"\s", "", text)  # noqa: E731
    assert no_space("".join(words)) == no_space(clean_text(hyp))  # the tokens cover the text

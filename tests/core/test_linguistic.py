"""core.linguistic: the light (tags + lemmas) mode agrees with the full analysis, lone
surrogates do not crash the tagger, and the parse cache is bounded."""
from __future__ import annotations

from nlgmetrics.core.linguistic import Analyzer, clean_text, get_analyzer, parsed_size, wordnet_pos

TEXTS = ["She loved the joy and quickly became happy, didn't she?",
         "What is this amount of anger, I don't understand!",
         "If he had blown himself up in your country, God would not forgive.", "", "   "]


def test_light_mode_gives_the_same_tokens_tags_and_lemmas():
    full, light = get_analyzer("spacy"), get_analyzer("spacy", light=True)
    assert light is get_analyzer("spacy", light=True) and light is not full
    assert light.backend == full.backend + ":light"
    for a, b in zip(full.analyze(TEXTS), light.analyze(TEXTS)):
        # tokens, lemmas, Penn tags and the lexicon pos agree; spaCy's attribute ruler needs the
        # parse to tell AUX from VERB, so only that UPOS distinction may differ
        assert [(t.text, t.lemma, t.xpos, wordnet_pos(t.xpos, t.upos)) for t in a.tokens] == \
               [(t.text, t.lemma, t.xpos, wordnet_pos(t.xpos, t.upos)) for t in b.tokens]
        assert [t.upos.replace("AUX", "VERB") for t in a.tokens] == [t.upos.replace("AUX", "VERB") for t in b.tokens]
        assert a.has_dependencies and not b.has_dependencies
        assert all(t.head == -1 for t in b.tokens)
    assert len(full.analyze(TEXTS[:1])[0].sentence_spans) == 1  # the full mode still parses


def test_lone_surrogates_are_replaced_not_fatal():
    text = "a \ud800 b \udfff"
    assert clean_text(text) == "a \ufffd b \ufffd" and clean_text("😀 ok") == "😀 ok"
    for analyzer in (get_analyzer("spacy"), get_analyzer("spacy", light=True)):
        (parsed,) = analyzer.analyze([text])
        assert parsed.text == text  # as given
        assert [t.text for t in parsed.tokens][0] == "a" and "\ud800" not in "".join(t.text for t in parsed.tokens)


def test_the_parse_cache_is_bounded_by_entries_and_bytes():
    analyzer = Analyzer("spacy", light=True, cache_size=5)
    texts = [f"text number {i} is happy" for i in range(12)]
    out = analyzer.analyze(texts)
    assert len(analyzer._cache) == 5 and [p.text for p in out] == texts
    assert analyzer.analyze(texts[-1:])[0] is out[-1]  # cached
    small = Analyzer("spacy", light=True, cache_bytes=3 * parsed_size(out[0]))
    small.analyze(texts)
    assert len(small._cache) <= 3 and small._cache.nbytes <= 3 * parsed_size(out[0])


# texts that reach the attribute ruler's word-specific rules (contractions, "gonna", "y'all",
# "nothin'", copulas and auxiliaries, "that"/"if" as SCONJ), whitespace, emoji and other scripts
RULER_TEXTS = TEXTS + [
    "Y'all ain't seen nothin' yet, and I ain't gonna wait.", "I'm sure you're right; we've got ta go, let's go!",
    "He's been there. She'd have known. They'll say it's fine, isn't it?", "It is what it is, ain't it",
    "Nuthin' AIN'T NT y' all", "Because she left, he stayed; although tired, he said that it was done.",
    "  two  spaces\tand a tab\nand a newline ", "Das ist gut. 東京は大きい。 Москва — столица. 😀🎉 #happy @user",
    "Do you have it? I do. Did he? Has she had enough? I have to be there by 5pm.",
    "The 3rd of May, 2021: costs $5.99 (approx.) -- e.g. U.S.A. vs. U.K.", "whilst coz tho til w/out albeit"]


def test_fast_attribute_rules_match_spacys_ruler_token_for_token():
    """The light pipeline runs the attribute ruler's rules by lookup (core.attribute_rules);
    spaCy's own ruler and lemmatiser on the same texts give identical tags, POS, lemmas and
    morphology."""
    import spacy

    from nlgmetrics.core.attribute_rules import FastAttributeRuler
    from nlgmetrics.core.linguistic import _SpacyBackend

    fast = _SpacyBackend(light=True)
    assert isinstance(fast._after[0], FastAttributeRuler)  # the lookup is in use
    reference = spacy.load(fast.name.split(":", 1)[1], exclude=["ner", "parser", "senter"])
    assert "attribute_ruler" in reference.pipe_names and not reference.disabled
    texts = RULER_TEXTS + [t.upper() for t in RULER_TEXTS]
    fields = ("text", "tag_", "pos_", "lemma_", "dep_")
    for ours, theirs in zip(fast._docs(texts, 8), reference.pipe(texts)):
        assert [tuple(getattr(t, f) for f in fields) + (str(t.morph),) for t in ours] == \
               [tuple(getattr(t, f) for f in fields) + (str(t.morph),) for t in theirs]


def test_fast_attribute_rules_refuse_what_they_cannot_express():
    import pytest

    from nlgmetrics.core.attribute_rules import FastAttributeRuler

    with pytest.raises(ValueError, match="unsupported"):
        FastAttributeRuler([{"patterns": [[{"LOWER": "a", "OP": "?"}]], "attrs": {"POS": "DET"}}])
    with pytest.raises(ValueError, match="unsupported"):
        FastAttributeRuler([{"patterns": [[{"LENGTH": {">=": 3}}]], "attrs": {"POS": "X"}}])
    with pytest.raises(ValueError, match="sets"):
        FastAttributeRuler([{"patterns": [[{"TAG": "NN"}]], "attrs": {"ENT_TYPE": "X"}}])

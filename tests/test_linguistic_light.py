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

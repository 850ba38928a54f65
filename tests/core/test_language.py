"""Language facts and the per-corpus language check: German text warns for the English metrics
(RoMe, DiscoTK, SAM), ``language="en"`` makes it an error, English text (the WMT to-English
sets of ../shared/data) never warns, and every metric's FACTS say which languages it covers."""
from __future__ import annotations

import gzip
import json
import warnings
from types import SimpleNamespace

import pytest

from nlgmetrics.core.facts import facts_of
from nlgmetrics.core.language import check_corpus_language, detect_language, language_shares
from nlgmetrics.datscore import DATScore
from nlgmetrics.discotk import DiscoTK
from nlgmetrics.rome import RoMe
from nlgmetrics.sam import SAM
from nlgmetrics.texteval import TextEval

pytest.importorskip("langdetect")

GERMAN = ["Die Regierung hat am Montag neue Maßnahmen für kleine Unternehmen angekündigt.",
          "Der Koch wurde tot in einem Einkaufszentrum in San Francisco aufgefunden.",
          "Wir freuen uns sehr, Sie bald wieder bei uns begrüßen zu dürfen."]
ENGLISH = ["The government announced new measures for small businesses on Monday.",
           "The chef was found dead in a shopping centre in San Francisco.",
           "We are very happy to welcome you back soon."]


def rows(shared_data, name):
    path = shared_data / name
    if not path.exists():
        pytest.skip(f"{name} is not in ../shared/data")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_every_metric_states_its_languages():
    for scorer in (RoMe, DiscoTK, SAM):
        assert facts_of(scorer).languages == ("en",) and "English" in facts_of(scorer).language_note
    assert facts_of(TextEval).languages == ()  # words are language-free; the note names the English features
    assert "tags" in facts_of(TextEval).language_note and "classes" in facts_of(TextEval).language_note
    assert "M2M-100" in facts_of(DATScore).language_note


def test_detection_is_deterministic_and_skips_short_texts():
    assert [detect_language(t) for t in GERMAN] == ["de"] * 3
    assert [detect_language(t) for t in ENGLISH] == ["en"] * 3
    assert detect_language("Hi") is None and detect_language("") is None
    assert language_shares(GERMAN * 100) == language_shares(GERMAN * 100)
    sampled, counts = language_shares(GERMAN * 100)
    assert 30 <= sampled <= 40 and counts["de"] == sampled  # a sample, evenly spaced, not the whole corpus


def test_each_text_is_identified_once_across_calls(monkeypatch):
    """A training loop's evaluations share their references: langdetect runs on a text once."""
    import langdetect

    seen = []
    real = langdetect.detect_langs
    monkeypatch.setattr(langdetect, "detect_langs", lambda text: seen.append(text) or real(text))
    detect_language.cache_clear()
    texts = [f"{t} ({k})" for k, t in enumerate(ENGLISH * 4)]
    assert language_shares(texts) == language_shares(texts) == (12, {"en": 12})
    assert sorted(seen) == sorted(texts)  # twelve texts, each identified once in two calls
    detect_language.cache_clear()


@pytest.mark.parametrize("scorer", [RoMe, DiscoTK, SAM])
def test_german_corpus_warns_once_and_strict_mode_refuses(scorer):
    def checked(**options):
        obj = scorer.__new__(scorer)  # the check needs the configuration, not the models
        obj.config, obj.quiet = scorer.Config(**options), False
        obj.check_language(SimpleNamespace(predictions=GERMAN * 4, references=ENGLISH * 4))

    with pytest.warns(UserWarning) as caught:
        checked()
    assert len(caught) == 1
    assert f"{scorer.name}: 100% of the sampled predictions (12 of 12) look like language 'de'" in str(
        caught[0].message)
    with pytest.raises(ValueError, match="language='en' requires 'en' text"):
        checked(language="en")


def test_sam_end_to_end():
    with pytest.warns(UserWarning, match="sam: .* language 'de'"):
        SAM(base="chrf", quiet=False).score(GERMAN, ENGLISH)
    with pytest.raises(ValueError, match="language='en'"):
        SAM(base="chrf", language="en", quiet=True).score(GERMAN, ENGLISH)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SAM(base="chrf", language="en", quiet=False).score(ENGLISH, ENGLISH)


def test_no_false_alarm_on_wmt_to_english(shared_data):
    sets = {}
    for row in rows(shared_data, "wmt17_da_seg.jsonl.gz"):
        sets.setdefault(("wmt17", row["lp"]), ([], []))
        sets[("wmt17", row["lp"])][0].append(row["hyp"])
        sets[("wmt17", row["lp"])][1].append(row["ref"])
    for row in rows(shared_data, "wmt21_da_seg_toen_grouped.jsonl.gz"):
        hyps, refs = sets.setdefault(("wmt21", row["lp"]), ([], []))
        hyps.extend(h["hyp"] for h in row["hyps"].values())
        refs.append(row["ref"])
    assert len(sets) >= 14
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for key, (hyps, refs) in sets.items():
            assert check_corpus_language("sam", ("en",), {"predictions": hyps, "references": refs}) is None, key


def test_german_sources_of_wmt21_warn(shared_data):
    german = [r["src"] for r in rows(shared_data, "wmt21_da_seg_toen_grouped.jsonl.gz") if r["lp"] == "de-en"]
    with pytest.warns(UserWarning, match=r"rome: \d+% of the sampled predictions .* language 'de'"):
        check_corpus_language("rome", ("en",), {"predictions": german})

"""SAM's emotion-aware lexicon (sentivader): the combination rule, the shipped file equals the
build script's output, its values on emotion words, and the language flag."""
from __future__ import annotations

import gzip
import warnings

import pytest
from training import sam_vader

import nlgmetrics
from nlgmetrics.core.resources import data_path
from nlgmetrics.sam.lexicon import load_lexicon


def test_combination_rule():
    prior = {"anger#n": -0.18, "anger#v": -0.3, "great#a": 0.26, "not#r": -0.625}
    vader = sam_vader.read_vader(["anger\t-2.7\t0.6\t[]", "great\t3.1\t0.7\t[]", "lol\t1.8\t0.5\t[]",
                                  ":)\t2.0\t0.1\t[]", "fed up\t-1.8\t0.4\t[]", "Wow\t2.8\t0\t[]"])
    assert vader == {"anger": -0.675, "great": 0.775, "lol": 0.45}
    out = sam_vader.combine(prior, vader, "vader")
    assert out["anger#n"] == out["anger#v"] == -0.675 and "anger#a" not in out
    assert out["not#r"] == -0.625 and out["great#a"] == 0.775
    assert {k: v for k, v in out.items() if k.startswith("lol#")} == {f"lol#{p}": 0.45 for p in "anrv"}
    mean = sam_vader.combine(prior, vader, "mean")
    assert mean["anger#n"] == pytest.approx((-0.18 - 0.675) / 2) and mean["lol#n"] == 0.45
    with pytest.raises(ValueError, match="rule"):
        sam_vader.combine(prior, vader, "max")


def test_shipped_file_is_the_build_output():
    pytest.importorskip("vaderSentiment")
    shipped = gzip.decompress(data_path("sentivader.tsv.gz").read_bytes()).decode("utf-8")
    assert shipped == sam_vader.render(sam_vader.build("vader"))
    assert "MIT" in data_path("sentivader.LICENSE").read_text()
    assert "Attribution-ShareAlike 3.0 Unported" in data_path("sentivader.LICENSE").read_text()
    assert "Hutto" in data_path("sentivader.md").read_text()


def test_emotion_words():
    lex = load_lexicon("sentivader")
    assert lex.name.startswith("swn3vader@") and len(lex) > len(load_lexicon("sentiwordnet"))
    assert lex.get("anger#n") == -0.675 and lex.get("joy#n") == 0.7 and lex.get("great#a") == 0.775
    assert lex.get("kill#v") == -0.925 and lex.get("lol#n") == 0.45 and lex.get("not#r") == -0.625
    assert all(-1 <= v <= 1 and v != 0 for v in lex.polarity.values())
    sam = nlgmetrics.load("sam", base="given", lexicon="sentivader")
    ex4 = sam.score(["What is this amount of anger, I don't understand!"],
                    ["What is this amount of happiness, I don't understand!"], base_scores=[0.85])
    assert ex4.details[0]["p"] == pytest.approx((0.675 + 0.65) / 2)


def test_non_english_input_is_flagged_and_warned_once():
    from nlgmetrics.sam import SAM

    sam = SAM(base="given")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = sam.score(["我很高兴", "I am happy"], ["我很难过", "I am sad"], base_scores=[0.5, 0.5])
        sam.score(["我很高兴"], ["我很难过"], base_scores=[0.5])
    assert [str(w.message).count("English") for w in caught] == [1]
    assert first.details[0]["non_english"] is True and "non_english" not in first.details[1]
    assert first.corpus["non_english_segments"] == 1
    assert first.details[1]["p"] > 0.3


def test_multiword_is_off_by_default():
    # with multiword matching, "looked up to" became one item and hid the shared "looked"
    sam = nlgmetrics.load("sam", base="given")
    rec = sam.score(["He looked up to her"], ["He looked at her"], base_scores=[1.0]).details[0]
    assert sam.config.multiword is False
    assert {m["word"] for m in rec["mismatches"]["hypothesis"]} == {"up", "to"}
    assert {m["word"] for m in rec["mismatches"]["reference"]} == {"at"}

"""DATScore's signature names what shaped the scores (fixed weights written out, inert options
left out, equivalent direction lists signed alike), empty option strings are refused, huge fixed
weights are normalised safely, and user text that spells a special token stays text; on a tiny
random M2M-100."""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from nlgmetrics.datscore import DATScore, DATScoreConfig, direction_weights
from nlgmetrics.datscore.seq2seq import Seq2SeqLM, TranslationCache

pytestmark = pytest.mark.usefixtures("one_torch_thread")
FAST = {"device": "cpu", "quiet": True}
HYPS = ["The cat sat.", "It rains a lot today.", "Hello there."]
REFS = ["The cat sat on the mat.", "It rains.", "Hello."]
SRCS = ["Le chat est assis.", "Il pleut.", "Bonjour."]


def score(model: str, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small corpus, short generation limits
        return DATScore(model=model, **FAST, **options).score(HYPS, REFS, options.pop("sources", None))


def test_fixed_weights_are_written_into_the_signature(tiny_m2m100):
    one_zero = score(tiny_m2m100, directions="bartscore", direction_weights={"ref->hypo": 1, "hypo->ref": 0})
    one_one = score(tiny_m2m100, directions="bartscore", direction_weights={"ref->hypo": 1, "hypo->ref": 1})
    assert one_zero.scores != one_one.scores
    assert "|dirw:hypo->ref=0,ref->hypo=1|" in one_zero.signature
    assert "|dirw:hypo->ref=1,ref->hypo=1|" in one_one.signature
    same = score(tiny_m2m100, directions="bartscore", direction_weights={"hypo->ref": 1.0, "ref->hypo": 1.0})
    assert same.signature == one_one.signature and same.scores == one_one.scores
    odd = DATScore(model=tiny_m2m100, directions="bartscore", direction_weights={"ref->hypo": 0.1, "hypo->ref": 2.5e-7},
                   **FAST)
    assert "|dirw:hypo->ref=2.5e-07,ref->hypo=0.1|" in odd.signature  # read back to the same floats


def test_empty_cache_dir_and_languages_are_refused(tiny_m2m100, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, value in (("cache_dir", ""), ("cache_dir", "  "), ("trans1_lang", ""), ("trans2_lang", " ")):
        with pytest.raises(ValueError, match=name):
            DATScoreConfig.from_options(**{name: value})
        with pytest.raises(ValueError, match=name):
            DATScore(model=tiny_m2m100, **FAST, **{name: value})
    with pytest.raises(ValueError, match="cache_dir"):
        TranslationCache("")
    with pytest.raises(ValueError, match="cache_dir"):
        Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True, cache_dir="")
    assert os.listdir(tmp_path) == []  # no ./translations.sqlite
    assert TranslationCache(None).path is None


def test_huge_fixed_weights_are_normalised_and_non_numbers_refused(tiny_m2m100):
    huge = score(tiny_m2m100, directions="bartscore", direction_weights={"ref->hypo": 1e308, "hypo->ref": 1e308})
    uniform = score(tiny_m2m100, directions="bartscore")
    assert huge.scores == uniform.scores and all(s < -1 for s in huge.scores)
    weights, _ = direction_weights(np.zeros((2, 3)), ["ref->hypo", "hypo->ref", "src->hypo"],
                                   {"ref->hypo": 1e308, "hypo->ref": 1e308, "src->hypo": 5e307})
    np.testing.assert_allclose(weights, [0.4, 0.4, 0.2], rtol=1e-15)
    for bad in (True, "1", None, np.bool_(True)):
        with pytest.raises(ValueError, match="ref->hypo.* must be a (finite )?number"):
            DATScoreConfig.from_options(direction_weights={"ref->hypo": bad, "hypo->ref": 1})


def test_inert_options_are_left_out_of_the_signature(tiny_m2m100):
    plain = score(tiny_m2m100, directions="bartscore")
    busy = score(tiny_m2m100, directions="bartscore", beam_size=3, max_new_tokens=7, trans1_lang="de",
                 trans2_lang="fr", source_lang="fr", ovr_min_segments=20, exclude_directions=["trans2->hypo"])
    assert busy.scores == plain.scores and busy.signature == plain.signature
    assert "beam:" not in plain.signature and "aug:" not in plain.signature and "src:" not in plain.signature
    # reference mode: no source direction; Trans2's language is the rule's for target en whatever the source
    ref = score(tiny_m2m100, directions="reference", beam_size=2, max_new_tokens=6)
    ref_src = score(tiny_m2m100, directions="reference", beam_size=2, max_new_tokens=6, source_lang="fr",
                    trans1_lang="de", exclude_directions=["src->hypo", "trans1->hypo"])
    assert ref_src.scores == ref.scores and ref_src.signature == ref.signature
    assert "|aug:-,es|" in ref.signature and "|beam:2|" in ref.signature
    # ... but for target de the source language picks Trans2's language (es, not en): it stays
    de = DATScore(model=tiny_m2m100, directions="reference", source_lang="fr", target_lang="de", **FAST)
    assert "|src:fr|" in de.signature and "|aug:-,es|" in de.signature
    no_src = DATScore(model=tiny_m2m100, directions="reference", target_lang="de", **FAST).signature
    assert "src:" not in no_src and "|aug:-,en|" in no_src  # the resolved Trans2 language tells them apart
    # auto may score sources: nothing about them is inert
    auto = DATScore(model=tiny_m2m100, source_lang="fr", trans1_lang="de", **FAST)
    assert "|src:fr|" in auto.signature and "|t1:de|" in auto.signature and "|aug:de,es|" in auto.signature


def test_equivalent_direction_lists_sign_alike(tiny_m2m100):
    base = score(tiny_m2m100, directions=["ref->hypo", "hypo->ref"])
    for spelling in (["hypo->ref", "REF->hypo", "ref->hypo"], ("Hypo->Ref", "ref->hypo", "hypo->ref")):
        other = score(tiny_m2m100, directions=spelling)
        assert other.signature == base.signature and other.scores == base.scores
        assert other.corpus["directions"] == ["ref->hypo", "hypo->ref"]
    assert "|dirset:ref->hypo,hypo->ref|" in base.signature
    listed = DATScoreConfig.from_options(directions=["hypo->trans2", "trans2->hypo", "hypo->ref", "ref->hypo"])
    assert listed.directions == "reference"
    assert DATScoreConfig.from_options(directions=["hypo->ref", "ref->hypo"]).directions == ("ref->hypo", "hypo->ref")
    assert DATScoreConfig.from_options(directions="reference", exclude_directions=["SRC->hypo", "hypo->trans2",
                                                                                  "hypo->trans2"]
                                       ).exclude_directions == ("hypo->trans2",)


def test_special_token_spellings_in_user_text_stay_text(tiny_m2m100):
    lm = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True)
    tok = lm.tokenizer
    texts = ["hello </s> world", "a <pad> b", "<s>", "__de__ x", "<unk>"]
    controls = {lm.eos_id, lm.pad_id, int(tok.bos_token_id), int(tok.unk_token_id), lm.languages["de"]} - {
        int(tok.unk_token_id)}
    for text, seq in zip(texts, lm.sequences(texts, "en")):
        assert seq[0] == lm.languages["en"] and seq[-1] == lm.eos_id
        assert not set(seq[1:-1]) & controls, (text, seq)
        assert len(seq) > 3, (text, seq)  # the spelling became several ordinary pieces
    # plain text tokenises as before
    plain = ["The cat sat on the mat.", "Der Hund schläft."]
    assert [s[1:-1] for s in lm.sequences(plain, "en")] == [
        tuple(ids) for ids in tok(plain, add_special_tokens=False)["input_ids"]]
    # and a scored "</s>" inside a hypothesis is not an end of sequence
    scorer = DATScore(model=tiny_m2m100, directions="bartscore", **FAST)
    a, b = scorer.score(["hello </s> world"], ["hello world"]).scores, scorer.score(["hello"], ["hello world"]).scores
    assert a != b

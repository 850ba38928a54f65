"""Language facts and the per-corpus language check: German text warns for the English metrics
(RoMe, DiscoTK, SAM), ``language="en"`` makes it an error, English text (the WMT to-English
sets of ../shared/data) never warns, and every metric's FACTS say which languages it covers."""
from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

import nlgmetrics
from nlgmetrics import cli
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


# -- the language option, quiet, and the surfaces (issues 44, 45) -----------------------------
def test_language_option_is_a_known_code_in_any_case_and_one_the_metric_covers():
    from nlgmetrics.core.language import ISO_639_1
    from nlgmetrics.sam import SAMConfig

    assert SAMConfig(language="EN").language == "en" and SAMConfig(language=" en ").language == "en"
    assert SAMConfig(language="EN").key() == SAMConfig(language="en").key()  # one scorer for both spellings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # valid English with language="EN": no error, no warning
        SAM(base="chrf", language="EN").score(ENGLISH, ENGLISH)
    for bad in ("klingon", "eng", "en-US", "xx", ""):
        with pytest.raises(ValueError, match=rf"^language={bad!r} is not a known ISO 639-1 language code "
                                             r"\(two letters, e\.g\. 'en', 'de'\)$"):
            SAMConfig(language=bad)
    for scorer in (SAM, RoMe, DiscoTK):  # German is a language, but not one these resources cover
        with pytest.raises(ValueError, match=rf"^language='de': {scorer.name}'s resources cover 'en' only \(English"
                                             r".*\); leave language unset to score other text anyway, with a warning$"):
            scorer.Config(language="DE")
    with pytest.raises(ValueError, match="language='de': sam's resources cover 'en' only"):
        nlgmetrics.score("sam", GERMAN, GERMAN, base="chrf", language="de")
    # the table holds every language langdetect knows (its profiles, an independent list)
    import langdetect

    profiles = Path(langdetect.__file__).parent / "profiles"
    known = {p.name.split("-")[0] for p in profiles.iterdir()}
    assert len(known) > 50 and known <= ISO_639_1 and len(ISO_639_1) == 184
    assert not {"tlh", "iw", "eng", "zz"} & ISO_639_1


@pytest.mark.parametrize("scorer", [RoMe, DiscoTK, SAM])
def test_quiet_does_not_silence_the_language_warning(scorer):
    obj = scorer.__new__(scorer)  # the check needs the configuration, not the models
    obj.config, obj.quiet = scorer.Config(), True
    with pytest.warns(UserWarning, match=rf"^{scorer.name}: 100% of the sampled predictions \(12 of 12\) look like "
                                         "language 'de'"):
        obj.check_language(SimpleNamespace(predictions=GERMAN * 4, references=ENGLISH * 4))


def test_quiet_does_not_silence_the_warnings_of_a_scored_corpus():
    with pytest.warns(UserWarning, match="sam: 100% of the sampled predictions .* language 'de'"):
        SAM(base="chrf", quiet=True).score(GERMAN, ENGLISH)
    with pytest.warns(UserWarning, match="English"):  # the per-segment script check too
        SAM(base="given", quiet=True).score(["我很高兴我很高兴"], ["我很难过我很难过"], base_scores=[0.5])
    with pytest.warns(UserWarning, match="sam: 100% of the sampled predictions of B"):
        nlgmetrics.compare("sam", {"A": ENGLISH * 4, "B": GERMAN * 4}, ENGLISH * 4, base="chrf", quiet=True,
                           resamples=0, trials=0)


def test_every_python_surface_honours_language():
    from nlgmetrics.core.language import LanguageError

    message = r"sam: 100% of the sampled predictions (of B )?\(12 of 12\) look like language 'de'.*; language='en' "
    with pytest.raises(LanguageError, match=message):
        nlgmetrics.compare("sam", {"A": ENGLISH * 4, "B": GERMAN * 4}, ENGLISH * 4, base="chrf", language="EN")
    with pytest.raises(LanguageError, match=message):
        nlgmetrics.meta_eval("sam", GERMAN * 4, ENGLISH * 4, human=[0.5] * 12, systems=["A", "B", "C"] * 4,
                             base="chrf", language="en", bootstrap=0)
    from nlgmetrics.integrations.distributed import score_shard

    with pytest.raises(LanguageError, match=message):
        score_shard(nlgmetrics.load("sam", base="chrf", language="en"), GERMAN * 4, ENGLISH * 4, shard=(1, 2))


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_the_command_line_samples_as_python_does(tmp_path):
    """400 lines, every tenth sampled: ten of the 40 sampled are German (25%, the threshold),
    the rest English; the command line reads the same sample from the file as
    ``nlgmetrics.score`` takes of the list, so both refuse with the same counts."""
    from nlgmetrics.cli import common, score
    from nlgmetrics.core.language import LanguageError, sample_positions

    texts = [GERMAN[k % 3] if k % 10 == 0 and k < 100 else f"{ENGLISH[k % 3]} ({k})" for k in range(400)]
    texts[1] = "ca\u200bt " + texts[1]  # normalised by both (a zero-width space)
    path = _write(tmp_path / "mixed.txt", texts)
    cls = nlgmetrics.scorer_class("sam")
    inputs = score.check_inputs(cls, SimpleNamespace(predictions=path, references=[path], sources=None),
                                cls.Config(base="chrf"))
    sample = inputs.language_sample()
    assert sample["predictions"] == sample["references"] == [texts[k] for k in sample_positions(400)]
    with pytest.raises(LanguageError) as python:
        nlgmetrics.score("sam", texts, texts, base="chrf", language="en")
    assert "25% of the sampled predictions (10 of 40) look like language 'de'" in str(python.value)
    with pytest.raises(common.CLIError) as command:
        cli.main(["score", "sam", "-p", path, "-r", path, "--base", "chrf", "--language", "en", "-q"])
    assert command.value.code == 2
    assert command.value.message == str(python.value).replace("language='en'", "--language en")


def test_the_command_line_honours_language(tmp_path, capsys):
    german, english = _write(tmp_path / "de.txt", GERMAN * 4), _write(tmp_path / "en.txt", ENGLISH * 4)
    for argv, message in [
        (["score", "sam", "-p", german, "-r", german, "--language", "en", "--base", "chrf"],
         "error: sam: 100% of the sampled predictions (12 of 12) look like language 'de', but its resources cover "
         "en; --language en requires 'en' text"),
        (["score", "rome", "-p", german, "-r", german, "--language", "en"],
         "error: rome: 100% of the sampled predictions (12 of 12) look like language 'de'"),
        (["score", "sam", "-p", german, "-r", german, "--language", "de", "--base", "chrf"],
         "error: language='de': sam's resources cover 'en' only"),
        (["score", "sam", "-p", english, "-r", english, "--language", "klingon", "--base", "chrf"],
         "error: language='klingon' is not a known ISO 639-1 language code"),
        (["compare", "sam", "-p", english, "-p", german, "-r", english, "--language", "en", "--base", "chrf"],
         "error: sam: 100% of the sampled predictions of de.txt (12 of 12) look like language 'de'"),
    ]:
        with pytest.raises(SystemExit) as info:
            cli.main([*argv, "-q"])
        assert info.value.code == 2 and capsys.readouterr().err.startswith(message), argv
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"hyp": h, "ref": h, "human": k % 3, "system": "AB"[k % 2]}) + "\n"
                            for k, h in enumerate(GERMAN * 4)))
    with pytest.raises(SystemExit) as info:
        cli.main(["meta-eval", "sam", str(rows), "--human", "human", "--base", "chrf", "--language", "en", "-q"])
    assert info.value.code == 2 and "error: sam: 100% of the sampled predictions (12 of 12)" in capsys.readouterr().err
    with pytest.warns(UserWarning, match="sam: 100% of the sampled predictions .* language 'de'"):
        assert cli.main(["score", "sam", "-p", german, "-r", german, "--base", "chrf", "-q"]) == 0
    assert capsys.readouterr().out.startswith("100.0000\t")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cli.main(["score", "sam", "-p", english, "-r", english, "--base", "chrf", "--language", "EN", "-q"]) == 0

"""SAM on every scale: the penalty never rises with p (hypothesis), equals the paper's
C * (1 - p) on 0-1 and 0-100 bases, pushes negative scores down, and given scores outside
their scale are refused with an error naming base_range."""
from __future__ import annotations

import json

import pytest
from hypothesis import given as hgiven
from hypothesis import settings
from hypothesis import strategies as st

import nlgmetrics
from nlgmetrics.sam import SAM, SAMConfig, adjust

HYP, REF = "The film was terrible.", "The film was great."
LEX = {"terrible#a": -0.8, "great#a": 0.8}
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
unit = st.floats(min_value=0.0, max_value=1.0)


@settings(max_examples=300, deadline=None)
@hgiven(low=finite, width=st.floats(min_value=1e-3, max_value=1e6), t=unit, p1=unit, p2=unit)
def test_adjusted_score_never_rises_with_p(low, width, t, p1, p2):
    base = low + t * width  # any base value inside [low, low + width]
    p1, p2 = min(p1, p2), max(p1, p2)
    assert adjust(base, p2, low) <= adjust(base, p1, low)
    assert low - 1e-9 * max(1.0, abs(low)) <= adjust(base, p2, low) <= base


@settings(max_examples=200, deadline=None)
@hgiven(base=finite, p1=unit, p2=unit)
def test_any_sign_never_rises_with_p_anchored_at_zero(base, p1, p2):
    p1, p2 = min(p1, p2), max(p1, p2)
    assert adjust(base, p2) <= adjust(base, p1) <= base


@settings(max_examples=200, deadline=None)
@hgiven(base=unit, p=unit)
def test_equals_the_paper_on_unit_and_percent_scales(base, p):
    assert adjust(base, p) == pytest.approx(base * (1 - p), abs=1e-12)
    assert adjust(100 * base, p) == pytest.approx(100 * base * (1 - p), abs=1e-9)
    assert adjust(100 * base, p, 0.0) == pytest.approx(100 * adjust(base, p), abs=1e-9)


def test_negative_given_scores_go_down_not_up():
    # the case: base -0.5 on a [-1, 1] scale, a flipped sentiment word
    sam = nlgmetrics.load("sam", base="given", base_range=(-1, 1), lexicon=LEX)
    flipped, same = sam.score([HYP, REF], [REF, REF], base_scores=[-0.5, -0.5]).scores
    assert same == -0.5
    p = 0.8  # |(-0.8) - 0.8| / 2
    assert flipped == pytest.approx(-1 + (-0.5 + 1) * (1 - p))
    assert flipped < same
    # a [0, 100] caller scale behaves like BLEU/chrF: C * (1 - p)
    percent = nlgmetrics.load("sam", base="given", base_range=(0, 100), lexicon=LEX)
    assert percent.score([HYP], [REF], base_scores=[80.0]).scores == pytest.approx([80 * (1 - p)])
    result = percent.score([HYP], [REF], base_scores=[80.0])
    assert result.corpus["scale"] == "0 to 100" and "range:0.0,100.0" in result.signature


def test_given_scores_outside_the_scale_are_refused():
    sam = nlgmetrics.load("sam", base="given")
    with pytest.raises(ValueError, match=r"base_scores\[1\] = -0.5 lies outside \[0, 1\]; set base_range"):
        sam.score([HYP, HYP], [REF, REF], base_scores=[0.5, -0.5])
    with pytest.raises(ValueError, match=r"outside \[0, 100\]"):
        nlgmetrics.load("sam", base="given", base_range=[0, 100]).score([HYP], [REF], base_scores=[101])
    for bad in ([1, 0], [0, float("inf")], [0], "0,1", [0, "x"], [-1e308, 1e308]):  # the last: width overflows
        with pytest.raises(ValueError, match="base_range"):
            SAM(base="given", base_range=bad)
    # a mapping's keys, booleans and numeric strings are not scores
    import numpy as np

    for bad, message in [({0: 0.9}, "got dict: a mapping iterates its keys"), ([True], r"base_scores\[0\] is not a number"),
                         ([np.True_], r"base_scores\[0\] is not a number"),
                         (["0.5"], r"base_scores\[0\] is not a number")]:
        with pytest.raises(ValueError, match=message):
            sam.score([HYP], [REF], base_scores=bad)
    # numpy and torch scalars are numbers
    assert sam.score([HYP, HYP], [REF, REF], base_scores=[np.float32(0.5), np.array(0.5)]).details[0]["base"] == 0.5
    with pytest.raises(ValueError, match="base_range applies to base='given'"):
        SAMConfig(base="bleu", base_range=(0, 100))


def test_builtin_percent_scale_is_the_papers_formula():
    result = nlgmetrics.score("sam", [HYP], [REF], base="chrf", lexicon=LEX)
    rec = result.details[0]
    assert rec["p"] == pytest.approx(0.8)
    assert result.scores[0] == pytest.approx(rec["base"] * 0.2)
    assert result.corpus["scale"] == "0-100" and rec["base"] > 50


def test_given_scores_travel_in_records_and_shards():
    from nlgmetrics.integrations import distributed

    sam = nlgmetrics.load("sam", base="given", lexicon=LEX)
    hyps, refs, bases = [HYP, REF, HYP], [REF, REF, HYP], [0.9, 0.8, 0.7]
    whole = sam.score(hyps, refs, base_scores=bases)
    shards = [distributed.score_shard(sam, hyps, refs, None, shard=(k, 2), base_scores=bases) for k in (1, 2)]
    merged = sam.reduce(shards[1] + shards[0])
    assert merged.scores == whole.scores and [d["base"] for d in merged.details] == bases
    assert whole.scores == pytest.approx([0.9 * 0.2, 0.8, 0.7])


def test_encoder_options_leave_the_signature_when_no_encoder_runs():
    """dtype shapes BERTScore only: with another base it is accepted (a shared option set may
    carry the runtime's precision) but does not enter the signature, which names what shaped the
    scores; nor does the default profile."""
    plain, tuned = SAM(base="chrf", quiet=True), SAM(base="chrf", dtype="bf16", quiet=True)
    assert plain.signature == tuned.signature and "profile" not in tuned.signature
    assert SAMConfig(base="bertscore", profile="lite", dtype="bf16").signature_fields()["profile"] == "lite"


@pytest.mark.parametrize("base", ["bleu", "chrf", "meteor", "given"])
def test_a_profile_that_changes_nothing_for_the_base_is_an_error(base, capsys):
    """``--profile lite`` chooses the BERTScore encoder: with another base it did nothing, silently."""
    with pytest.raises(ValueError, match=f"profile='lite' chooses the BERTScore encoder and changes nothing for "
                                         f"base='{base}'.*set base='bertscore'"):
        SAMConfig(base=base, profile="lite")
    assert SAMConfig(base=base, profile="paper").profile == "paper"  # the default, spelled out
    code, err = _cli_error(capsys, ["score", "sam", "-p", "h.txt", "-r", "r.txt", "--base", base, "--profile", "lite"])
    assert code == 2 and err.startswith("error: profile='lite'") and f"base='{base}'" in err


def _cli_error(capsys, argv):
    from nlgmetrics import cli

    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err.strip()
    return info.value.code, err


def test_cli_given_score_errors_are_usage_errors_before_loading(tmp_path, capsys, monkeypatch):
    """On the command line a misplaced, missing or out-of-range --base-scores is a usage error
    (exit 2) found before SAM builds anything, and the message names the CLI's flags."""
    monkeypatch.setattr(SAM, "setup", lambda self: pytest.fail("SAM was built before the inputs were checked"))
    hyp, ref, base = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "b.txt"
    hyp.write_text(f"{HYP}\n{REF}\n")
    ref.write_text(f"{REF}\n{REF}\n")
    base.write_text("0.5\n50\n")
    argv = ["score", "sam", "-p", str(hyp), "-r", str(ref)]
    code, err = _cli_error(capsys, argv + ["--base", "chrf", "--base-scores", str(base)])
    assert code == 2 and err == "error: --base-scores FILE is for --base given only; --base chrf computes its own base scores"
    code, err = _cli_error(capsys, argv + ["--base", "given"])
    assert code == 2 and err == "error: --base given takes the base scores from the caller: --base-scores FILE"
    code, err = _cli_error(capsys, argv + ["--base", "given", "--base-scores", str(base)])
    assert code == 2 and err.startswith(f'error: {base}, line 2 = 50.0 lies outside [0, 1]; set --base-range "(low, high)"')
    # the Python spelling stays Python's
    with pytest.raises(ValueError, match=r"base='given' takes the base scores from the caller: score\(predictions"):
        SAM.check_extra_names(SAMConfig(base="given"), ())


def test_cli_takes_base_range_as_the_hint_spells_it(tmp_path, capsys):
    """The out-of-range hint says base_range=(low, high): the option parser takes a tuple
    option in that spelling as well as in JSON's [low, high]."""
    from nlgmetrics import cli

    spec = SAMConfig.spec("base_range")
    assert spec.parse("(0, 100)") == spec.parse("[0, 100]") == [0, 100]
    assert spec.parse(" (-1.5,1) ") == [-1.5, 1]
    assert spec.parse("(-.5, 5)") == spec.parse("[-.5, 5]") == [-0.5, 5]  # Python's number forms too (JSON refused them)
    assert spec.parse("(__import__('os'), 1)") == "(__import__('os'), 1)"  # a literal or nothing: left for the type check
    assert SAMConfig.from_options(**SAMConfig.parse_options({"base": "given", "base_range": "(-1, 1)"})).base_range \
        == (-1.0, 1.0)
    hyp, ref, base = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "b.txt"
    hyp.write_text(f"{HYP}\n")
    ref.write_text(f"{REF}\n")
    base.write_text("80\n")
    argv = ["score", "sam", "-p", str(hyp), "-r", str(ref), "--base", "given", "--base-scores", str(base),
            "-o", f"lexicon={json.dumps(LEX)}", "--json", "-q"]
    assert cli.main(argv + ["-o", "base_range=(0, 100)"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == pytest.approx([80 * 0.2])


def test_top_level_score_passes_per_segment_inputs():
    """nlgmetrics.score hands the metric's declared per-segment inputs (SAM's base_scores) to
    score() and the rest to the configuration; unknown names are still refused."""
    got = nlgmetrics.score("sam", [HYP, REF], [REF, REF], base="given", base_scores=[0.9, 0.8], lexicon=LEX)
    want = SAM(base="given", lexicon=LEX).score([HYP, REF], [REF, REF], base_scores=[0.9, 0.8])
    assert got.scores == want.scores == pytest.approx([0.9 * 0.2, 0.8])
    with pytest.raises(ValueError, match="unknown option 'bogus'"):
        nlgmetrics.score("sam", [HYP], [REF], base="given", base_scores=[0.9], lexicon=LEX, bogus=1)
    with pytest.raises(ValueError, match=r"base_scores=\[\.\.\.\]\) is for base='given' only"):
        nlgmetrics.score("sam", [HYP], [REF], base="chrf", base_scores=[0.9], lexicon=LEX)


def test_the_space_sends_its_profile_only_where_it_applies():
    """The SAM Space always shows a profile setting (lite offline): it is dropped for a base that
    uses no model, so the page's defaults are not refused."""
    from nlgmetrics.space.runtime import detect_runtime
    from nlgmetrics.space.settings import ScorerPool

    pool, runtime = ScorerPool("sam"), detect_runtime(())
    assert pool.resolve({"profile": "lite", "base": "meteor"}, {}, runtime).dropped == ("profile",)
    assert pool.resolve({"profile": "lite", "base": "bertscore"}, {}, runtime).config.profile == "lite"

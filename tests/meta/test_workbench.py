"""Scoring a whole EvalSet (nlgmetrics.workbench.score_evalset and ``nlgmetrics score METRIC
--mtme DIR``): every system for each reference, the other references as systems on request,
segment / document / system files in mt-metrics-eval's layout equal to scoring each system
alone, a resumed run skipping what is written under the same signature with identical files,
shards that together write what one run writes."""
from __future__ import annotations

import json
import os

import pytest

import nlgmetrics
from nlgmetrics import workbench
from nlgmetrics.meta import mtme
from tests.meta.test_mtme import SYSTEMS, build_evalset, wmt21_rows
from tests.surfaces.harness import run_cli


@pytest.fixture
def evalset(tmp_path):
    rows = wmt21_rows(n=8)
    root = build_evalset(tmp_path / "wmt21", rows)
    (root / "references" / "de-en.refB.txt").write_text("".join(r["hyps"]["Online-W"]["hyp"] + "\n" for r in rows),
                                                       encoding="utf-8")
    return root, rows


def files_of(out):
    folder = out / "metric-scores" / "de-en"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.name.startswith(".")}


def test_every_system_for_each_reference_equals_scoring_it_alone(evalset, tmp_path):
    root, rows = evalset
    out = tmp_path / "out"
    call = workbench.resolve_spec("chrf")
    done = workbench.score_evalset(call, str(root), "de-en", str(out), name="chrF", quiet=True)
    assert sorted(done.scored) == sorted([("refA", s) for s in SYSTEMS] + [("refB", s) for s in SYSTEMS]
                                         + [("refB", "refA")])  # refA's own file is a system for refB only
    seg = mtme.read_score_file(str(out / "metric-scores/de-en/chrF-refA.seg.score"), human=False)
    sys_ = mtme.read_score_file(str(out / "metric-scores/de-en/chrF-refA.sys.score"), "sys", human=False)
    doc = mtme.read_score_file(str(out / "metric-scores/de-en/chrF-refA.doc.score"), "doc", human=False)
    refs = [r["ref"] for r in rows]
    for system in SYSTEMS:
        hyps = [r["hyps"][system]["hyp"] for r in rows]
        alone = nlgmetrics.score("chrf", hyps, refs)
        assert seg[system] == alone.scores and sys_[system] == [alone.score]
        # two documents of four segments: each its corpus chrF
        assert doc[system] == [nlgmetrics.score("chrf", hyps[:4], refs[:4]).score,
                               nlgmetrics.score("chrf", hyps[4:], refs[4:]).score]
    assert "refB" not in seg  # without --ref-as-system a reference is no system
    with_refs = tmp_path / "with-refs"
    workbench.score_evalset(call, str(root), "de-en", str(with_refs), name="chrF", refs=["refA"],
                            ref_as_system=True, quiet=True)
    seg = mtme.read_score_file(str(with_refs / "metric-scores/de-en/chrF-refA.seg.score"), human=False)
    assert seg["refB"] == nlgmetrics.score("chrf", [r["hyps"]["Online-W"]["hyp"] for r in rows], refs).scores


def test_a_resumed_run_skips_finished_systems_and_gives_identical_files(evalset, tmp_path):
    root, _ = evalset
    out = tmp_path / "out"
    call = workbench.resolve_spec("bleu")
    first = workbench.score_evalset(call, str(root), "de-en", str(out), name="BLEU", refs=["refA"], quiet=True)
    written = files_of(out)
    assert set(written) == {"BLEU-refA.seg.score", "BLEU-refA.doc.score", "BLEU-refA.sys.score",
                            "BLEU-refA.signatures.json"}
    again = workbench.score_evalset(call, str(root), "de-en", str(out), name="BLEU", refs=["refA"], quiet=True)
    assert again.scored == [] and sorted(again.skipped) == sorted(first.scored)
    assert files_of(out) == written
    # an interrupted run: one system's signature gone (as if it had not finished) is scored again
    signatures = json.loads(written["BLEU-refA.signatures.json"])
    del signatures["Online-B"]
    (out / "metric-scores/de-en/BLEU-refA.signatures.json").write_text(json.dumps(signatures))
    resumed = workbench.score_evalset(call, str(root), "de-en", str(out), name="BLEU", refs=["refA"], quiet=True)
    assert resumed.scored == [("refA", "Online-B")] and files_of(out) == written
    # other options: another signature, every system scored again
    other = workbench.score_evalset(workbench.resolve_spec("bleu:lowercase=true"), str(root), "de-en", str(out),
                                    name="BLEU", refs=["refA"], quiet=True)
    assert len(other.scored) == len(SYSTEMS) and "|lc:yes|" in other.signature or "lc" in other.signature


def test_shards_write_what_one_run_writes(evalset, tmp_path):
    root, _ = evalset
    call = workbench.resolve_spec("chrf")
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    workbench.score_evalset(call, str(root), "de-en", str(whole), name="chrF", quiet=True)
    for k in (1, 2, 3):
        workbench.score_evalset(call, str(root), "de-en", str(parts), name="chrF", shard=(k, 3), quiet=True)
    assert files_of(parts) == files_of(whole)


def test_the_cli_scores_an_evalset_and_resumes(evalset, tmp_path):
    root, rows = evalset
    out = tmp_path / "out"
    argv = ["score", "sam", "--mtme", str(root), "--lp", "de-en", "--ref", "refA", "--mtme-out", str(out),
            "--base", "chrf", "--quiet"]
    code, _, err = run_cli(argv)
    assert code == 0, err
    seg = mtme.read_score_file(str(out / "metric-scores/de-en/sam_base=chrf-refA.seg.score"), human=False)
    hyps = [r["hyps"]["Online-A"]["hyp"] for r in rows]
    assert seg["Online-A"] == nlgmetrics.score("sam", hyps, [r["ref"] for r in rows], base="chrf").scores
    code, _, err = run_cli(argv)
    assert code == 0 and f"skipped {len(SYSTEMS)} systems already scored" in err, err


@pytest.mark.parametrize("argv, message", [
    (["--mtme", "{root}", "--lp", "de-en", "--mtme-out", "{out}", "-p", "x.txt"], "--mtme reads the outputs"),
    (["--mtme", "{root}", "--lp", "de-en"], "--mtme needs --mtme-out"),
    (["--mtme", "{root}", "--mtme-out", "{out}"], "--mtme needs --lp"),
    (["--mtme", "{root}", "--lp", "de-en", "--mtme-out", "{out}", "--ref", "refZ"], "no references/de-en.refZ.txt"),
    (["--mtme", "{root}", "--lp", "de-en", "--mtme-out", "{out}", "--metric-name", "../x"], "--metric-name"),
])
def test_cli_usage_errors_are_one_line(evalset, tmp_path, argv, message):
    root, _ = evalset
    argv = [a.format(root=root, out=tmp_path / "out") for a in argv]
    code, _, err = run_cli(["score", "chrf", *argv])
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and message in lines[0], err
    assert not os.path.exists(tmp_path / "x")

"""A sixth metric added by writing only its tree (tests/toy_tree.py: its package with config.py's
FACTS, PRESETS and EXAMPLE; its evaluate module; its Space) and joining it by one registry line
and its tree's folder: every surface works for it with nothing else changed: Python (score,
compare, meta_eval), the CLI (score, list, demo, tree files), the evaluate module and the Space,
both found by name. The toy scores unigram precision (hand-computable): per segment the share of
the hypothesis' tokens that occur in the reference, times ``scale``; the corpus score is the mean.
The surface harness (tests/surfaces) runs the same toy through every surface."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics import cli, registry
from nlgmetrics.core.facts import TreeFiles
from nlgmetrics.core.resampling import reduce_each
from tests.toy_tree import NAME

HYPS = ["the cat sat", "a dog ran off", "nothing here", "the the cat"]
REFS = ["the cat sat down", "the dog ran", "something else", "a cat"]
EXPECTED = [1.0, 2 / 4, 0.0, 1 / 3]  # tokens of the hypothesis found in the reference


TREE_READER = '''
"""The toy's tree files: a bracketed word list, "(w1 w2 ...)"."""


def read_tree(text):
    text = text.strip()
    if not text:
        return None
    if not (text.startswith("(") and text.endswith(")")):
        raise ValueError(f"line 1, column 1: a toy tree starts with ( and ends with ), got {text[:1]!r}")
    return text[1:-1].split()
'''


@pytest.fixture
def toysix_trees(toysix, monkeypatch):
    """The toy declaring tree files (.tree, read by toysix/trees.py) in its FACTS: nothing else."""
    (toysix / "trees.py").write_text(textwrap.dedent(TREE_READER), encoding="utf-8")
    import dataclasses
    import importlib

    config = importlib.import_module(f"{NAME}.config")
    facts = dataclasses.replace(config.FACTS, tree_files=TreeFiles(".tree", 40, "toy tree", f"{NAME}.trees:read_tree"))
    monkeypatch.setattr(config, "FACTS", facts)
    return toysix


def test_cli_tree_files_are_a_fact_of_the_metric(toysix_trees, tmp_path, capsys):
    hyp, ref = tmp_path / "hyp", tmp_path / "ref"
    for folder, texts in ((hyp, HYPS[:2]), (ref, REFS[:2])):
        folder.mkdir()
        for k, text in enumerate(texts):
            (folder / f"{k}.tree").write_text(f"({text})", encoding="utf-8")
    assert cli.main(["score", NAME, "-p", str(hyp), "-r", str(ref), "--json"]) == 0
    # the tree file's text is the segment: "(the cat sat)" against "(the cat sat down)"
    assert json.loads(capsys.readouterr().out)["scores"] == pytest.approx([2 / 3, 1 / 4])
    (hyp / "1.tree").write_text("a dog", encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        cli.main(["score", NAME, "-p", str(hyp), "-r", str(ref)])
    assert info.value.code == 2
    assert "1.tree: line 1, column 1: a toy tree starts with (" in capsys.readouterr().err
    (hyp / "1.tree").write_text("(" + "x " * 30 + ")", encoding="utf-8")
    with pytest.raises(SystemExit):
        cli.main(["score", NAME, "-p", str(hyp), "-r", str(ref)])
    assert "toysix reads toy tree files of at most 40" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["score", NAME, "--help"])
    assert "or toy trees, one segment per file: a folder of .tree files" in " ".join(capsys.readouterr().out.split())


def _lines(path, lines):
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def test_python_score_compare_and_meta_eval(toysix):
    result = nlgmetrics.score(NAME, HYPS, REFS)
    assert result.scores == pytest.approx(EXPECTED, abs=1e-12)
    assert result.score == pytest.approx(sum(EXPECTED) / 4, abs=1e-12)
    assert nlgmetrics.score(NAME, HYPS, REFS, scale=2.0).scores == pytest.approx([2 * s for s in EXPECTED])
    better = ["the cat sat", "the dog ran", "something else", "a cat"]  # every system B token known
    comparison = nlgmetrics.compare(NAME, {"A": HYPS, "B": better}, REFS, resamples=50, trials=50)
    assert comparison.systems[1].diff == pytest.approx(1.0 - sum(EXPECTED) / 4, abs=1e-12)
    scorer, positions = nlgmetrics.load(NAME), np.array([[0, 0, 3, 1], [2, 1, 1, 3]])
    records = scorer.segment_records(scorer.validate(HYPS, REFS))
    assert scorer.resampler(records)(positions) == pytest.approx([
        (2 * EXPECTED[0] + EXPECTED[3] + EXPECTED[1]) / 4, (EXPECTED[2] + 2 * EXPECTED[1] + EXPECTED[3]) / 4])
    assert scorer.resampler(records)(positions) == pytest.approx(reduce_each(scorer, records)(positions))
    out = nlgmetrics.meta_eval(NAME, HYPS, REFS, human=[3.0, 2.0, 0.0, 1.0], systems=["A", "A", "B", "B"],
                               items=[1, 2, 1, 2], bootstrap=0)
    assert out["metric"] == NAME and NAME in out["signature"]
    # the toy's scores order the four rows as the human scores do: perfect segment-level Kendall
    assert out["item"]["tie_calibrated_accuracy"]["value"] == pytest.approx(1.0)


def test_cli_score_list_and_demo(toysix, tmp_path, capsys, monkeypatch):
    hyp, ref = _lines(tmp_path / "hyp.txt", HYPS), _lines(tmp_path / "ref.txt", REFS)
    assert cli.main(["score", NAME, "-p", hyp, "-r", ref, "--scale", "2", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["scores"] == pytest.approx([2 * s for s in EXPECTED], abs=1e-12)
    monkeypatch.setattr(registry, "REGISTRY", {NAME: registry.REGISTRY[NAME]})  # list and demo: the toy alone
    assert cli.main(["list"]) == 0
    assert capsys.readouterr().out.startswith(f"{NAME:9s} ToySix: unigram precision — every option: offline")
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    demo = nlgmetrics.score(NAME, *registry.example(NAME).inputs.values())
    assert out.startswith(f"{NAME}: {demo.score:.4f}  {demo.signature}\n")
    assert f"the same with: nlgmetrics score {NAME} -p HYPS -r REFS" in out


def test_evaluate_module(toysix, tmp_path):
    evaluate = pytest.importorskip("evaluate")
    folder = nlgmetrics.metric_path(NAME)  # found by name in the toy's tree
    assert folder == str(toysix.parent / "metrics" / NAME)
    out = evaluate.load(folder).compute(predictions=HYPS, references=REFS)
    assert out["scores"] == pytest.approx(EXPECTED, abs=1e-12)
    double = evaluate.load(folder, "double").compute(predictions=HYPS, references=REFS)
    assert double["scores"] == pytest.approx([2 * s for s in EXPECTED], abs=1e-12)
    offset = evaluate.load(folder).compute(predictions=HYPS, references=REFS, offsets=[1.0, 0.0, 0.0, 0.0])
    assert offset["scores"] == pytest.approx([EXPECTED[0] + 1.0, *EXPECTED[1:]], abs=1e-12)


def test_space_page(toysix):
    pytest.importorskip("gradio")
    import publish

    app = publish.load_app(Path(nlgmetrics.space_path(NAME)) / "app.py")  # found by name in the toy's tree
    demo = app.build_demo(preload=False)
    score = next(f.fn for f in demo.fns.values() if f.api_name == "score_page")
    _, shown, *_ = score("\n".join(HYPS), "\n".join(REFS), 1.0)
    expected = nlgmetrics.score(NAME, HYPS, REFS).score
    assert f'data-value="{expected!r}"' in shown

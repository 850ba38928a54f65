"""Command-line checks found by the adversarial campaign (issue 44): ``meta-eval --against
FILE`` takes a score file only with exactly one score per segment and system,
``--against-option`` without ``--against`` is an error, and a seed below 0 is a usage error
(exit 2, one line), not a numpy message after scoring."""
from __future__ import annotations

import json

import pytest

import nlgmetrics
from nlgmetrics import cli
from tests.cli.test_records import HERE

SEGMENTS = 120
REFS = [f"the cat number {i} sat on the mat near door {i % 7}" for i in range(SEGMENTS)]
OUTPUTS = {"A": [r.replace("the mat", "a rug") for r in REFS], "B": [r.replace("cat", "dog") for r in REFS]}


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))
    monkeypatch.syspath_prepend(str(HERE))


@pytest.fixture
def rows(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"hyp": OUTPUTS[s][k], "ref": REFS[k], "system": s, "human": (k * 7 + ord(s)) % 11,
                                        "item": k}) + "\n" for s in OUTPUTS for k in range(SEGMENTS)))
    return str(path)


def _score_file(path, counts):
    path.write_text("".join(f"{s}\t{(k % 13) / 13}\n" for s, n in counts.items() for k in range(n)))
    return str(path)


def _error(capsys, argv):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one line
    return info.value.code, err.strip()


FLAGS = ["--human", "human", "--bootstrap", "0", "--permutations", "5", "-q", "--json"]


@pytest.mark.parametrize("extra", [1, SEGMENTS, -1])
def test_against_a_score_file_needs_one_score_per_segment_and_system(toy, rows, tmp_path, capsys, extra):
    counts = {"A": SEGMENTS, "B": SEGMENTS + extra}  # 121, 240 or 119 scores for B's 120 segments
    path = _score_file(tmp_path / "other-refA.seg.score", counts)
    code, err = _error(capsys, ["meta-eval", "toy", rows, *FLAGS, "--against", path])
    assert code == 2
    assert err == (f"error: {path}: {SEGMENTS + extra} segment score(s) for system 'B', but {rows} has {SEGMENTS} "
                   "segment(s) of it; a score file for --against needs exactly one score per segment and system")


def test_against_a_score_file_with_one_score_per_segment_is_read_in_order(toy, rows, tmp_path, capsys):
    path = _score_file(tmp_path / "other-refA.seg.score", {"A": SEGMENTS, "B": SEGMENTS, "C": 3})  # C: not in the rows
    assert cli.main(["meta-eval", "toy", rows, *FLAGS, "--against", path]) == 0
    out = json.loads(capsys.readouterr().out)
    want = [(k % 13) / 13 for k in range(SEGMENTS)] * 2
    human = [(k * 7 + ord(s)) % 11 for s in OUTPUTS for k in range(SEGMENTS)]
    assert out["against"]["metric"] == "other-refA"
    assert out["against"]["segment"]["pearson"]["b"] == pytest.approx(nlgmetrics.core.stats.pearson(want, human), abs=1e-12)


def test_against_option_needs_against_naming_a_metric(toy, rows, tmp_path, capsys):
    code, err = _error(capsys, ["meta-eval", "toy", rows, *FLAGS, "--against-option", "features=words"])
    assert code == 2 and err == ("error: --against-option sets an option of the second metric: it needs --against NAME "
                                 f"(one of {', '.join(nlgmetrics.registry.metric_names())})")
    path = _score_file(tmp_path / "other-refA.seg.score", {"A": SEGMENTS, "B": SEGMENTS})
    code, err = _error(capsys, ["meta-eval", "toy", rows, *FLAGS, "--against", path, "--against-option", "scale=2"])
    assert code == 2 and err == "error: --against-option needs --against to name a metric, not a score file"


def test_a_negative_seed_is_a_usage_error(toy, rows, tmp_path, capsys):
    refs = tmp_path / "refs.txt"
    refs.write_text("\n".join(REFS[:12]) + "\n")
    code, err = _error(capsys, ["compare", "toy", "-p", str(refs), "-p", str(refs), "-r", str(refs), "--seed", "-1"])
    assert code == 2 and err == "error: --seed must be a whole number >= 0, got -1"
    code, err = _error(capsys, ["compare", "toy", "-p", str(refs), "-p", str(refs), "-r", str(refs), "--seed", "1.5"])
    assert code == 2 and err.startswith("error: argument --seed: invalid int value: '1.5'")
    code, err = _error(capsys, ["meta-eval", "toy", rows, *FLAGS, "--seed", "-3"])
    assert code == 2 and err == "error: --seed must be a whole number >= 0, got -3"

"""``nlgmetrics compare`` (text and --json, from files and from saved sharded records) and the
meta-eval command's new statistics."""
from __future__ import annotations

import json

import pytest

import nlgmetrics
from nlgmetrics import cli

REFS = [f"the cat number {i} sat on the mat near the door" for i in range(24)]
BASE = [r.replace("the mat", "a rug") for r in REFS]
BETTER = [r if i % 4 else r.replace("cat", "dog") for i, r in enumerate(REFS)]


@pytest.fixture()
def files(tmp_path):
    out = {}
    for name, lines in (("refs", REFS), ("base", BASE), ("better", BETTER)):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[name] = str(path)
    return out


def test_compare_text_and_json_from_files(files, capsys):
    args = ["compare", "sam", "-r", files["refs"], "-p", files["base"], "-p", files["better"], "--base", "chrf",
            "--resamples", "200", "--trials", "300", "--seed", "3", "-q"]
    assert cli.main(args + ["--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    expected = nlgmetrics.compare("sam", {"base.txt": BASE, "better.txt": BETTER}, REFS, base="chrf",
                                  resamples=200, trials=300, seed=3, quiet=True).to_dict()
    assert payload == json.loads(json.dumps(expected))
    assert payload["baseline"] == "base.txt" and payload["test_signature"].startswith("compare|bs:200|ar:300|seed:3|")
    better = payload["systems"][1]
    assert better["diff"] > 0 and better["p_bootstrap"] < 0.01 and better["diff_ci"][0] > 0
    assert cli.main(args + ["--names", "A,B"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "sam on 24 segments; baseline: A"
    assert "p (bs)" in text and "compare|bs:200|ar:300|seed:3|ci:95" in text


def test_compare_from_saved_sharded_records_equals_scoring(files, tmp_path, capsys):
    parts = []
    for k in (1, 2):
        out = str(tmp_path / f"base{k}.jsonl")
        assert cli.main(["score", "sam", "-r", files["refs"], "-p", files["base"], "--base", "chrf", "-q",
                         "--shard", f"{k}/2", "--records", out]) == 0
        parts.append(out)
    whole = str(tmp_path / "better.jsonl")
    assert cli.main(["score", "sam", "-r", files["refs"], "-p", files["better"], "--base", "chrf", "-q",
                     "--shard", "1/1", "--records", whole]) == 0
    capsys.readouterr()
    assert cli.main(["compare", "sam", "--records", ",".join(parts), "--records", whole, "--names", "base,better",
                     "--resamples", "100", "--trials", "100", "--json"]) == 0
    from_records = json.loads(capsys.readouterr().out)
    assert cli.main(["compare", "sam", "-r", files["refs"], "-p", files["base"], "-p", files["better"], "--base",
                     "chrf", "--names", "base,better", "--resamples", "100", "--trials", "100", "--json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out) == from_records
    # records of another configuration are refused
    with pytest.raises(SystemExit):
        cli.main(["compare", "sam", "--records", ",".join(parts), "--records", whole, "--base", "bleu"])
    assert "scored with other options" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    ([], "at least two systems"),
    (["-p", "{better}", "--records", "x.jsonl"], "either as -p FILE"),
    (["-p", "{better}", "--resamples", "-1"], "--resamples and --trials must be 0"),
    (["-p", "{better}", "--confidence", "95"], "--confidence must be between 0 and 1"),
    (["-p", "{better}", "--names", "a"], "--names must give 2 different"),
])
def test_compare_usage_errors(files, capsys, extra, message):
    args = ["compare", "sam", "-r", files["refs"], "-p", files["base"], "--base", "chrf", "-q"]
    with pytest.raises(SystemExit) as err:
        cli.main(args + [x.format(**files) for x in extra])
    assert err.value.code == 2
    assert message in capsys.readouterr().err


def test_compare_refuses_files_of_different_lengths(files, tmp_path, capsys):
    short = tmp_path / "short.txt"
    short.write_text("a cat\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        cli.main(["compare", "sam", "-r", files["refs"], "-p", files["base"], "-p", str(short), "--base", "chrf"])
    assert "has 24 lines but the hypothesis file has 1" in capsys.readouterr().err


def test_meta_eval_reports_the_pairwise_and_item_statistics(tmp_path, capsys):
    rows = []
    for i, ref in enumerate(REFS[:8]):
        for s, hyp in (("A", BASE[i]), ("B", BETTER[i]), ("C", "a dog")):
            rows.append({"hyp": hyp, "ref": ref, "system": s, "seg": i,
                         "human": {"A": 0.2, "B": 0.9, "C": 0.0}[s] + 0.01 * i})
    data = tmp_path / "meta.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    base = ["meta-eval", "sam", str(data), "--human", "human", "--base", "chrf", "--bootstrap", "0", "-q"]
    assert cli.main(base + ["--item-field", "seg", "--permutations", "100", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["pairwise"]["pairwise_accuracy"] == {"value": 1.0, "n_pairs": 3}
    assert payload["pairwise"]["soft_pairwise_accuracy"]["n_items"] == 8
    assert payload["item"]["tie_calibrated_accuracy"]["n_items"] == 8
    assert payload["item"]["tie_calibrated_accuracy"]["value"] == pytest.approx(1.0)
    assert cli.main(base + ["--item-field", "seg"]) == 0
    text = capsys.readouterr().out
    assert "pairwise accuracy       1.0000  (3 system pairs)" in text and "acc*_eq" in text
    with pytest.raises(SystemExit):
        cli.main(base + ["--permutations", "0"])
    assert "--permutations must be a positive number" in capsys.readouterr().err

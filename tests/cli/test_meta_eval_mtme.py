"""meta-eval on an mt-metrics-eval EvalSet equals the same rows as JSON lines; --mtme-out files
read back equal the scores; --against compares two metrics; --help documents every statistic."""
from __future__ import annotations

import json

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.meta import mtme
from tests.cli.test_records import HERE
from tests.meta.test_mtme import SYSTEMS, build_evalset, wmt21_rows


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))
    monkeypatch.syspath_prepend(str(HERE))


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def _run(capsys, argv):
    assert cli.main(argv) == 0
    return _json(capsys)


def test_meta_eval_on_an_evalset_equals_the_same_rows_as_json_lines(toy, tmp_path, capsys):
    rows = wmt21_rows()
    root = build_evalset(tmp_path / "wmt21", rows)
    lines = [json.dumps({"hyp": r["hyps"][s]["hyp"], "ref": r["ref"], "src": r["src"], "system": s,
                         "human": r["hyps"][s]["human"], "doc": "doc1" if k < 6 else "doc2"})
             for s in sorted(SYSTEMS) for k, r in enumerate(rows)]
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(lines) + "\n")
    flags = ["--bootstrap", "40", "--permutations", "50", "--json", "-q"]
    from_mtme = _run(capsys, ["meta-eval", "toy", "--mtme", str(root), "--lp", "de-en", "--human", "wmt-z", *flags])
    from_jsonl = _run(capsys, ["meta-eval", "toy", str(data), "--human", "human", "--item-field", "doc", *flags])
    for out in (from_mtme, from_jsonl):
        out.pop("notes"), out.pop("human")
    assert from_mtme == from_jsonl
    assert from_mtme["n"] == 48 and from_mtme["n_systems"] == 4 and from_mtme["item"]["pearson"]["n_items"] == 2
    # the system level is the metric's own corpus score (the toy divides by the corpus maximum), not a mean
    scorer = nlgmetrics.load("toy")
    own = {s: scorer.score([r["hyps"][s]["hyp"] for r in rows], [r["ref"] for r in rows]).score for s in SYSTEMS}
    human = {s: sum(r["hyps"][s]["human"] for r in rows) / 12 for s in SYSTEMS}
    names = sorted(SYSTEMS)
    assert from_mtme["system"]["pearson"]["value"] == pytest.approx(
        nlgmetrics.core.stats.pearson([own[s] for s in names], [human[s] for s in names]), abs=1e-12)
    assert from_mtme["seed"] == 0 and from_mtme["permutations"] == 50 and from_mtme["bootstrap"] == 40


def test_none_human_scores_are_left_out_and_said(toy, tmp_path, capsys):
    rows = wmt21_rows()
    root = build_evalset(tmp_path / "w", rows, missing={("Online-A", 0), ("Online-B", 5)})
    assert cli.main(["meta-eval", "toy", "--mtme", str(root), "--lp", "de-en", "--bootstrap", "0", "-q"]) == 0
    text = capsys.readouterr().out
    assert "on 46 segments" in text and "(2 rows without a human score left out)" in text
    assert "reference refA, human scores wmt-z" in text
    with pytest.raises(SystemExit):
        cli.main(["meta-eval", "toy", "--mtme", str(root), "-q"])
    assert "--mtme needs --lp" in capsys.readouterr().err


def test_mtme_out_files_read_back_equal_the_scores(toy, tmp_path, capsys):
    rows = wmt21_rows(n=6)
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(r["hyps"]["Online-B"]["hyp"] + "\n" for r in rows))
    ref.write_text("".join(r["ref"] + "\n" for r in rows))
    out = tmp_path / "out"
    result = _run(capsys, ["score", "toy", "-p", str(hyp), "-r", str(ref), "--json", "-q", "--mtme-out", str(out),
                           "--lp", "de-en", "--system", "Online-B", "--ref-name", "refA"])
    seg = mtme.read_score_file(str(out / "metric-scores/de-en/toy-refA.seg.score"), human=False)
    sys_ = mtme.read_score_file(str(out / "metric-scores/de-en/toy-refA.sys.score"), "sys", human=False)
    assert seg == {"Online-B": result["scores"]} and sys_ == {"Online-B": [result["score"]]}
    with pytest.raises(SystemExit):
        cli.main(["score", "toy", "-p", str(hyp), "-r", str(ref), "--mtme-out", str(out), "--lp", "de-en", "-q"])
    assert "--mtme-out needs --system" in capsys.readouterr().err


def test_against_a_metric_and_a_score_file_give_both_values_a_difference_and_p_values(toy, tmp_path, capsys):
    rows = wmt21_rows()
    root = build_evalset(tmp_path / "w", rows)
    flags = ["--mtme", str(root), "--lp", "de-en", "--bootstrap", "30", "--permutations", "40", "--json", "-q"]
    out = _run(capsys, ["meta-eval", "toy", *flags, "--against", "toy", "--against-option", "lowercase=true"])
    seg = out["against"]["segment"]["pearson"]
    assert seg["a"] == out["segment"]["pearson"]["value"] and seg["diff"] == pytest.approx(seg["a"] - seg["b"])
    assert 0 < seg["p_perm_both"] <= 1 and 0 <= seg["p_williams"] <= 1 and seg["ci95"][0] <= seg["ci95"][1]
    assert set(out["against"]["system"]) == {"pearson", "spearman", "kendall", "pairwise_accuracy"}
    assert out["against"]["item"]["tie_calibrated_accuracy"]["p_permutation"] > 0
    # the same metric written as mt-metrics-eval files and given back: no difference, p = 1
    scorer = nlgmetrics.load("toy")
    seg_scores, sys_scores = {}, {}
    for s in SYSTEMS:
        res = scorer.score([r["hyps"][s]["hyp"] for r in rows], [r["ref"] for r in rows], [r["src"] for r in rows])
        seg_scores[s], sys_scores[s] = res.scores, res.score
    mtme.write_metric_scores(str(root), "de-en", "toy", "refA", seg_scores, sys_scores)
    same = _run(capsys, ["meta-eval", "toy", *flags, "--against", "toy-refA"])["against"]
    for level in ("segment", "system"):
        for v in same[level].values():
            assert v["diff"] == pytest.approx(0, abs=1e-12) and v["p_perm_both"] == 1.0
    assert cli.main(["meta-eval", "toy", *flags[:-2], "--bootstrap", "0", "--permutations", "20", "-q",
                     "--against", "toy-refA"]) == 0
    assert "toy (A) against toy-refA (B)" in capsys.readouterr().out


def test_meta_eval_help_names_every_statistic_and_the_default_fields(capsys):
    with pytest.raises(SystemExit):
        cli.main(["meta-eval", "--help"])
    text = capsys.readouterr().out
    for word in ("pairwise accuracy", "SPA", "acc*_eq", "item", "DARR", "Perm-Both", "Williams", "default: hyp",
                 "default: ref", "default: src", "default: system", "string form", "centres", "sacrebleu",
                 "--mtme", "--against", "--one-sided", "two-sided", "sides", "sys.score", "Spearman", "SPA; acc*_eq",
                 "whole items"):
        assert word in text, word


def test_python_meta_eval_reads_an_evalset_as_the_command_line_does(toy, tmp_path, capsys):
    rows = wmt21_rows()
    root = build_evalset(tmp_path / "w", rows, missing={("Online-W", 2)})
    cli_out = _run(capsys, ["meta-eval", "toy", "--mtme", str(root), "--lp", "de-en", "--bootstrap", "0",
                            "--permutations", "20", "--json", "-q"])
    py_out = nlgmetrics.meta_eval("toy", mtme=str(root), lp="de-en", bootstrap=0, permutations=20,
                                  against=("toy", {"lowercase": True}))
    for level in ("segment", "system", "pairwise", "item"):
        assert json.loads(json.dumps(py_out[level])) == cli_out[level], level
    assert py_out["n"] == 47 and py_out["n_unrated"] == 1
    assert py_out["against"]["metric"] == "toy" and "pearson" in py_out["against"]["segment"]
    with pytest.raises(ValueError, match="mtme reads the predictions"):
        nlgmetrics.meta_eval("toy", ["x"], mtme=str(root), lp="de-en")


def test_a_sys_score_file_is_the_system_level_human_score(toy, tmp_path, capsys):
    rows = wmt21_rows()
    root = build_evalset(tmp_path / "w", rows)
    flags = ["--mtme", str(root), "--lp", "de-en", "--bootstrap", "20", "--permutations", "20", "--json", "-q"]
    means = _run(capsys, ["meta-eval", "toy", *flags])
    assert means["system_human"].startswith("the mean human score")
    given = {"Facebook-AI": 0.1, "Online-A": 0.9, "Online-B": -0.4, "Online-W": 0.3}  # not the rows' means
    (root / "human-scores" / "de-en.wmt-z.sys.score").write_text("".join(f"{s}\t{v}\n" for s, v in given.items()))
    out = _run(capsys, ["meta-eval", "toy", *flags, "--against", "toy", "--against-option", "lowercase=true"])
    scorer = nlgmetrics.load("toy")
    names = sorted(SYSTEMS)
    own = [scorer.score([r["hyps"][s]["hyp"] for r in rows], [r["ref"] for r in rows]).score for s in names]
    want = nlgmetrics.core.stats.pearson(own, [given[s] for s in names])
    assert out["system"]["pearson"]["value"] == pytest.approx(want, abs=1e-12) != means["system"]["pearson"]["value"]
    assert out["against"]["system"]["pearson"]["a"] == pytest.approx(want, abs=1e-12)
    assert out["system_human"].startswith("the given system-level human score")
    assert any("human-scores/de-en.wmt-z.sys.score" in n for n in out["notes"])
    assert out["segment"] == means["segment"] and out["item"] == means["item"]  # only the system level changes
    py = nlgmetrics.meta_eval("toy", mtme=str(root), lp="de-en", bootstrap=0, permutations=20)
    assert py["system"]["pearson"]["value"] == pytest.approx(want, abs=1e-12)
    # a system without a system score is left out of the system level, and said
    (root / "human-scores" / "de-en.wmt-z.sys.score").write_text("Online-A\t0.9\nOnline-B\t-0.4\nOnline-W\tNone\n"
                                                                  "Facebook-AI\t0.1\n")
    assert cli.main(["meta-eval", "toy", *flags[:-2], "-q"]) == 0
    text = capsys.readouterr().out
    assert "left out there (no system score): Online-W" in text and "over 3 systems" in text


def test_one_sided_p_values_are_named_and_half_the_two_sided_williams(toy, tmp_path, capsys):
    rows = wmt21_rows()
    root = build_evalset(tmp_path / "w", rows)
    flags = ["--mtme", str(root), "--lp", "de-en", "--bootstrap", "0", "--permutations", "30", "--json", "-q",
             "--against", "toy", "--against-option", "lowercase=true"]
    two = _run(capsys, ["meta-eval", "toy", *flags])["against"]
    one = _run(capsys, ["meta-eval", "toy", *flags, "--one-sided"])["against"]
    assert two["sides"] == "two-sided (A and B differ)" and one["sides"] == "one-sided (A is better than B)"
    w2, w1 = two["segment"]["pearson"]["p_williams"], one["segment"]["pearson"]["p_williams"]
    assert w1 == pytest.approx(w2 / 2 if two["segment"]["pearson"]["diff"] > 0 else 1 - w2 / 2, rel=1e-9)
    with pytest.raises(SystemExit):
        cli.main(["meta-eval", "toy", *flags[:-4], "--one-sided"])
    assert "--one-sided needs --against" in capsys.readouterr().err


def test_null_human_scores_in_json_lines_are_missing_as_none_in_an_evalset(toy, tmp_path, capsys):
    rows = wmt21_rows()
    missing = {("Online-A", 0), ("Online-B", 5), ("Online-W", 11)}
    root = build_evalset(tmp_path / "w", rows, missing=missing)
    lines = [json.dumps({"hyp": r["hyps"][s]["hyp"], "ref": r["ref"], "src": r["src"], "system": s,
                         "human": None if (s, k) in missing else r["hyps"][s]["human"],
                         "doc": "doc1" if k < 6 else "doc2"})
             for s in sorted(SYSTEMS) for k, r in enumerate(rows)]
    data = tmp_path / "rows.jsonl"
    data.write_text("\n".join(lines) + "\n")
    flags = ["--bootstrap", "30", "--permutations", "30", "--json", "-q"]
    from_mtme = _run(capsys, ["meta-eval", "toy", "--mtme", str(root), "--lp", "de-en", *flags])
    from_jsonl = _run(capsys, ["meta-eval", "toy", str(data), "--human", "human", "--item-field", "doc", *flags])
    assert any("3 row(s) with a null 'human'" in n for n in from_jsonl["notes"])
    for out in (from_mtme, from_jsonl):
        out.pop("notes"), out.pop("human")
    assert from_mtme == from_jsonl and from_jsonl["n"] == 45 and from_jsonl["n_unrated"] == 3
    # the rows with null are still scored: the system level's corpus score is over all 12 rows of each system
    assert from_jsonl["n_system_rows"] == 48
    assert cli.main(["meta-eval", "toy", str(data), "--human", "human", "--bootstrap", "0", "-q"]) == 0
    assert "(3 rows without a human score left out)" in capsys.readouterr().out

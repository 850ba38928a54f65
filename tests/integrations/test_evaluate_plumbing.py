"""Every metric folder loads with ``evaluate.load`` offline, from any directory, through
``nlgmetrics.metric_path``, and returns the core scorer's numbers; the CLI drives the same
scorers."""
import json
from pathlib import Path

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics import cli, registry

NAMES = sorted(nlgmetrics.REGISTRY)


@pytest.fixture(scope="module")
def tiny_m2m(tiny_m2m100):
    return tiny_m2m100


def options_for(name, tiny_m2m_path=None):
    """Constructor options that run offline: the metric's example options, or for DATScore the
    tiny local model."""
    options = registry.example(name).options
    if options is not None:
        return dict(options, quiet=True)
    if name == "datscore":
        return {"model": tiny_m2m_path, "source_lang": "fr", "max_new_tokens": 8, "quiet": True}
    pytest.skip(f"{name} has no offline configuration")


@pytest.fixture
def offline_options(request, tiny_m2m):
    return lambda name: options_for(name, tiny_m2m)


def test_list_metrics_names_all_five():
    assert sorted(nlgmetrics.list_metrics()) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_evaluate_load_offline_equals_core(name, offline_options, tmp_path, monkeypatch):
    import evaluate

    if name not in nlgmetrics.list_metrics():
        pytest.skip(f"{name} not installed")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)  # metric_path works from any directory
    path = nlgmetrics.metric_path(name)
    assert Path(path, f"{name}.py").exists() and Path(path, "README.md").exists()
    options = offline_options(name)
    example = registry.example(name).inputs
    module = evaluate.load(path)
    kwargs = {k: v for k, v in example.items() if v is not None}
    got = module.compute(**kwargs, **options)
    core = nlgmetrics.load(name, **options).score(example["predictions"], example.get("references"),
                                                  example.get("sources"))
    assert got["scores"] == pytest.approx(core.scores, abs=1e-9)
    assert got["score"] == pytest.approx(core.score, abs=1e-9)
    assert got["signature"] == core.signature
    assert len(got["scores"]) == len(example["predictions"])


def test_metric_path_errors():
    with pytest.raises(ValueError, match="unknown metric"):
        nlgmetrics.metric_path("bleurt")


def _demo_files(tmp_path, name):
    example = registry.example(name).inputs
    paths = {}
    for field, flag in (("predictions", "-p"), ("references", "-r"), ("sources", "-s")):
        values = example.get(field)
        if values is None:
            continue
        if values and not isinstance(values[0], str):  # multi-reference: one file per column
            for k in range(len(values[0])):
                p = tmp_path / f"{field}{k}.txt"
                p.write_text("\n".join(v[k] for v in values) + "\n")
                paths.setdefault(flag, []).append(str(p))
        else:
            p = tmp_path / f"{field}.txt"
            p.write_text("\n".join(values) + "\n")
            paths[flag] = [str(p)]
    return example, paths


@pytest.mark.parametrize("name", NAMES)
def test_cli_score_json_equals_core(name, offline_options, tmp_path, capsys):
    if name not in nlgmetrics.list_metrics():
        pytest.skip(f"{name} not installed")
    options = offline_options(name)
    example, paths = _demo_files(tmp_path, name)
    # a multi-reference metric given one -r file scores against that one reference per segment
    argv = ["score", name, "--json", "--quiet"]
    for flag, files in paths.items():
        for f in files:
            argv += [flag, f]
    for key, value in options.items():
        if key != "quiet":
            argv += ["-o", f"{key}={json.dumps(value) if not isinstance(value, str) else value}"]
    assert cli.main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    core = nlgmetrics.load(name, **options).score(example["predictions"], example.get("references"),
                                                  example.get("sources"))
    assert payload["scores"] == pytest.approx(core.scores, abs=1e-9)
    assert payload["signature"] == core.signature


def test_cli_errors_are_clear(tmp_path, capsys):
    hyp = tmp_path / "h.txt"
    hyp.write_text("a\nb\n")
    ref = tmp_path / "r.txt"
    ref.write_text("a\n")
    with pytest.raises(SystemExit, match="has 1 lines but the hypothesis file has 2"):
        cli.main(["score", "sam", "-p", str(hyp), "-r", str(ref)])
    with pytest.raises(SystemExit, match="does not take option"):
        cli.main(["score", "sam", "-p", str(hyp), "-r", str(hyp), "-o", "no_such_option=1"])
    with pytest.raises(SystemExit):
        cli.main(["score", "nope", "-p", str(hyp)])


def test_cli_bad_option_values_and_odd_files(tmp_path, capsys):
    hyp = tmp_path / "h.txt"
    hyp.write_text("I am happy\r today\nI am sad\n", newline="")  # a stray CR stays inside its line
    ref = tmp_path / "r.txt"
    ref.write_text("I am happy\nI am not sad\n")
    with pytest.raises(SystemExit, match="error: unknown base 'nope'"):
        cli.main(["score", "sam", "-p", str(hyp), "-r", str(ref), "-o", "base=nope"])
    base = tmp_path / "base.txt"
    base.write_text("0.9\n0.5\n")
    assert cli.main(["score", "sam", "-p", str(hyp), "-r", str(ref), "-o", "base=given",
                     "--base-scores", str(base), "--json", "--quiet"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert len(payload["scores"]) == 2 and payload["scores"][0] <= 0.9 and "base:given" in payload["signature"]
    base.write_text("0.9\n")
    with pytest.raises(SystemExit, match="has 1 lines"):
        cli.main(["score", "sam", "-p", str(hyp), "-r", str(ref), "-o", "base=given", "--base-scores", str(base)])
    # the per-segment flags come from the metric's extra_inputs: TextEval has none
    with pytest.raises(SystemExit, match="unrecognized arguments: --base-scores"):
        cli.main(["score", "texteval", "-p", str(hyp), "-r", str(ref), "--base-scores", str(base)])


def test_cli_meta_eval_rejects_a_file_without_human_scores(tmp_path):
    """null is a missing human score (as None in an EvalSet; meta_evaluate leaves such rows out
    of the statistics, tests/cli/test_meta_eval_mtme.py); a file where no row has one, or a row
    without the field, is refused."""
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": 1, "hyp": "a", "ref": "b", "human": None}) + "\n")
    with pytest.raises(SystemExit, match="no row has a human score"):
        cli.main(["meta-eval", "sam", str(data), "--human", "human", "-o", "base=chrf", "-q"])
    data.write_text(json.dumps({"id": 1, "hyp": "a", "ref": "b", "score": 1.0}) + "\n")
    with pytest.raises(SystemExit, match="line 1: missing key 'human'"):
        cli.main(["meta-eval", "sam", str(data), "--human", "human", "-o", "base=chrf", "-q"])
    data.write_text(json.dumps({"id": 1, "hyp": "a", "ref": [], "human": 1.0}) + "\n")
    with pytest.raises(SystemExit, match="empty reference list"):
        cli.main(["meta-eval", "sam", str(data), "--human", "human", "--ref-field", "ref"])


def test_cli_meta_eval_refuses_what_it_would_score_wrongly(tmp_path, capsys):
    """Several references for a one-reference metric are refused (only the first was scored,
    silently, so the correlation depended on the list's order); a non-finite human score names
    its line; --limit takes a positive number (0 scored every row, -1 one row)."""
    data = tmp_path / "d.jsonl"
    rows = [{"id": i, "hyp": f"the cat sat on mat {i}", "ref": [f"the cat sat on the mat {i}", "junk"],
             "human": float(i)} for i in range(4)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(SystemExit, match=r"d.jsonl, line 1: sam takes one reference per segment; the row's 'ref' lists 2"):
        cli.main(["meta-eval", "sam", str(data), "--human", "human", "-o", "base=chrf", "--quiet"])
    rows = [dict(r, ref=r["ref"][:1]) for r in rows]  # one reference in a list is that reference
    rows[2]["human"] = float("nan")
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(SystemExit, match=r"d.jsonl, line 3: NaN is not allowed \(every number must be finite\)"):  # the one reader
        cli.main(["meta-eval", "sam", str(data), "--human", "human", "-o", "base=chrf", "--quiet"])
    rows[2]["human"] = 10 ** 400  # json reads a huge integer; float() of it overflowed
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(SystemExit, match=r"d.jsonl, line 3: the number '1000.*' is beyond the float range"):
        cli.main(["meta-eval", "sam", str(data), "--human", "human", "-o", "base=chrf", "--quiet"])
    with pytest.raises(SystemExit, match=r"--base given takes the base scores from the caller: --base-scores FILE"):
        cli.main(["meta-eval", "sam", str(data), "--human", "human", "-o", "base=given", "--quiet"])
    rows[2]["human"] = 2.0
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for limit in ("0", "-1"):
        with pytest.raises(SystemExit, match=f"--limit must be a positive number of rows, got {limit}"):
            cli.main(["meta-eval", "sam", str(data), "--human", "human", "-o", "base=chrf", "--limit", limit])
    assert cli.main(["meta-eval", "sam", str(data), "--human", "human", "-o", "base=chrf", "--limit", "3",
                     "--bootstrap", "20", "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 3


def test_cli_list_and_demo(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in nlgmetrics.list_metrics():
        assert name in out
    assert cli.main(["demo", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "FAILED" not in out
    for name in nlgmetrics.list_metrics():
        assert f"{name}:" in out


def test_cli_meta_eval(shared_data, capsys):
    import gzip

    from scipy import stats as sps

    data = shared_data / "wmt17_da_seg.jsonl.gz"
    assert cli.main(["meta-eval", "sam", str(data), "--human", "human", "--limit", "60",
                     "-o", "base=chrf", "--bootstrap", "50", "--json", "--quiet"]) == 0
    payload = json.loads(capsys.readouterr().out)
    with gzip.open(data, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line, _ in zip(fh, range(60))]
    scores = nlgmetrics.score("sam", [r["hyp"] for r in rows], [r["ref"] for r in rows], base="chrf", quiet=True).scores
    human = [r["human"] for r in rows]
    independent = {"pearson": sps.pearsonr, "spearman": sps.spearmanr, "kendall": sps.kendalltau}
    assert payload["n"] == 60 and set(payload["segment"]) == set(independent)
    for method, fn in independent.items():
        v = payload["segment"][method]
        assert v["value"] == pytest.approx(float(fn(scores, human)[0]), abs=1e-9), method
        assert -1 <= v["ci95"][0] <= v["value"] <= v["ci95"][1] <= 1, method
    # system level: the correlation of per-system means
    systems = sorted({r["system"] for r in rows})
    assert len(systems) >= 3 and payload["n_systems"] == len(systems)
    sys_scores = [np.mean([s for s, r in zip(scores, rows) if r["system"] == name]) for name in systems]
    sys_human = [np.mean([h for h, r in zip(human, rows) if r["system"] == name]) for name in systems]
    assert set(payload["system"]) == set(independent)
    for method, fn in independent.items():
        assert payload["system"][method]["value"] == pytest.approx(float(fn(sys_scores, sys_human)[0]), abs=1e-9), method

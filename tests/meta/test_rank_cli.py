"""``nlgmetrics rank`` and ``nlgmetrics.rank`` on the committed EvalSet (tests/meta/data,
copied to a temporary folder: scoring writes beside the published files): published metrics
are read by name, this package's metrics are scored first (our ``chrf`` gives the published
``chrF`` file's segment scores, written by the reference script with sacrebleu itself), the
table, JSON, CSV and figure come out, and a second run scores nothing again."""
from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics.meta import mtme
from nlgmetrics.meta.rank import rank_published
from tests.surfaces.harness import run_cli

DATA = Path(__file__).parent / "data" / "mtme_rank" / "wmt21sub"
LP = "cs-en"


@pytest.fixture
def evalset(tmp_path):
    root = tmp_path / "wmt21sub"
    shutil.copytree(DATA, root)
    return root


def test_rank_reads_published_metrics_and_scores_ours(evalset, tmp_path):
    out = tmp_path / "rank.json"
    code, table, err = run_cli(["rank", "--mtme", str(evalset), "--lp", LP, "BLEU", "chrF", "noisyA", "chrf",
                                "--resamples", "200", "--json", str(out), "--csv", str(tmp_path / "rank.csv"), "-q"])
    assert code == 0, err
    ours = mtme.read_score_file(str(evalset / "metric-scores" / LP / "chrf-refA.seg.score"), human=False)
    published = mtme.read_score_file(str(evalset / "metric-scores" / LP / "chrF-refA.seg.score"), human=False)
    for system, scores in published.items():
        assert ours[system] == pytest.approx(scores, abs=1e-9), system
    result = json.loads(out.read_text())
    assert result["k"] == 200 and result["seed"] == 0 and result["pval"] == 0.05 and "AssignRanks" in result["procedure"]
    # the same scores give the same statistics, under either name
    for key, value in result["metrics"]["chrF"].items():
        if key != "epsilon" and value is not None:
            assert result["metrics"]["chrf"][key] == pytest.approx(value, abs=1e-9), key
    assert "chrf" in table and "noisyA" in table
    rows = list(csv.DictReader(io.StringIO((tmp_path / "rank.csv").read_text())))
    assert {r["metric"] for r in rows} == {"BLEU", "chrF", "noisyA", "chrf"}
    # Python: the same result; the second run scores nothing (every system under its signature)
    again = nlgmetrics.rank(str(evalset), LP, ["BLEU", "chrF", "noisyA", "chrf"], k=200, quiet=True)
    assert again["rankings"]["seg.pearson"]["values"] == pytest.approx(result["rankings"]["seg.pearson"]["values"])
    assert again["rankings"]["seg.pearson"]["ranks"] == result["rankings"]["seg.pearson"]["ranks"]


def test_published_only_equals_rank_published(evalset):
    via = nlgmetrics.rank(str(evalset), LP, ["BLEU", "chrF", "noisyA", "noisyB"], k=100, quiet=True)
    direct = rank_published(str(evalset), LP, ["BLEU-refA", "chrF-refA", "noisyA-refA", "noisyB-refA"], k=100)
    assert via["rankings"]["seg.pearson"]["values"] == direct["rankings"]["seg.pearson"]["values"]
    assert via["rankings"]["seg.pearson"]["ranks"] == direct["rankings"]["seg.pearson"]["ranks"]


def test_the_figure_is_a_png(evalset, tmp_path):
    pytest.importorskip("matplotlib")
    figure = tmp_path / "rank.png"
    code, _, err = run_cli(["rank", "--mtme", str(evalset), "--lp", LP, "BLEU", "chrF", "noisyA", "--resamples", "50",
                            "--level", "seg", "--figure", str(figure), "-q"])
    assert code == 0, err
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, message", [
    (["nosuchmetric"], "nosuchmetric"),
    (["BLEU", "--figure", "x.pdf"], "--figure 'x.pdf': name a .png or .svg file"),
    (["BLEU", "--statistic", "seg.nope"], "--statistic 'seg.nope'"),
    (["BLEU", "--pval", "1.5"], "--pval"),
])
def test_rank_usage_errors_are_one_line(evalset, argv, message):
    code, _, err = run_cli(["rank", "--mtme", str(evalset), "--lp", LP, *argv, "-q"])
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and message in lines[0], err

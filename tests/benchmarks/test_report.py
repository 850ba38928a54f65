"""benchmarks/README.md and the README's summary table are what benchmarks/report.py renders
from the committed results, so neither can disagree with the measurements."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "benchmarks" / "report.py"


def _print() -> str:
    return subprocess.run([sys.executable, str(REPORT), "--print"], capture_output=True, text=True, check=True).stdout


def test_benchmarks_readme_and_summary_are_generated_from_committed_results():
    proc = subprocess.run([sys.executable, str(REPORT), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (ROOT / "benchmarks" / "README.md").read_text() == _print()


def test_every_result_file_is_rendered():
    page = _print()
    cards = "".join(p.read_text() for p in (ROOT / "metrics").glob("*/*.md"))
    for path in (ROOT / "benchmarks" / "results").glob("*.json"):
        payload = json.loads(path.read_text())
        if "benchmark" not in payload:  # a training script's measurements: a card cites them instead
            assert f"benchmarks/results/{path.name}" in cards and f"results/{path.name}" in page
            continue
        assert f"## {payload['benchmark']}" in page
        for table in payload["tables"]:
            assert table["title"] in page


def test_plots_are_shown_and_committed():
    page = _print()
    plots = [json.loads(p.read_text()).get("plot") for p in (ROOT / "benchmarks" / "results").glob("*.json")]
    for plot in filter(None, plots):
        assert (ROOT / "benchmarks" / "results" / plot).stat().st_size > 1000
        assert f"](results/{plot})" in page


def test_the_summary_row_of_each_metric_quotes_its_results():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import report
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    readme = (ROOT / "README.md").read_text()
    assert report.render_summary() in readme
    assert f"{report.cell(report.RESULTS, ('rome_quality', 'Spearman', 'RoMe-lite', 'mean of 9')):.3f}" in readme
    assert len(report.SUMMARY) == len(report.CARDS) == 5

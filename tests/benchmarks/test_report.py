"""The README's results section is what benchmarks/report.py renders from the committed
results, so the README cannot disagree with the measurements."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_results_are_generated_from_committed_results():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "report.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_result_file_is_rendered():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "report.py"), "--print"],
                          capture_output=True, text=True, check=True)
    cards = "".join(p.read_text() for p in (ROOT / "metrics").glob("*/README.md"))
    for path in (ROOT / "benchmarks" / "results").glob("*.json"):
        payload = json.loads(path.read_text())
        if "benchmark" not in payload:  # a training script's measurements: a card cites them instead
            assert f"benchmarks/results/{path.name}" in cards
            continue
        assert f"### {payload['benchmark']}" in proc.stdout
        for table in payload["tables"]:
            assert table["title"] in proc.stdout


def test_plots_are_shown_and_committed():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "report.py"), "--print"],
                          capture_output=True, text=True, check=True)
    plots = [json.loads(p.read_text()).get("plot") for p in (ROOT / "benchmarks" / "results").glob("*.json")]
    for plot in filter(None, plots):
        assert (ROOT / "benchmarks" / "results" / plot).stat().st_size > 1000
        assert f"](benchmarks/results/{plot})" in proc.stdout

"""Start-up: the command line's help paths import none of the heavy libraries the scoring
uses (torch, transformers, spaCy, scipy.stats); their time is measured by
benchmarks/startup.py, not here."""
import subprocess
import sys

import pytest

HEAVY = ("torch", "transformers", "spacy", "scipy.stats")
PROBE = """
import sys
from nlgmetrics import cli
try:
    cli.main({argv!r})
except SystemExit:
    pass
print(sorted(m for m in {heavy!r} if m in sys.modules))
"""


@pytest.mark.parametrize("argv", [["--help"], ["score", "--help"], ["score", "sam", "--help"],
                                  ["compare", "--help"], ["meta-eval", "--help"], ["reduce", "--help"]])
def test_help_imports_no_heavy_library(argv):
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_quiet_switches_the_hub_bars_off_without_importing_them(monkeypatch):
    from nlgmetrics import cli

    monkeypatch.delenv("HF_HUB_DISABLE_PROGRESS_BARS", raising=False)
    probe = """
import os, sys
from nlgmetrics import cli
cli._silence_library_bars()
print(os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS"), "transformers" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "False"]
    assert callable(cli.build_parser)

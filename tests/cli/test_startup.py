"""Start-up: the command line's cheap paths (``list``, every ``--help``) import none of the
heavy libraries the scoring uses (torch, transformers, spaCy and its thinc, scipy.stats): the
metric packages export lazily (nlgmetrics.core.lazy) and their configurations import no model
code; their time is measured by benchmarks/startup.py, not here."""
import subprocess
import sys

import pytest

from nlgmetrics import REGISTRY

HEAVY = ("torch", "transformers", "spacy", "thinc", "scipy.stats")
PROBE = """
import sys
from nlgmetrics import cli
try:
    cli.main({argv!r})
except SystemExit:
    pass
print(sorted(m for m in {heavy!r} if m in sys.modules))
"""


CHEAP = [["--help"], ["list"], ["score", "--help"], ["compare", "--help"], ["meta-eval", "--help"],
         ["reduce", "--help"], ["demo", "--help"],
         *(["score", name, "--help"] for name in sorted(REGISTRY)),
         *([command, "rome", "--help"] for command in ("compare", "meta-eval"))]


@pytest.mark.parametrize("argv", CHEAP, ids=" ".join)
def test_cheap_paths_import_no_heavy_library(argv):
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "[]"
    assert len(lines) > 1 and not done.stderr  # it printed (help or the list) and no error
    if argv == ["list"]:
        assert sorted(line.split()[0] for line in lines[:-1]) == sorted(REGISTRY)


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


def test_a_usage_error_before_scoring_imports_no_heavy_library(tmp_path):
    """The device and dtype checks need torch only for values it must resolve (cuda, fp16):
    the defaults (auto, fp32) are valid anywhere, so a missing input file is reported without
    importing torch (it was 2 s here)."""
    argv = ["score", "sam", "-p", str(tmp_path / "missing.txt"), "-r", str(tmp_path / "missing.txt"), "--base", "chrf"]
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert done.stderr.startswith("error: ") and "missing.txt" in done.stderr


def test_a_model_that_cannot_be_had_is_one_error_line_with_exit_1(monkeypatch):
    """load_scorer recognises core.models' error without importing core.models (torch)."""
    from nlgmetrics import registry
    from nlgmetrics.cli.common import CLIError, load_scorer
    from nlgmetrics.core.models import ModelUnavailableError

    config = registry.scorer_class("sam").Config.from_options(base="chrf")

    def unavailable(*args, **kwargs):
        raise ModelUnavailableError("no checkpoint roberta-large here, and the hub cannot be reached")

    monkeypatch.setattr(registry, "load", unavailable)
    with pytest.raises(CLIError) as info:
        load_scorer("sam", config, quiet=True)
    assert info.value.code == 1 and "hub cannot be reached" in str(info.value)

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(registry, "load", broken)
    with pytest.raises(KeyError):
        load_scorer("sam", config, quiet=True)

"""Every script the package names (in error messages, docstrings and the data notes) exists:
``python -m X`` names an importable module, ``shared/tools/...py`` a file of the checkout
(the training scripts left the package: ``nlgmetrics.training`` is gone)."""
import importlib.util
import re
from pathlib import Path

import nlgmetrics

PACKAGE = Path(nlgmetrics.__file__).resolve().parent
CHECKOUT = Path(__file__).resolve().parents[2]  # the checkout the tests run from (the package may be an installed wheel)
TEXT = [p for p in sorted(PACKAGE.rglob("*")) if p.suffix in (".py", ".md", ".json", ".txt") and p.is_file()]


def _mentions(pattern):
    for path in TEXT:
        for m in re.finditer(pattern, path.read_text(encoding="utf-8", errors="replace")):
            yield path.relative_to(PACKAGE), m.group(1)


def test_no_module_path_that_no_longer_exists():
    stale = [f"{where}: {found}" for where, found in _mentions(r"(nlgmetrics\.(?:training|publish)\b[\w.]*)")]
    assert not stale, stale


def test_every_python_m_module_named_is_importable():
    named = sorted(set(_mentions(r"python -m ([\w.]+)")))
    assert named, "the pattern finds the modules the package names"
    missing = [f"{where}: {mod}" for where, mod in named if importlib.util.find_spec(mod) is None]
    assert not missing, missing


def test_every_tools_script_named_exists_in_the_checkout():
    named = sorted(set(_mentions(r"(shared/tools/[\w/]+\.py)")))
    assert len({script for _, script in named}) >= 5
    missing = [f"{where}: {script}" for where, script in named if not (CHECKOUT / script).is_file()]
    assert not missing, missing

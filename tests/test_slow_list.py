"""The slow set (tests/conftest.py SLOW) names tests that exist: an entry left behind by a rename
would silently put a slow test back into the edit-test loop, or move nothing."""
import re
from pathlib import Path

from tests.conftest import SLOW

ROOT = Path(__file__).resolve().parents[1]


def test_every_slow_entry_names_an_existing_file_or_test():
    stale = []
    for entry in SLOW:
        path, _, name = entry.partition("::")
        name = name.partition("[")[0]  # one parametrized case: its function must exist
        target = ROOT / path
        if not target.exists():
            stale.append(entry)
        elif name and not re.search(rf"^def {re.escape(name)}", target.read_text(encoding="utf-8"), re.M):
            stale.append(entry)
    assert not stale, stale

"""The suite writes nothing into the checkout: hypothesis keeps no example database (it writes
``.hypothesis/`` into the working directory by default; tests/conftest.py switches it off), and
the files it writes all the same (a cache of the constants in the code it reads) go to a
temporary folder (tests/conftest.py sets ``HYPOTHESIS_STORAGE_DIRECTORY``)."""
import importlib
import sys
import uuid
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.configuration import storage_directory

ROOT = Path(__file__).resolve().parents[2]


def test_hypothesis_writes_no_database(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    @settings(max_examples=20)
    @given(st.integers())
    def failing_sometimes(x):  # a failure is what hypothesis saves by default
        assert x < 10

    try:
        failing_sometimes()
    except AssertionError:
        pass
    assert settings().database is None
    assert list(tmp_path.iterdir()) == []


def _listing(folder: Path) -> list | None:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else None


def test_hypothesis_keeps_its_files_out_of_the_checkout(tmp_path, monkeypatch):
    """The suite wrote ``.hypothesis/constants/`` (23 files) into the checkout although no
    database is kept: hypothesis caches the constants of every module it finds outside
    site-packages. A module it has not seen is imported, a test draws until hypothesis reads it
    (5% of the draws do), and its cache file is in the temporary folder; the checkout's
    ``.hypothesis`` is as it was (absent in a clean checkout)."""
    before = _listing(ROOT / ".hypothesis")
    name = f"probe_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(f"MARK = {name!r}\nLIMIT = 987654321\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module(name)
    try:
        @settings(max_examples=300)
        @given(st.integers(), st.text())
        def draws(number, text):
            assert isinstance(number, int) and isinstance(text, str)

        draws()
    finally:
        del sys.modules[name]
    home = storage_directory(intent_to_write=False).path
    cached = [p for p in (home / "constants").iterdir() if p.read_text(encoding="utf-8").startswith(
        f"# file: {tmp_path / name}.py")]
    assert len(cached) == 1 and "987654321" in cached[0].read_text(encoding="utf-8")
    assert not home.resolve().is_relative_to(ROOT) and not home.resolve().is_relative_to(Path.cwd())
    assert _listing(ROOT / ".hypothesis") == before

"""The suite writes nothing into the checkout: hypothesis keeps no example database (it writes
``.hypothesis/`` into the working directory by default; tests/conftest.py switches it off)."""
from hypothesis import given, settings
from hypothesis import strategies as st


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

"""The one writer (core/atomic.py): one rule for names, nothing written outside the folder the
user named or through a link inside it, exclusive temporary files, a lock that refuses links."""
from __future__ import annotations

import os
import stat

import pytest
from hypothesis import strategies as st

from nlgmetrics.core import atomic
from nlgmetrics.meta import mtme
from nlgmetrics.space import export

SEG = {"sysA": [0.5, -1.25]}
SYS = {"sysA": 0.75}
SCORES = "metric-scores/de-en"


#: pieces of hostile names: path separators, parent folders, absolute paths, control characters,
#: Unicode (a fullwidth solidus and a one-dot leader look like '/' and '.'), and plain letters
PIECES = st.sampled_from(["..", "/", "\\", ".", "\n", "\r", "\x00", "\x7f", "\u2028", "-", " ", "x", "refA", "de",
                          "en", "\uff0f", "\u2024", "é", "日本", "tmp", "~"])
HOSTILE_NAMES = st.one_of(st.lists(PIECES, min_size=0, max_size=8).map("".join),
                          st.integers(1, 8).map(lambda k: "../" * k + "x"), st.text(max_size=12))


def snapshot(root):
    """Every path under ``root`` (links not followed): its kind, size, modification time and,
    for a regular file, its content."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st_ = os.lstat(path)
            body = open(path, "rb").read() if stat.S_ISREG(st_.st_mode) else None
            out[path] = (stat.S_IFMT(st_.st_mode), st_.st_size, st_.st_mtime_ns, body)
    return out


def changed(before, after):
    """The paths made, changed or removed between two snapshots."""
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


@pytest.mark.parametrize("name, why", [
    ("", "must be a non-empty name"), ("a/b", "holds '/'"), ("/tmp/x", "holds '/'"), ("a\\b", "holds '/' or '\\\\'"),
    (".", "is not a name"), ("..", "is not a name"), ("ref\nA", "U\\+000A"), ("ref\rA", "U\\+000D"),
    ("a\x00", "U\\+0000"), ("a\x7f", "U\\+007F"), ("a\x85", "U\\+0085"), ("a\u2028b", "U\\+2028"),
    ("a\udcff", "U\\+DCFF"), ("x" * 256, "256 bytes, over the 255"), ("é" * 128, "256 bytes"), (None, "non-empty name"),
])
def test_one_rule_refuses_each_unsafe_name_naming_the_callers_option(name, why):
    for option in ("--ref-name", "ref="):
        with pytest.raises(ValueError, match=f"^{option} .*{why}"):
            atomic.check_name(name, option)


@pytest.mark.parametrize("name", ["refA", "Müller", "日本語", "x" * 255, "é" * 127, "a.b", "-", "..x", "a b"])
def test_names_that_are_one_component_pass_unchanged(name):
    assert atomic.check_name(name, "--ref-name") == name


def test_a_link_to_a_folder_inside_the_named_folder_is_refused_and_nothing_is_written_out(tmp_path):
    out, outside = tmp_path / "OUT", tmp_path / "outside"
    outside.mkdir()
    out.mkdir()
    (out / "metric-scores").symlink_to(outside)
    before = snapshot(tmp_path)
    with pytest.raises(ValueError, match=r"^root=: .*OUT/metric-scores is a symbolic link; nlgmetrics writes inside"):
        mtme.write_metric_scores(str(out), "de-en", "M", "refA", SEG, SYS)
    assert snapshot(tmp_path) == before and not any(outside.iterdir())


def test_a_folder_name_that_is_a_file_is_named(tmp_path):
    (tmp_path / "metric-scores").write_text("x")
    with pytest.raises(ValueError, match=r"metric-scores is a file, not a folder"):
        mtme.write_metric_scores(str(tmp_path), "de-en", "M", "refA", SEG, SYS)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match=r"^root= .*/file: is a file, not a folder"):
        mtme.write_metric_scores(str(tmp_path / "file"), "de-en", "M", "refA", SEG, SYS)


@pytest.fixture
def planted(tmp_path):
    """``(victim, folder)``: a file outside OUT that a planted link may point to, and the
    still empty folder OUT/metric-scores/de-en where the writer writes."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    folder = tmp_path / "OUT" / SCORES
    folder.mkdir(parents=True)
    return victim, folder


def _write(tmp_path):
    return mtme.write_metric_scores(str(tmp_path / "OUT"), "de-en", "M", "refA", SEG, SYS)


def test_a_link_planted_at_the_old_fixed_temporary_name_is_never_written_through(tmp_path, planted):
    victim, folder = planted
    for level in ("seg", "sys"):
        (folder / f"M-refA.{level}.score.tmp").symlink_to(victim)
    paths = _write(tmp_path)
    assert victim.read_text() == "keep\n"
    for path in paths:
        assert not os.path.islink(path) and os.path.isfile(path)
    assert mtme.read_score_file(paths[0], human=False) == SEG


def test_a_random_temporary_name_that_is_taken_by_a_link_is_skipped(tmp_path, planted, monkeypatch):
    victim, folder = planted
    (folder / ".M-refA.seg.score.aaaa").symlink_to(victim)  # the first name drawn: taken by a link
    draws = iter(["aaaa", "bbbb", "cccc", "dddd"])
    monkeypatch.setattr(atomic.secrets, "token_hex", lambda n: next(draws))
    paths = _write(tmp_path)
    assert victim.read_text() == "keep\n" and (folder / ".M-refA.seg.score.aaaa").is_symlink()
    assert mtme.read_score_file(paths[0], human=False) == SEG
    assert sorted(os.listdir(folder)) == [".M-refA.score.lock", ".M-refA.seg.score.aaaa", "M-refA.seg.score",
                                          "M-refA.sys.score"]  # bbbb and cccc were moved into place


def test_a_link_planted_at_the_lock_name_is_refused_and_its_target_untouched(tmp_path, planted):
    victim, folder = planted
    (folder / ".M-refA.score.lock").symlink_to(victim)
    with pytest.raises(ValueError, match=r"\.M-refA\.score\.lock: the lock file is a symbolic link"):
        _write(tmp_path)
    assert victim.read_text() == "keep\n" and sorted(os.listdir(folder)) == [".M-refA.score.lock"]
    (folder / ".M-refA.score.lock").unlink()
    os.mkfifo(folder / ".M-refA.score.lock")
    with pytest.raises(ValueError, match=r"the lock file is a FIFO \(named pipe\), not a regular file"):
        _write(tmp_path)


def test_a_link_planted_at_the_score_file_is_refused_not_read_or_replaced(tmp_path, planted):
    secret, folder = planted
    secret.write_text("other 1.0\n")
    (folder / "M-refA.seg.score").symlink_to(secret)
    with pytest.raises(ValueError, match=r"M-refA\.seg\.score: is a symbolic link; nlgmetrics writes inside root="):
        _write(tmp_path)
    assert secret.read_text() == "other 1.0\n" and (folder / "M-refA.seg.score").is_symlink()
    assert not (folder / "M-refA.sys.score").exists()


def test_temporary_and_lock_names_fit_the_limit_of_one_name(tmp_path):
    folder = tmp_path / "f"
    with atomic.open_folder(tmp_path, ["f"], option="--out") as out:
        name = "n" * 255
        out.write(name, b"data\n")
        with atomic.locked(out, name):
            pass
    names = os.listdir(folder)
    assert name in names and (folder / name).read_bytes() == b"data\n"
    assert len(names) == 2 and all(len(n.encode()) <= 255 for n in names)  # the lock file, hashed to fit


def test_write_file_keeps_the_mode_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "x.csv"
    target.write_text("old")
    os.chmod(target, 0o600)
    atomic.write_file(target, b"new")
    assert target.read_bytes() == b"new" and stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert os.listdir(tmp_path) == ["x.csv"]
    os.mkfifo(tmp_path / "p")
    with pytest.raises(ValueError, match=r"p: is a FIFO \(named pipe\); the CSV file must be a regular file"):
        export.write_csv(tmp_path / "p", [{"a": "=1"}])
    export.write_csv(tmp_path / "x.csv", [{"a": "=1", "b": 2}])
    assert target.read_bytes() == b"a,b\r\n'=1,2\r\n" and sorted(os.listdir(tmp_path)) == ["p", "x.csv"]

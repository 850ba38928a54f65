"""--records writes only to a regular file or a new path (core/atomic.py via RecordsWriter)."""
import os
import stat

import pytest

from nlgmetrics.core.records import RecordsWriter

HEADER = {"metric": "toy", "options": {}, "signature": "s", "n_segments": 1, "shard": [1, 1], "inputs": "x"}


def _write(path):
    with RecordsWriter(str(path), HEADER) as out:
        out.write([{"id": 0, "score": 1.0}])


def test_a_fifo_is_refused_by_name_and_left_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"pipe: is a FIFO \(named pipe\); the records file must be a regular file"):
        _write(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["pipe"]  # no temporary file left


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_a_character_device_is_refused(tmp_path):
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a copy of /dev/null
    with pytest.raises(ValueError, match="is a character device"):
        _write(null)
    assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_directories_and_links_to_devices_are_refused(tmp_path):
    with pytest.raises(ValueError, match="is a directory"):
        _write(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "link").symlink_to(tmp_path / "pipe")
    with pytest.raises(ValueError, match="link: is a FIFO"):
        _write(tmp_path / "link")
    assert (tmp_path / "link").is_symlink()


def test_a_symlink_to_a_regular_file_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    (tmp_path / "link.jsonl").symlink_to(target)
    _write(tmp_path / "link.jsonl")
    assert (tmp_path / "link.jsonl").is_symlink()
    assert target.read_text().startswith('{"nlgmetrics_records"')
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # an existing file keeps its mode


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        _write(tmp_path / "new.jsonl")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.jsonl").st_mode) == 0o644


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_errors_name_the_records_path_not_the_temporary_file(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o500)
    try:
        with pytest.raises(ValueError, match=r"ro/out\.jsonl: cannot write the records file") as err:
            _write(ro / "out.jsonl")
        assert ".out.jsonl." not in str(err.value)
    finally:
        os.chmod(ro, 0o700)

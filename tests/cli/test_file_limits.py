"""Input files are bounded as they are read: per line and per file, once decompressed."""
import gzip
import resource
import time
import zlib

import pytest

from nlgmetrics.core import files


def _gzip_of_zeros_line(path, n_bytes):
    """A gzip stream of ``n_bytes`` of 'x' and no newline, written without holding it."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"x" * 2**20
    with open(path, "wb") as fh:
        for _ in range(n_bytes // len(chunk)):
            fh.write(comp.compress(chunk))
        fh.write(comp.flush())


@pytest.mark.slow
def test_a_gzip_bomb_without_newline_stops_at_the_line_limit(tmp_path):
    path = tmp_path / "bomb.jsonl.gz"
    _gzip_of_zeros_line(path, 512 * 2**20)  # the 512 MiB in about 0.5 MB
    assert path.stat().st_size < 2 * 2**20
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    for reader in (lambda: list(files.iter_rows(path)), lambda: list(files.iter_csv(tmp_path / "bomb.jsonl.gz"))):
        with pytest.raises(files.InputFileError, match=r"bomb\.jsonl\.gz, line 1: longer than 8,388,608 bytes"):
            reader()
    assert time.perf_counter() - start < 10
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200


def test_the_decompressed_size_of_a_file_is_bounded(tmp_path):
    path = tmp_path / "many.txt.gz"
    with gzip.open(path, "wb") as fh:
        fh.write(b"short line\n" * 200_000)  # 2.2 MB of short lines
    with files.limits(max_bytes=2**20, max_line_bytes=1000):
        with pytest.raises(files.InputFileError, match=r"many\.txt\.gz: expands to more than 1,048,576 bytes"):
            files.read_lines(path)
    assert len(files.read_lines(path)) == 200_000  # outside the block: the defaults


def test_plain_files_and_long_lines_are_bounded_with_the_file_and_line_named(tmp_path):
    path = tmp_path / "hyp.txt"
    path.write_text("ok\n" + "y" * 5000 + "\n")
    with files.limits(max_bytes=10**6, max_line_bytes=4096):
        with pytest.raises(files.InputFileError, match=r"hyp\.txt, line 2: longer than 4,096 bytes"):
            files.read_lines(path)
    with files.limits(max_bytes=100, max_line_bytes=4096):
        with pytest.raises(files.InputFileError, match=r"hyp\.txt: larger than 100 bytes"):
            files.read_lines(path)
    assert files.read_lines(path)[0] == "ok"


def test_a_one_line_json_list_may_be_as_long_as_the_file_limit(tmp_path):
    path = tmp_path / "rows.json"
    path.write_text("[" + ", ".join('{"prediction": "a", "reference": "b"}' for _ in range(200)) + "]")
    with files.limits(max_bytes=10**6, max_line_bytes=100):
        assert len(files.read_rows(path)) == 200

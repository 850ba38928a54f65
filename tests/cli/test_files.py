"""Input files: lines (BOM, empty lines, gzip, clear errors naming the file), JSONL/CSV tables
with row-level errors, and CSV output that spreadsheets cannot execute."""
import csv
import gzip

import pytest

from nlgmetrics.core import files
from nlgmetrics.core.files import InputFileError
from nlgmetrics.space import export


def _bytes(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("data, want", [
    (b"", []),
    (b"\n", [""]),
    (b"a", ["a"]),
    (b"a\n", ["a"]),
    (b"a\n\n", ["a", ""]),
    (b"a\r\nb\r\n", ["a", "b"]),
    (b"a\rb\n", ["a\rb"]),  # a stray carriage return stays inside its line
    (b"\xef\xbb\xbfhello\nworld\n", ["hello", "world"]),  # BOM stripped
    (b"\xef\xbb\xbf\n", [""]),
    ("caf\u00e9 \u2013 \U0001f600\n".encode(), ["caf\u00e9 \u2013 \U0001f600"]),
])
def test_lines(tmp_path, data, want):
    path = _bytes(tmp_path, "x.txt", data)
    assert files.read_lines(path) == want
    assert files.count_lines(path) == len(want)
    gz = _bytes(tmp_path, "x.txt.gz", gzip.compress(data))
    assert files.read_lines(gz) == want and files.count_lines(gz) == len(want)
    hidden = _bytes(tmp_path, "gz-without-suffix.txt", gzip.compress(data))
    assert files.read_lines(hidden) == want


def test_a_bom_later_in_the_file_is_text(tmp_path):
    path = _bytes(tmp_path, "x.txt", b"a\n\xef\xbb\xbfb\n")
    assert files.read_lines(path) == ["a", "\ufeffb"]


def test_errors_name_the_file(tmp_path):
    missing = str(tmp_path / "nope.txt")
    with pytest.raises(InputFileError, match=r"nope\.txt: no such file"):
        files.read_lines(missing)
    with pytest.raises(InputFileError, match="is a directory"):
        files.read_lines(str(tmp_path))
    latin = _bytes(tmp_path, "latin.txt", "ok\ncaf\u00e9\n".encode("latin-1"))
    with pytest.raises(InputFileError, match=r"latin\.txt, line 2: not valid UTF-8 \(byte 4"):
        files.read_lines(latin)
    not_gz = _bytes(tmp_path, "plain.txt.gz", b"hello\n")
    with pytest.raises(InputFileError, match=r"plain\.txt\.gz: not a gzip file"):
        files.read_lines(not_gz)
    truncated = _bytes(tmp_path, "cut.txt.gz", gzip.compress(b"hello world\n" * 200)[:40])
    with pytest.raises(InputFileError, match=r"cut\.txt\.gz: not a valid gzip file"):
        files.read_lines(truncated)
    damaged = bytearray(gzip.compress(b"hello world\n" * 50))
    damaged[12:20] = b"\xff" * 8
    bad = _bytes(tmp_path, "bad.gz", bytes(damaged))
    with pytest.raises(InputFileError, match=r"bad\.gz: not a valid gzip file"):
        files.read_lines(bad)
    with pytest.raises(InputFileError, match=r"^upload\.txt, line 2"):  # a display name for uploads
        files.read_lines(latin, label="upload.txt")
    assert issubclass(InputFileError, ValueError)


def test_jsonl_rows_and_row_errors(tmp_path):
    path = _bytes(tmp_path, "d.jsonl", b'{"hyp": "a", "refs": ["b", "c"], "human": {"q": 0.5}}\n\n'
                                       b'{"hyp": "x", "refs": "y", "human": {"q": 1}}\n')
    rows = files.read_rows(path)
    assert [n for n, _ in rows] == [1, 3]
    assert files.text_field(rows[0], "refs", path, allow_list=True) == ["b", "c"]
    assert files.number_field(rows[1], "human.q", path) == 1.0
    assert files.field(rows[0], "prediction", path, aliases=("hyp",)) == "a"
    with pytest.raises(InputFileError, match=r"d\.jsonl, line 3: missing key 'references'"):
        files.field(rows[1], "references", path)
    with pytest.raises(InputFileError, match="line 1: 'refs' must be a string"):
        files.text_field(rows[0], "refs", path)
    bad = _bytes(tmp_path, "bad.jsonl", b'{"a": 1}\n{"a": \n')
    with pytest.raises(InputFileError, match=r"bad\.jsonl, line 2: not valid JSON"):
        files.read_rows(bad)
    arr = _bytes(tmp_path, "arr.jsonl", b'{"a": 1}\n[1, 2]\n')
    with pytest.raises(InputFileError, match="line 2: expected a JSON object"):
        files.read_rows(arr)
    nan = _bytes(tmp_path, "nan.jsonl", b'{"s": "x"}\n{"s": true}\n{"s": NaN}\n')
    with pytest.raises(InputFileError, match=r"nan\.jsonl, line 3: NaN is not allowed \(every number must be finite\)$"):
        files.read_rows(nan)  # bare NaN is not JSON; the one reader refuses it as it reads
    for row in files.read_rows(_bytes(tmp_path, "texts.jsonl", b'{"s": "x"}\n{"s": true}\n')):
        with pytest.raises(InputFileError, match=f"line {row[0]}: 's' must be a"):
            files.number_field(row, "s", "texts.jsonl")
    many = _bytes(tmp_path, "many.jsonl", b'{"a": 1}\n' * 5)
    with pytest.raises(InputFileError, match="more than 3 rows"):
        files.read_rows(many, max_rows=3)


def test_json_list_and_gzip_jsonl(tmp_path):
    path = _bytes(tmp_path, "d.json", b'[{"a": "x"},\n {"a": "y"}]')
    assert [r["a"] for _, r in files.read_rows(path)] == ["x", "y"]
    bad = _bytes(tmp_path, "bad.json", b'[{"a": "x"},\n {"a": }]')
    with pytest.raises(InputFileError, match=r"bad\.json, line 2: not valid JSON"):
        files.read_rows(bad)
    gz = _bytes(tmp_path, "d.jsonl.gz", gzip.compress(b'{"a": "z"}\n'))
    assert files.table_format(gz) == "jsonl" and files.read_rows(gz) == [(1, {"a": "z"})]
    with pytest.raises(InputFileError, match="cannot tell the format"):
        files.table_format("x.xlsx")


def test_csv_rows_with_quoted_newlines_and_errors(tmp_path):
    path = _bytes(tmp_path, "d.csv", b'\xef\xbb\xbfprediction,reference\n"two\nlines",r1\nsolo\n\nlast,"r, 3"\n')
    rows = files.read_rows(path)
    assert [r for _, r in rows] == [{"prediction": "two\nlines", "reference": "r1"},
                                    {"prediction": "solo", "reference": ""},
                                    {"prediction": "last", "reference": "r, 3"}]
    assert [n for n, _ in rows] == [3, 4, 6]  # the line where each row ends
    with pytest.raises(InputFileError, match=r"d\.csv, line 4: missing key 'source'"):
        files.field(rows[1], "source", path)
    wide = _bytes(tmp_path, "wide.csv", b"a,b\n1,2,3\n")
    with pytest.raises(InputFileError, match=r"wide\.csv, line 2: 3 cells but the header has 2"):
        files.read_rows(wide)
    empty = _bytes(tmp_path, "empty.csv", b"")
    with pytest.raises(InputFileError, match="the file is empty"):
        files.read_rows(empty)
    dup = _bytes(tmp_path, "dup.csv", b"a,a\n1,2\n")
    with pytest.raises(InputFileError, match="line 1: column"):
        files.read_rows(dup)
    tsv = _bytes(tmp_path, "d.tsv", b"prediction\treference\nx\ty\n")
    assert files.read_rows(tsv) == [(2, {"prediction": "x", "reference": "y"})]


def test_csv_output_cannot_run_formulas(tmp_path):
    assert export.csv_safe("=HYPERLINK(\"http://x\",\"y\")") == "'=HYPERLINK(\"http://x\",\"y\")"
    for bad in ["+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]:
        assert export.csv_safe(bad) == "'" + bad
    assert export.csv_safe("plain text") == "plain text"
    assert export.csv_safe(-0.5) == -0.5 and export.csv_safe(3) == 3
    rows = [{"prediction": "=1+1", "score": -0.25}, {"prediction": "ok", "score": 1}]
    out = export.write_csv(tmp_path / "o.csv", rows)
    with open(out, newline="", encoding="utf-8") as fh:
        got = list(csv.reader(fh))
    assert got == [["prediction", "score"], ["'=1+1", "-0.25"], ["ok", "1"]]


def test_a_quote_left_open_or_text_after_a_closing_quote_is_an_error(tmp_path):
    # before: the open quote swallowed the rest of the file into one cell (three rows read as
    # one), and a TSV cell '"Hello" she said.' silently lost its quotes
    swallow = _bytes(tmp_path, "q.csv", b'prediction,reference\na,b\nc,"d\ne,f\n')
    with pytest.raises(InputFileError, match=r"q\.csv, line 4: not valid CSV \(unexpected end of data\)"):
        files.read_rows(swallow)
    quoted = _bytes(tmp_path, "q.tsv", b'prediction\treference\n"Hello" she said.\tx\n')
    with pytest.raises(InputFileError, match=r"q\.tsv, line 2: not valid TSV .*double every"):
        files.read_rows(quoted)
    proper = _bytes(tmp_path, "ok.tsv", b'prediction\treference\n"""Hello"" she said."\tx\n')
    assert files.read_rows(proper) == [(2, {"prediction": '"Hello" she said.', "reference": "x"})]


def test_pipes_standard_input_and_utf16_are_refused_by_name(tmp_path):
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match=r"pipe: not a regular file"):
        files.read_lines(str(fifo))  # before: UnsupportedOperation 'not seekable', no file name
    with pytest.raises(InputFileError, match=r"^-: standard input is not read here"):
        files.read_lines("-")
    assert files.read_lines(os.devnull) == []
    utf16 = _bytes(tmp_path, "u16.txt", "hello\nworld\n".encode("utf-16"))
    with pytest.raises(InputFileError, match=r"u16\.txt: UTF-16 text"):
        files.read_lines(utf16)


def test_a_carriage_return_inside_a_line_warns_once_per_file(tmp_path):
    mac = _bytes(tmp_path, "mac.txt", b"one\rtwo\rthree\r")
    with pytest.warns(UserWarning, match=r"mac\.txt, line 1: a carriage return") as seen:
        assert files.read_lines(mac) == ["one\rtwo\rthree\r"]
    assert len([w for w in seen if "carriage return" in str(w.message)]) == 1
    import warnings

    crlf = _bytes(tmp_path, "crlf.txt", b"a\r\nb\r\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert files.read_lines(crlf) == ["a", "b"]


def test_a_number_field_beyond_the_float_range_is_not_finite():
    # a JSON integer of 400 digits raised OverflowError from float(), not an InputFileError
    with pytest.raises(InputFileError, match=r"x\.jsonl, line 3: 's' must be a finite number"):
        files.number_field((3, {"s": 10 ** 400}), "s", "x.jsonl")
    assert files.number_field((3, {"s": "2.5"}), "s", "x.jsonl") == 2.5

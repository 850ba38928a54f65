"""Reading the user's input files (plain or gzipped lines, JSON lines, CSV/TSV tables) and
writing CSV that spreadsheets cannot execute. Used by the command line and the Spaces.

Every problem is an :class:`InputFileError` (a ``ValueError``) whose message names the file
and, for a row, the line: ``hyp.txt: no such file``, ``data.jsonl, line 2: not valid JSON``,
``data.csv, line 3: missing key 'references'``. Nothing else escapes from here.

Lines: UTF-8, one item per ``\\n``-terminated line (a final line without ``\\n`` counts; a
``\\r`` before the ``\\n`` is dropped, a stray ``\\r`` inside a line stays, with a warning
once per file and process); a leading byte order mark is stripped (UTF-16 is refused by name);
an empty file holds no line, a file of one empty line holds one empty item. Only regular files
are read (not pipes or standard input: the command line reads its inputs more than once;
``/dev/null`` is an empty file). Gzip is recognised by its magic bytes (the ``.gz`` suffix is not needed, and a ``.gz``
file that is not gzip is an error).
"""
from __future__ import annotations

import contextlib
import csv
import gzip
import io
import math
import os
import warnings
import zlib
from pathlib import Path
from typing import (
    IO,
    Any,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import structured
from .regular_files import InputFileError, check_unchanged, excerpt, open_regular, read_bytes

PathLike = Union[str, "os.PathLike[str]"]
Row = Tuple[int, Dict[str, Any]]  # (line number, row)

_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: files already warned about a carriage return inside a line (once per file and process)
_CR_WARNED: set[str] = set()
#: bounds of every file read here, decompressed: bytes per line and per file, the one set of
#: limits of every reader (:mod:`nlgmetrics.core.structured`); a Space lowers them with :func:`limits`
MAX_LINE_BYTES = structured.MAX_LINE_BYTES
MAX_FILE_BYTES = structured.MAX_FILE_BYTES
limits = structured.limits


def _name(path: PathLike, label: Optional[str]) -> str:
    return label if label is not None else str(path)


@contextlib.contextmanager
def open_binary(path: PathLike, label: Optional[str] = None) -> Iterator[IO[bytes]]:
    """The file's bytes, decompressed when it is gzip; clear errors for a missing file, a
    directory, a FIFO or device, a file that cannot be read, a damaged gzip stream, and a
    file that changes while the block reads it (checked when the block ends normally)."""
    name = _name(path, label)
    p = Path(path)
    if str(path) == "-":
        raise InputFileError("-: standard input is not read here (the inputs are read more than once); give a file")
    raw, before = open_regular(p, name, devnull=True)
    with raw:
        is_gzip = read_bytes(raw, 2, name) == _GZIP_MAGIC  # /proc/self/mem: a regular file whose read fails
        raw.seek(0)
        if not is_gzip and p.suffix.lower() == ".gz" and before.st_size > 0:
            raise InputFileError(f"{name}: not a gzip file (its name ends in .gz)")
        max_bytes = structured.current_limits()[0]
        if not is_gzip:
            if before.st_size > max_bytes:
                raise InputFileError(f"{name}: larger than {max_bytes:,} bytes, the most read from one file")
            yield raw
        else:
            try:
                with gzip.GzipFile(fileobj=raw, mode="rb") as fh:
                    yield io.BufferedReader(_GzipErrors(fh, name, max_bytes))
            except (OSError, EOFError, zlib.error) as err:  # the header itself is bad
                raise InputFileError(f"{name}: not a valid gzip file ({err})") from None
        check_unchanged(raw, before, name)


class _GzipErrors(io.RawIOBase):
    """Reads a gzip stream, turning a damaged or truncated stream into InputFileError."""

    def __init__(self, fh: gzip.GzipFile, name: str, max_bytes: int) -> None:
        super().__init__()
        self._fh, self._name, self._left = fh, name, max_bytes

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self._fh.read(len(buffer))
        except (OSError, EOFError, zlib.error) as err:
            raise InputFileError(f"{self._name}: not a valid gzip file or truncated ({err})") from None
        self._left -= len(data)
        if self._left < 0:  # counted as it is decompressed: the expansion never sits in memory
            raise InputFileError(f"{self._name}: expands to more than {structured.current_limits()[0]:,} bytes once "
                                 "decompressed, the most read from one file")
        buffer[: len(data)] = data
        return len(data)


def _decode(raw: bytes, name: str, lineno: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        if lineno == 1 and raw[:2] in _UTF16_BOMS:
            raise InputFileError(f"{name}: UTF-16 text (it starts with a UTF-16 byte order mark); save the file "
                                 "as UTF-8") from None
        raise InputFileError(f"{name}, line {lineno}: not valid UTF-8 (byte {err.start + 1} of the line is "
                             f"{raw[err.start:err.start + 1]!r}); save the file as UTF-8") from None


def _raw_lines(fh: IO[bytes], name: str, max_line_bytes: int) -> Iterator[bytes]:
    lineno = 0
    while True:
        raw = fh.readline(max_line_bytes + 1)
        if not raw:
            return
        lineno += 1
        if len(raw) > max_line_bytes and not (len(raw) == max_line_bytes + 1 and raw.endswith(b"\n")):
            raise InputFileError(f"{name}, line {lineno}: longer than {max_line_bytes:,} bytes, the most read "
                                 "as one line")
        yield raw


def _chomp(line: str) -> str:
    """A line without its end: ``\\n`` or ``\\r\\n`` (a stray ``\\r`` stays)."""
    if line.endswith("\n"):
        line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
    return line


def iter_lines(path: PathLike, label: Optional[str] = None, *, max_line_bytes: Optional[int] = None) -> Iterator[str]:
    """The file's lines one at a time (constant memory), decoded and checked as UTF-8; a line
    longer than ``max_line_bytes`` (default: :data:`MAX_LINE_BYTES` or the :func:`limits` in
    force) is an error naming the file and line, so a crafted file cannot make a reader hold
    gigabytes."""
    name = _name(path, label)
    if max_line_bytes is None:
        max_line_bytes = structured.current_limits()[1]
    with open_binary(path, label) as fh:
        lines = enumerate(_raw_lines(fh, name, max_line_bytes), start=1)
        while True:
            try:
                lineno, raw = next(lines)
            except StopIteration:
                return
            except OSError as err:  # a read error after a successful open (a device, a failing disk)
                raise InputFileError(f"{name}: cannot read ({err.strerror or err})") from None
            if lineno == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM):]
            line = _chomp(_decode(raw, name, lineno))
            if "\r" in line and name not in _CR_WARNED:  # once per file: the CLI reads a file more than once
                _CR_WARNED.add(name)
                warnings.warn(f"{name}, line {lineno}: a carriage return (\\r) inside the line; only \\n ends a "
                              "line, so a file with old Mac line ends (\\r alone) reads as one line", stacklevel=2)
            yield line


def split_lines(text: str) -> List[str]:
    """A typed or pasted text's lines by the rule of a file's (see the module): only ``\\n``
    ends a line (not U+2028, ``\\x85`` or a form feed, as :meth:`str.splitlines` would), a
    final line without one counts, an empty line is an empty item, an empty text holds none.

    >>> split_lines("a\\r\\n\\nb\\u2028c\\n"), split_lines(""), split_lines("\\n")
    (['a', '', 'b\\u2028c'], [], [''])
    """
    return [_chomp(line) for line in io.StringIO(text, newline="\n")]


def read_lines(path: PathLike, label: Optional[str] = None) -> List[str]:
    """All lines of a text file (see the module's rules)."""
    return list(iter_lines(path, label))


def count_lines(path: PathLike, label: Optional[str] = None) -> int:
    """How many items :func:`iter_lines` yields, reading the whole file once (so every error
    :func:`iter_lines` would raise, a non-UTF-8 line included, is raised here) without
    keeping the lines."""
    count = 0
    for _ in iter_lines(path, label):
        count += 1
    return count


# -- tables -------------------------------------------------------------------------------------
def table_format(path: PathLike) -> str:
    """``jsonl``, ``json``, ``csv`` or ``tsv`` from the file name (a ``.gz`` suffix is skipped)."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    formats = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv"}
    if last not in formats:
        raise InputFileError(f"{path}: cannot tell the format; use a .jsonl, .json, .csv or .tsv file (.gz ok)")
    return formats[last]


def iter_jsonl(path: PathLike, label: Optional[str] = None) -> Iterator[Row]:
    """``(line number, object)`` per non-blank line of a JSON-lines file, each line read by the
    one reader (:func:`nlgmetrics.core.structured.parse_json`: depth, size and finite numbers
    checked), at most :data:`~nlgmetrics.core.structured.MAX_ITEMS` rows."""
    name = _name(path, label)
    count = 0
    for lineno, line in enumerate(iter_lines(path, label), start=1):
        if not line.strip():
            continue
        count += 1
        where = f"{name}, line {lineno}"
        structured.check_count(count, where)
        yield lineno, _json_object(structured.parse_json(line, where), where)


def _read_json_list(path: PathLike, label: Optional[str]) -> List[Row]:
    name = _name(path, label)
    text = "\n".join(iter_lines(path, label, max_line_bytes=structured.current_limits()[0]))  # one line may hold it all
    rows = structured.parse_json(text, name, whole_file=True)
    if not isinstance(rows, list):
        raise InputFileError(f"{name}: a .json file must hold a list of objects [{{...}}, ...]")
    return [(i + 1, _json_object(row, f"{name}, item {i + 1}")) for i, row in enumerate(rows)]


def _json_object(row: Any, where: str) -> Dict[str, Any]:
    """``row`` when it is a JSON object, else ``InputFileError`` saying so at ``where``."""
    if not isinstance(row, dict):
        raise InputFileError(f"{where}: expected a JSON object {{...}}, got {type(row).__name__}")
    return row


def iter_csv(path: PathLike, delimiter: str = ",", label: Optional[str] = None, missing: Optional[str] = "") -> Iterator[Row]:
    """``(line number, {column: text})`` per row of a CSV/TSV file with a header line.
    A row with more cells than the header is an error; missing cells are ``missing`` (an
    empty string, or ``None`` for callers that report short rows themselves)."""
    name = _name(path, label)
    # strict: a quote left open or text after a closing quote is an error naming the line, not a
    # cell that silently swallows the rest of the file or loses its quotes
    reader = csv.reader((line + "\n" for line in iter_lines(path, label)), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise InputFileError(f"{name}: the file is empty (a header line naming the columns is needed)")
        header = [h.strip() for h in header]
        dupes = sorted({h for h in header if header.count(h) > 1})
        if dupes:
            raise InputFileError(f"{name}, line 1: column(s) {', '.join(map(repr, dupes))} appear more than once")
        for cells in reader:
            lineno = reader.line_num
            if not cells or (len(cells) == 1 and not cells[0].strip() and len(header) > 1):
                continue
            if len(cells) > len(header):
                raise InputFileError(f"{name}, line {lineno}: {len(cells)} cells but the header has {len(header)}")
            yield lineno, {h: (cells[i] if i < len(cells) else missing) for i, h in enumerate(header)}
    except csv.Error as err:
        kind = "TSV" if delimiter == "\t" else "CSV"
        raise InputFileError(f"{name}, line {reader.line_num}: not valid {kind} ({err}); a cell that starts with "
                             '" is read as a quoted cell, which must end with " and double every " inside it '
                             "(write such cells quoted, as spreadsheets and pandas do, or use JSON lines)") from None


def iter_rows(path: PathLike, fmt: Optional[str] = None, label: Optional[str] = None) -> Iterator[Row]:
    """Rows of a table file in any supported format (``fmt`` defaults to the file name's)."""
    fmt = fmt or table_format(label or path)
    if fmt == "jsonl":
        return iter_jsonl(path, label)
    if fmt == "json":
        return iter(_read_json_list(path, label))
    if fmt in ("csv", "tsv"):
        return iter_csv(path, "\t" if fmt == "tsv" else ",", label)
    raise InputFileError(f"{_name(path, label)}: unknown table format {fmt!r}")


def read_rows(path: PathLike, fmt: Optional[str] = None, label: Optional[str] = None,
              max_rows: Optional[int] = None) -> List[Row]:
    """All rows; with ``max_rows`` reading stops (with an error) past that many."""
    rows: List[Row] = []
    for row in iter_rows(path, fmt, label):
        rows.append(row)
        if max_rows is not None and len(rows) > max_rows:
            raise InputFileError(f"{_name(path, label)}: more than {max_rows} rows; at most {max_rows} are taken here")
    return rows


def field(row: Row, key: str, name: str, *, aliases: Sequence[str] = (), default: Any = ...) -> Any:
    """``row[key]`` (``a.b`` for nesting; ``aliases`` tried too), or an error such as
    ``data.jsonl, line 3: missing key 'references'``; with ``default`` a missing key gives it."""
    lineno, values = row
    for candidate in (key, *aliases):
        found, value = _lookup(values, candidate)
        if found:
            return value
    if default is not ...:
        return default
    also = f" (or {', '.join(map(repr, aliases))})" if aliases else ""
    keys = ", ".join(map(repr, values)) or "none"
    raise InputFileError(f"{name}, line {lineno}: missing key {key!r}{also}; the row has {keys}")


def _lookup(values: Mapping[str, Any], key: str) -> Tuple[bool, Any]:
    if key in values:
        return True, values[key]
    value: Any = values
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False, None
        value = value[part]
    return True, value


def text_field(row: Row, key: str, name: str, *, aliases: Sequence[str] = (), allow_list: bool = False) -> Any:
    """A text (or, with ``allow_list``, a non-empty list of texts) from a row, checked."""
    return text_value(field(row, key, name, aliases=aliases), f"{name}, line {row[0]}", key, allow_list=allow_list)


def text_value(value: Any, where: str, key: str, *, allow_list: bool = False) -> Any:
    """``value`` of a row's ``key`` when it is a text (or, with ``allow_list``, a non-empty list
    of texts), else an error naming ``where`` (the file and line) and the key."""
    if isinstance(value, str):
        return value
    if allow_list and isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return value
    want = "a string or a non-empty list of strings" if allow_list else "a string"
    raise InputFileError(f"{where}: {key!r} must be {want}, got {excerpt(value)}")


def number_field(row: Row, key: str, name: str) -> float:
    """A finite number from a row (JSON number, or a CSV cell that parses as one)."""
    value = field(row, key, name)
    number = _to_float(value)
    if number is None:
        raise InputFileError(f"{name}, line {row[0]}: {key!r} must be a number, got {excerpt(value)}")
    if not math.isfinite(number):
        raise InputFileError(f"{name}, line {row[0]}: {key!r} must be a finite number, got {excerpt(value)}")
    return number


def _to_float(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return float(value)
    except ValueError:
        return None
    except OverflowError:  # a JSON integer beyond the float range: not finite (was an uncaught crash)
        return math.inf


__all__ = ["MAX_FILE_BYTES", "MAX_LINE_BYTES", "InputFileError", "count_lines", "excerpt", "field", "iter_csv", "iter_jsonl", "iter_lines",
           "iter_rows", "limits", "number_field", "open_binary", "read_lines", "read_rows", "split_lines", "table_format",
           "text_field", "text_value"]

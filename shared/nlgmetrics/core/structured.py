"""The one reader of structured text and its one set of limits: JSON from option files, inline
option values (``-o weights={...}``), records files, JSON-lines inputs and meta-evaluation rows
is parsed here, and line-based score files are held to the same size and count limits.

Limits, the same numbers for every reader (:mod:`nlgmetrics.core.files` and
:mod:`nlgmetrics.core.option_files` re-export them): :data:`MAX_LINE_BYTES` per line or inline
value, :data:`MAX_FILE_BYTES` per file (decompressed; a Space lowers both with :func:`limits`),
:data:`MAX_DEPTH` nested arrays and objects, :data:`MAX_ITEMS` values in one JSON document and
rows, records or scores in one file.

Nesting and size are checked on the text, without recursion, *before* :func:`json.loads` runs,
so no input reaches Python's recursion limit or builds an unbounded structure. Every number
must be finite (``NaN``, ``Infinity``, ``1e400`` and integers beyond the float range are
refused). Every problem is one :class:`StructuredInputError` (an ``InputFileError``, so a
``ValueError``) whose message names the option or file and line: ``-o weights: nested deeper
than 32 levels``, ``parts.jsonl, line 3: not valid JSON (Expecting value, column 7)``.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import math
import re
from contextvars import ContextVar
from typing import Any, Callable, Dict, Iterator, Optional, Tuple

from .regular_files import InputFileError, excerpt

#: the most bytes of one line of a file, or of one inline value (a crafted file cannot make a
#: reader hold gigabytes in one line)
MAX_LINE_BYTES = 8 * 2**20
#: the most bytes read from one file, decompressed (a gzip of a few hundred KB can expand to
#: gigabytes)
MAX_FILE_BYTES = 2**30
#: the deepest nesting of arrays and objects in any JSON read (Python's parser recurses per level)
MAX_DEPTH = 32
#: the most values in one JSON document, and rows, records or scores in one file
MAX_ITEMS = 10**7
_LIMITS: ContextVar[Tuple[int, int]] = ContextVar("nlgmetrics_file_limits", default=(MAX_FILE_BYTES, MAX_LINE_BYTES))

_ESCAPES = re.compile(r"\\.", re.DOTALL)
_STRINGS = re.compile(r'"[^"]*"')  # once escapes are gone: linear, even on an unterminated string
#: the bytes that are not brackets (UTF-8 encodes any other character without one), and ``{}`` as ``[]``
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_SAME = bytes.maketrans(b"{}", b"[]")
_STEP = {ord("["): 1, ord("]"): -1}
_EMPTY = re.compile(r"\[[ \t\n\r]*\]|\{[ \t\n\r]*\}")
_TOKENS = re.compile(r'\\.|"|[\[\]{}]', re.DOTALL)
_FLOAT_DIGITS = 309  # an integer of more digits is beyond 1.8e308 (and int() refuses 4,300)


class StructuredInputError(InputFileError):
    """Structured input that cannot be used: ``where`` (the option, or the file and line) and
    ``problem``; the message is ``"{where}: {problem}"``. ``syntax``: the text is not JSON
    (rather than JSON beyond a limit)."""

    def __init__(self, where: str, problem: str, *, syntax: bool = False) -> None:
        super().__init__(f"{where}: {problem}")
        self.where, self.problem, self.syntax = where, problem, syntax

    def at(self, where: str) -> "StructuredInputError":
        """The same problem named another way (``lexicon`` as ``-o lexicon``)."""
        return type(self)(where, self.problem, syntax=self.syntax)


class Refused(ValueError):
    """Raised by an ``object_hook`` of :func:`parse_json` to refuse a value; the reader turns it
    into a :class:`StructuredInputError` naming where it was."""


@contextlib.contextmanager
def limits(max_bytes: int, max_line_bytes: int) -> Iterator[None]:
    """Read files within ``max_bytes`` (decompressed) and lines and inline values within
    ``max_line_bytes`` inside the block (this thread or task only)."""
    token = _LIMITS.set((max_bytes, max_line_bytes))
    try:
        yield
    finally:
        _LIMITS.reset(token)


def current_limits() -> Tuple[int, int]:
    """``(bytes per file, bytes per line or inline value)`` in force here."""
    return _LIMITS.get()


def check_count(count: int, where: str, what: str = "rows") -> None:
    """Refuse the ``count``-th row (record, score) of a file beyond :data:`MAX_ITEMS`."""
    if count > MAX_ITEMS:
        raise StructuredInputError(where, f"more than {MAX_ITEMS:,} {what}, the most read from one file")


def parse_json(text: str, where: str, *, whole_file: bool = False,
               object_hook: Optional[Callable[[Dict[str, Any]], Any]] = None) -> Any:
    """The JSON value of ``text`` within the limits (see the module), or one
    :class:`StructuredInputError` naming ``where``: an option (``-o weights``) or a file and
    line (``parts.jsonl, line 3``); with ``whole_file`` ``text`` is a whole file's and errors
    add the line they are on. ``object_hook`` may raise :class:`Refused`."""
    max_bytes = _LIMITS.get()[0 if whole_file else 1]
    if len(text) > max_bytes // 4 and len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise StructuredInputError(where, f"longer than {max_bytes:,} bytes, the most read as one "
                                          f"{'file' if whole_file else 'value'}")
    _check_shape(text, where, whole_file)
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_finite_int,
                          object_hook=object_hook)
    except json.JSONDecodeError as err:
        place = f"{where}, line {err.lineno}" if whole_file else where
        raise StructuredInputError(place, f"not valid JSON ({err.msg}, column {err.colno})", syntax=True) from None
    except Refused as err:
        raise StructuredInputError(where, str(err)) from None
    except RecursionError:  # cannot happen within MAX_DEPTH; kept so nothing deep escapes
        raise StructuredInputError(where, f"nested deeper than {MAX_DEPTH} levels") from None


def parse_json_or_text(text: str, where: str) -> Any:
    """An inline option value: its JSON value when it is JSON, else the text itself (a path,
    a name); within the limits either way (a deep or huge text is an error, not a string)."""
    try:
        return parse_json(text, where)
    except StructuredInputError as err:
        if err.syntax:
            return text
        raise


def _check_shape(text: str, where: str, whole_file: bool) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and more than :data:`MAX_ITEMS` values,
    counted on the text (outside strings) without recursion, in time linear in its length."""
    if text.count("[") + text.count("{") <= MAX_DEPTH and len(text) < 2 * MAX_ITEMS:
        return  # n characters hold at most (n + 1) / 2 values
    skeleton = _STRINGS.sub('""', _ESCAPES.sub("", text) if "\\" in text else text)
    if _depth_over(skeleton.encode("utf-8", "surrogatepass").translate(_SAME, _NOT_BRACKETS)):
        place = f"{where}, line {_deep_line(text)}" if whole_file else where
        raise StructuredInputError(place, f"nested deeper than {MAX_DEPTH} levels")
    if len(text) >= 2 * MAX_ITEMS:
        nonempty = skeleton.count("[") + skeleton.count("{") - len(_EMPTY.findall(skeleton))
        if 1 + skeleton.count(",") + nonempty > MAX_ITEMS:  # a container's elements: its commas + 1
            raise StructuredInputError(where, f"more than {MAX_ITEMS:,} values, the most read from one JSON text")


def _depth_over(brackets: bytes) -> bool:
    """Whether ``[`` and ``]`` nest deeper than :data:`MAX_DEPTH` anywhere, as a parser reading
    left to right meets them (an unclosed ``[`` counts). Innermost pairs are dropped a level a
    pass (fast on any real text): nothing left after :data:`MAX_DEPTH` passes is a balanced
    text within the limit; else the nesting is counted."""
    left = brackets
    for _ in range(MAX_DEPTH):
        if not left:
            return False
        inner = left.replace(b"[]", b"")
        if len(inner) == len(left):
            break
        left = inner
    if not left:
        return False
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH


def _deep_line(text: str) -> int:
    """The line of the bracket that first nests deeper than :data:`MAX_DEPTH` (error path only)."""
    depth, in_string = 0, False
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif not in_string and token[0] != "\\":
            depth += 1 if token in "[{" else -1
            if depth > MAX_DEPTH:
                return text.count("\n", 0, match.start()) + 1
    return 1


def _refuse_constant(token: str) -> Any:
    raise Refused(f"{token} is not allowed (every number must be finite)")


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise Refused(f"the number {excerpt(token)} is beyond the float range (every number must be finite)")
    return value


def _finite_int(token: str) -> int:
    try:
        if len(token.lstrip("-")) > _FLOAT_DIGITS:  # int() of 4,300 digits is refused, and slow before that
            raise OverflowError
        value = int(token)
        float(value)
    except OverflowError:
        raise Refused(f"the number {excerpt(token)} is beyond the float range (every number must be "
                      "finite)") from None
    return value


__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_ITEMS", "MAX_LINE_BYTES", "Refused", "StructuredInputError",
           "check_count", "current_limits", "limits", "parse_json", "parse_json_or_text"]

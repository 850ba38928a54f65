"""What a Space lets a person download: a CSV of the scores whose text cells a spreadsheet
never runs as formulas, and the result as JSON, both written by the package's one writer
(:mod:`nlgmetrics.core.atomic`: atomic, a new temporary file, no special file replaced)."""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from nlgmetrics.core import atomic

PathLike = Union[str, Path]
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """A cell a spreadsheet shows as text: a string starting with ``= + - @`` (or a tab or
    carriage return) gets a leading ``'`` so it is never run as a formula. Numbers pass."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def write_csv(path: PathLike, rows: Sequence[Mapping[str, Any]], columns: Optional[Sequence[str]] = None) -> Path:
    """A CSV file (UTF-8, header first) with every text cell made :func:`csv_safe`."""
    cols = list(columns) if columns is not None else list(dict.fromkeys(k for r in rows for k in r))
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow([csv_safe(c) for c in cols])
    for row in rows:
        writer.writerow([csv_safe(row.get(c, "")) for c in cols])
    return atomic.write_file(path, buffer.getvalue().encode("utf-8"), "CSV")


def write_text(path: PathLike, text: str) -> Path:
    """A UTF-8 text file (the result's JSON), written atomically."""
    return atomic.write_file(path, text.encode("utf-8"), "export")


__all__ = ["csv_safe", "write_csv", "write_text"]

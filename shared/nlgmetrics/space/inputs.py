"""What a Space reads and writes: the example tab's text boxes as scorer inputs (one segment
per line), uploaded CSV/TSV/JSONL/JSON batch files (errors name the row and the file's line,
in the user's terms), and the downloadable score files (CSV with spreadsheet-formula cells
escaped, and the full result as JSON)."""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from nlgmetrics.core import files
from nlgmetrics.core.result import MetricResult
from nlgmetrics.space import export

#: lines accepted on the example tab; more go through the batch tab
MAX_EXAMPLE_LINES = 64
#: rows accepted in one uploaded batch file
MAX_BATCH_ROWS = 5000
#: separator of several references on one line (multi-reference metrics)
REFERENCE_SEPARATOR = "|||"


def _lines(text: Optional[str]) -> List[str]:
    """A text box's segments, lines as the CLI reads a file's (:func:`nlgmetrics.core.files.split_lines`:
    a blank line between others is an empty text, one final newline ends the last line), each
    stripped of surrounding spaces; a box holding only whitespace holds none."""
    if not text or not text.strip():
        return []
    return [line.strip() for line in files.split_lines(text)]


def _reference_line(line: str, multi: bool) -> Any:
    parts = [p.strip() for p in line.split(REFERENCE_SEPARATOR)]
    if multi and len(parts) > 1:
        return [p for p in parts if p]
    return line


def example_inputs(cls: Any, predictions: Optional[str], references: Optional[str], sources: Optional[str],
                   reference_set: bool = False) -> Dict[str, Any]:
    """The example tab's text boxes as scorer inputs: one segment per line, lines aligned.
    With ``reference_set`` every prediction is rated against all non-blank reference lines
    (TextEval's standard set: its lines do not pair with the predictions, so a blank line is
    no member). Multi-reference metrics take several references on a line separated by
    ``|||``."""
    preds = _lines(predictions)
    if not preds:
        raise ValueError("Enter at least one prediction (one segment per line).")
    if len(preds) > MAX_EXAMPLE_LINES:
        raise ValueError(f"{len(preds)} prediction lines: the example tab takes at most {MAX_EXAMPLE_LINES}; "
                         "use the batch tab for more.")
    out: Dict[str, Any] = {"predictions": preds, "references": None, "sources": None}
    if cls.references_mode != "none":
        refs = _lines(references)
        if reference_set:
            refs = [r for r in refs if r]
        if not refs and cls.references_mode == "required":
            raise ValueError("Enter the reference(s): this metric compares each prediction with a reference.")
        if refs and reference_set:
            out["references"] = [list(refs) for _ in preds]
        elif refs:
            if len(refs) != len(preds):
                raise ValueError(f"{len(preds)} prediction line(s) but {len(refs)} reference line(s): give one "
                                 "reference line per prediction line.")
            out["references"] = [_reference_line(r, cls.multi_reference) for r in refs]
    if cls.sources_mode != "none":
        srcs = _lines(sources)
        if srcs and len(srcs) != len(preds):
            raise ValueError(f"{len(preds)} prediction line(s) but {len(srcs)} source line(s): give one source "
                             "line per prediction line, or none.")
        if not srcs and cls.sources_mode == "required":
            raise ValueError("Enter the source(s): this metric needs the source of each prediction.")
        out["sources"] = srcs or None
    return out


ALIASES = {"predictions": ("prediction", "predictions", "hypothesis", "hyp", "candidate", "output"),
           "references": ("reference", "references", "ref", "refs"),
           "sources": ("source", "sources", "src")}
_REF_COLUMN = re.compile(r"^(?:references?|refs?)(?:[ _-]?\d+)?$")
_SINGULAR = {"predictions": "prediction", "references": "reference", "sources": "source"}


def _pick(keys: Sequence[str], field_name: str) -> Optional[str]:
    lowered = {k.strip().lower(): k for k in keys}
    for alias in ALIASES[field_name]:
        if alias in lowered:
            return lowered[alias]
    return None


def read_batch(path: str, cls: Any, max_rows: int = MAX_BATCH_ROWS) -> Dict[str, Any]:
    """Scorer inputs from an uploaded file (read by :mod:`nlgmetrics.core.files`, as the CLI does).

    CSV/TSV (with a header): a ``prediction`` column, ``reference`` (several columns
    ``reference_1``, ``reference_2`` ... for multi-reference metrics) and ``source``.
    JSONL (one object a line) or JSON (a list of objects): the same keys; a reference may be a
    list of strings. ``hypothesis``/``hyp``, ``ref`` and ``src`` are accepted as names too.
    Errors name the file by its own name (never the server's path), the row (1 = the first
    data row) and the line of the file.
    """
    name = Path(path).name
    suffix = Path(path).suffix.lower()
    if suffix in (".csv", ".tsv"):
        rows = _rows(files.iter_csv(path, "\t" if suffix == ".tsv" else ",", label=name, missing=None), name, max_rows)
        return _read_csv(rows, cls, name)
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _read_json(_rows(files.iter_rows(path, label=name), name, max_rows), cls)
    raise ValueError(f"cannot read {name}: upload a .csv, .tsv, .jsonl or .json file")


def _rows(rows: Iterator[files.Row], name: str, max_rows: int) -> List[Tuple[str, Dict[str, Any]]]:
    """``(where, row)`` in the user's terms, at most ``max_rows`` (the file read lazily)."""
    out: List[Tuple[str, Dict[str, Any]]] = []
    for lineno, row in rows:
        if len(out) == max_rows:
            raise ValueError(f"{name} holds more than {max_rows} rows; this Space scores at most {max_rows} at once "
                             "(use the Python package or the CLI for more)")
        out.append((f"row {len(out) + 1} (line {lineno} of {name})", row))
    if not out:
        raise ValueError(f"{name} holds no rows")
    return out


def _cell(row: Mapping[str, Any], column: str, where: str) -> str:
    value = row.get(column)
    if value is None:
        raise ValueError(f"{where} has no '{column}' value (the row is shorter than the header)")
    return str(value)


def _read_csv(rows: List[Tuple[str, Dict[str, Any]]], cls: Any, name: str) -> Dict[str, Any]:
    columns = list(rows[0][1])
    pred_col = _pick(columns, "predictions")
    if pred_col is None:
        raise ValueError(f"{name} has no 'prediction' column (columns found: {', '.join(columns) or 'none'})")
    ref_cols = [c for c in columns if _REF_COLUMN.match(c.strip().lower())]
    src_col = _pick(columns, "sources")
    out: Dict[str, Any] = {"predictions": [_cell(r, pred_col, w) for w, r in rows], "references": None,
                           "sources": None}
    if ref_cols and cls.references_mode != "none":
        if len(ref_cols) > 1 and not cls.multi_reference:
            raise ValueError(f"{cls.name} takes one reference per segment; the file has {len(ref_cols)} "
                             f"reference columns ({', '.join(ref_cols)})")
        if cls.multi_reference:
            out["references"] = [[r[c] for c in ref_cols if (r.get(c) or "").strip()] or [_cell(r, ref_cols[0], w)]
                                 for w, r in rows]
        else:
            out["references"] = [_cell(r, ref_cols[0], w) for w, r in rows]
    if src_col is not None and cls.sources_mode != "none":
        out["sources"] = [_cell(r, src_col, w) for w, r in rows]
    return _check_required(out, cls, columns)


def _read_json(rows: List[Tuple[str, Dict[str, Any]]], cls: Any) -> Dict[str, Any]:
    keys = list(dict.fromkeys(k for _, r in rows for k in r))
    out: Dict[str, Any] = {"predictions": None, "references": None, "sources": None}
    for field_name in out:
        key = _pick(keys, field_name)
        if key is None or (field_name == "references" and cls.references_mode == "none") or \
                (field_name == "sources" and cls.sources_mode == "none"):
            continue
        values = []
        for where, row in rows:
            value = row.get(key)
            if value is None:
                raise ValueError(f"{where} has no '{_SINGULAR[field_name]}' value (other rows have '{key}')")
            if field_name == "references" and not cls.multi_reference and isinstance(value, list) and len(value) == 1:
                value = value[0]
            values.append(files.text_value(value, where, key,
                                           allow_list=field_name == "references" and cls.multi_reference))
        out[field_name] = values
    if out["predictions"] is None:
        raise ValueError(f"the rows have no 'prediction' key (keys found: {', '.join(keys) or 'none'})")
    return _check_required(out, cls, keys)


def _check_required(out: Dict[str, Any], cls: Any, names: Sequence[str]) -> Dict[str, Any]:
    if out["references"] is None and cls.references_mode == "required":
        raise ValueError(f"{cls.name} needs references: add a 'reference' column or key "
                         f"(found: {', '.join(names)})")
    if out["sources"] is None and cls.sources_mode == "required":
        raise ValueError(f"{cls.name} needs sources: add a 'source' column or key (found: {', '.join(names)})")
    return out


#: a text cell that a spreadsheet would run as a formula gets a leading apostrophe
escape_cell = export.csv_safe


def _flat(details: Mapping[str, Any]) -> Dict[str, Any]:
    """Scalar details as columns; one level of nested scalars as ``key.sub``; the rest as JSON."""
    out: Dict[str, Any] = {}
    for key, value in details.items():
        if isinstance(value, Mapping) and all(not isinstance(v, (Mapping, list)) for v in value.values()):
            for sub, v in value.items():
                out[f"{key}.{sub}"] = v
        elif isinstance(value, (Mapping, list, tuple)):
            out[key] = json.dumps(value, ensure_ascii=False, default=_plain)
        else:
            out[key] = value
    return out


def _plain(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else str(value)


def write_batch(result: MetricResult, inputs: Mapping[str, Any], directory: Optional[str] = None) -> List[str]:
    """``<metric>_scores.csv`` (one row per segment: id, prediction, score, flattened details;
    text cells escaped against formula injection) and ``<metric>_result.json`` (the full
    result); returns their paths."""
    out_dir = Path(directory or tempfile.mkdtemp(prefix="nlgmetrics-"))
    rows = []
    for i, (pred, score) in enumerate(zip(inputs["predictions"], result.scores)):
        details = result.details[i] if i < len(result.details) else {}
        row = {"id": i, "prediction": pred, "score": score}
        row.update({k: v for k, v in _flat(details).items() if k not in ("id", "score")})
        rows.append(row)
    csv_path = export.write_csv(out_dir / f"{result.metric}_scores.csv", rows)
    json_path = out_dir / f"{result.metric}_result.json"
    export.write_text(json_path, result.to_json(indent=1))
    return [str(csv_path), str(json_path)]

"""What each field of a metric's per-segment record may hold (type and range), and the checks
a records file's records pass before a reduction reads them.

A metric declares its fields (``Scorer.record_fields(config)``, next to its ``score_segments``)
as name -> :class:`Field`; :func:`check_fields` refuses a record with a field of the wrong type
or outside its range, a missing required field, or a field the metric never writes, in one line
naming the place and the field. A metric whose stored score is a function of other fields of
the record gives that function (``Scorer.derived_fields(record)``); :func:`check_derived`
refuses a record whose stored value disagrees with it beyond rounding, so a reduction never
prints a forged score beside details that contradict it.

    >>> fields = {"score": number(0, 1), "n": integer()}
    >>> check_fields({"id": 0, "score": 0.5, "n": 3}, fields, "f.jsonl, line 2")
    >>> check_fields({"id": 0, "score": True, "n": 3}, fields, "f.jsonl, line 2")
    Traceback (most recent call last):
    ...
    ValueError: f.jsonl, line 2: field 'score' must be a number from 0 to 1, got true
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

#: the largest count a record may hold (integers up to it are exact as floats)
MAX_COUNT = 2**53
#: the relative and absolute tolerance of a stored value against its recomputation
RTOL, ATOL = 1e-9, 1e-9

KINDS = ("number", "integer", "flag", "text", "numbers", "counts", "count_list", "integers", "object", "list")


@dataclass(frozen=True)
class Field:
    """One record field: its kind, its range (numbers, integers and the values of ``numbers``
    and ``counts`` mappings), whether a record must hold it, whether it may be NaN (a
    documented value, e.g. TextEval's ``r2``) and, for ``numbers``, the keys it holds (each
    with its own range; None: any keys, all in [low, high]). Ranges hold up to rounding
    (:data:`ATOL`)."""

    kind: str
    low: float = -math.inf
    high: float = math.inf
    required: bool = True
    nan: bool = False
    keys: Optional[Tuple[Tuple[str, float, float], ...]] = None
    subset: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown record field kind {self.kind!r}; choose one of {', '.join(KINDS)}")


def number(low: float = -math.inf, high: float = math.inf, *, required: bool = True, nan: bool = False) -> Field:
    """A finite number (JSON integer or float, not a boolean) in [low, high]; NaN too with ``nan``."""
    return Field("number", low, high, required, nan)


def integer(low: int = 0, high: int = MAX_COUNT, *, required: bool = True) -> Field:
    """A JSON integer (not a boolean, not 2.0) in [low, high]."""
    return Field("integer", low, high, required)


def flag(*, required: bool = True) -> Field:
    """``true`` or ``false``."""
    return Field("flag", required=required)


def text(*, required: bool = True) -> Field:
    """A string."""
    return Field("text", required=required)


def numbers(low: float = -math.inf, high: float = math.inf,
            keys: Optional[Mapping[str, Tuple[float, float]]] = None, *, subset: bool = False,
            required: bool = True) -> Field:
    """A JSON object of finite numbers in [low, high]; with ``keys`` (name -> (low, high)),
    exactly those names (``subset``: some of them, at least one), each in its range."""
    return Field("numbers", low, high, required, subset=subset,
                 keys=None if keys is None else tuple((k, float(a), float(b)) for k, (a, b) in keys.items()))


def counts(*, required: bool = True) -> Field:
    """A JSON object of feature counts: non-negative integers."""
    return Field("counts", 0, MAX_COUNT, required)


def count_list(*, required: bool = True) -> Field:
    """A non-empty list of :func:`counts` objects."""
    return Field("count_list", 0, MAX_COUNT, required)


def integers(low: int = 0, high: int = MAX_COUNT, *, required: bool = True) -> Field:
    """A non-empty JSON list of integers in [low, high] (a baseline's sufficient statistics)."""
    return Field("integers", low, high, required)


def explanation(kind: str = "object") -> Field:
    """An optional JSON object (or ``list``) of explanation the reduction only copies into the
    details (SAM's mismatches, RoMe's alignment): its container type is checked."""
    return Field(kind, required=False)


#: fields the core adds to any metric's records
COMMON: Dict[str, Field] = {"truncated": flag(required=False), "non_english": flag(required=False)}


def _shown(value: Any) -> str:
    """A short description of a JSON value for an error (never a long excerpt of the file)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return repr(value) if abs(value) < 10**15 else "an integer of more than 15 digits"
    if isinstance(value, float):
        return repr(value)
    names: Dict[type, str] = {str: "a string", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _span(low: float, high: float) -> str:
    def g(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else f"{x:g}"
    if math.isinf(low) and math.isinf(high):
        return ""
    if math.isinf(high):
        return f" >= {g(low)}"
    if math.isinf(low):
        return f" <= {g(high)}"
    return f" from {g(low)} to {g(high)}"


def _number_ok(value: Any, low: float, high: float, nan: bool, whole: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if whole:
        return isinstance(value, int) and low <= value <= high
    if isinstance(value, float) and math.isnan(value):
        return nan
    return (isinstance(value, int) or math.isfinite(value)) and low - ATOL <= value <= high + ATOL


def _bad_count(value: Any) -> Optional[str]:
    """Why ``value`` is not a JSON object of counts, or None."""
    if not isinstance(value, dict):
        return f"must be a JSON object of counts, got {_shown(value)}"
    for key, item in value.items():
        if not _number_ok(item, 0, MAX_COUNT, False, True):
            return f"{key[:40]!r} must be a count (an integer from 0 to 2**53), got {_shown(item)}"
    return None


def _check_one(name: str, value: Any, spec: Field, where: str) -> None:
    kind = spec.kind
    wrong: Optional[str] = None
    if kind in ("number", "integer"):
        if not _number_ok(value, spec.low, spec.high, spec.nan, kind == "integer"):
            what = "an integer" if kind == "integer" else ("a number (or NaN)" if spec.nan else "a number")
            wrong = f"must be {what}{_span(spec.low, spec.high)}"
    elif kind == "flag" and not isinstance(value, bool):
        wrong = "must be true or false"
    elif kind == "text" and not isinstance(value, str):
        wrong = "must be a string"
    elif kind in ("object", "list") and not isinstance(value, dict if kind == "object" else list):
        wrong = f"must be a JSON {'object' if kind == 'object' else 'list'}"
    elif kind == "numbers":
        if not isinstance(value, dict):
            wrong = "must be a JSON object of numbers"
        else:
            ranges = {k: (a, b) for k, a, b in spec.keys} if spec.keys is not None else None
            if ranges is not None:
                extra, missing = sorted(set(value) - set(ranges)), [k for k in ranges if k not in value]
                if extra:
                    raise ValueError(f"{where}: field {name!r} holds {extra[0][:40]!r}, not one of {', '.join(ranges)}")
                if missing and (not spec.subset or not value):
                    raise ValueError(f"{where}: field {name!r} has no {missing[0]!r}")
            for key, item in value.items():
                low, high = ranges[key] if ranges is not None else (spec.low, spec.high)
                if not _number_ok(item, low, high, False, False):
                    raise ValueError(f"{where}: field {name!r}: {key[:40]!r} must be a number{_span(low, high)}, "
                                     f"got {_shown(item)}")
    elif kind == "counts":
        bad = _bad_count(value)
        if bad:
            raise ValueError(f"{where}: field {name!r}: {bad}")
    elif kind == "integers":
        if not isinstance(value, list) or not value:
            wrong = "must be a non-empty list of integers"
        elif not all(_number_ok(v, spec.low, spec.high, False, True) for v in value):
            wrong = f"must hold integers{_span(spec.low, spec.high)} only"
    elif kind == "count_list":
        if not isinstance(value, list) or not value:
            wrong = "must be a non-empty list of JSON objects of counts"
        for k, item in enumerate(value if not wrong else []):
            bad = _bad_count(item)
            if bad:
                raise ValueError(f"{where}: field {name!r}, item {k}: {bad}")
    if wrong:
        raise ValueError(f"{where}: field {name!r} {wrong}, got {_shown(value)}")


def check_fields(record: Mapping[str, Any], fields: Mapping[str, Field], where: str) -> None:
    """Every field of ``record`` (``id`` aside, checked by the reader) of its declared kind and
    range, every required one present, none the metric does not declare (:data:`COMMON`'s
    fields are declared for every metric); ``ValueError`` naming ``where`` and the field."""
    specs = {**COMMON, **fields}
    for name, value in record.items():
        if name == "id":
            continue
        spec = specs.get(name)
        if spec is None:
            raise ValueError(f"{where}: field {name[:40]!r} is not a field of this metric's records "
                             f"(they hold: {', '.join(n for n in fields)})")
        _check_one(name, value, spec, where)
    missing = [name for name, spec in specs.items() if spec.required and name not in record]
    if missing:
        raise ValueError(f"{where}: the record has no field {missing[0]!r}")


def agrees(stored: Any, recomputed: Any) -> bool:
    """Whether a stored value equals its recomputation up to rounding (NaN equals NaN)."""
    if isinstance(recomputed, bool) or isinstance(stored, bool):
        return stored is recomputed
    a, b = float(stored), float(recomputed)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)


def check_derived(record: Mapping[str, Any], recomputed: Mapping[str, Any], where: str) -> None:
    """``ValueError`` naming ``where`` and the field when a stored value disagrees with its
    recomputation from the record's other fields (``recomputed``: field -> value)."""
    for name, value in recomputed.items():
        if name in record and not agrees(record[name], value):
            raise ValueError(f"{where}: field {name!r} disagrees with the record's other fields (stored "
                             f"{_shown(record[name])}, recomputed {_shown(value)}); an edited records file?")

"""The one input step every metric shares: texts checked, normalised and paired (``Inputs``).

Rules for bad input (the same for every metric):
- ``predictions`` must be a sequence (list, tuple, numpy array, ...) of ``str``; a bare string
  is refused, since it is almost always a forgotten ``[...]``.
- ``references`` / ``sources``, when the metric uses them, must have the same length as
  ``predictions``; each item a ``str`` (or, for multi-reference metrics, a non-empty sequence
  of ``str``).
- ``None`` or a non-string item gives ``ValueError`` naming the field and the index.
- Empty (or whitespace-only) strings are allowed: each metric documents the score it gives
  them in its card. Nothing crashes deep in a library on them.
- Every text is normalised once, here, whatever the path (core, evaluate wrapper, CLI, Space,
  Trainer hook all end in :func:`validate_inputs`), by :func:`normalize_text`: a leading
  byte-order mark (U+FEFF) is removed, a surrogate pair left as two code points is joined into
  its character, and a lone surrogate (U+D800-U+DFFF, which no UTF-8 encoder or tokenizer
  accepts) becomes U+FFFD REPLACEMENT CHARACTER. ``str`` subclasses (``numpy.str_``) become
  plain ``str``. Nothing else changes (no case, whitespace or Unicode-form normalisation).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set

Record = Dict[str, Any]


@dataclass
class Inputs:
    """Validated inputs. ``ids`` are the segment ids carried into every record; ``extras``
    holds per-call, per-segment inputs beside the texts (e.g. SAM's ``base_scores``), one list
    per name aligned with ``predictions``, so they shard with the texts."""

    predictions: List[str]
    references: Optional[List[Any]]
    sources: Optional[List[str]]
    ids: List[int]
    extras: Dict[str, List[Any]] = field(default_factory=dict)
    #: ids of the segments the work budget cut (:mod:`nlgmetrics.core.budget`)
    truncated: Set[int] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.predictions)

    def subset(self, ids: Sequence[int]) -> "Inputs":
        """The segments with these ids (a shard), every field and extra kept aligned."""
        pos = {seg: i for i, seg in enumerate(self.ids)}
        idx = [pos[i] for i in ids]

        def pick(values: Optional[List[Any]]) -> Optional[List[Any]]:
            return None if values is None else [values[i] for i in idx]

        return Inputs(pick(self.predictions) or [], pick(self.references), pick(self.sources), list(ids),
                      {name: pick(values) or [] for name, values in self.extras.items()},
                      self.truncated & set(ids))


def _as_list(values: Any, field: str) -> List[Any]:
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{field} must be a list of strings, not a single {type(values).__name__}; wrap it in [...]")
    if isinstance(values, dict) or not hasattr(values, "__len__") or not hasattr(values, "__iter__"):
        raise ValueError(f"{field} must be a list of strings, got {type(values).__name__}")
    return list(values)


_SURROGATE = re.compile("[\ud800-\udfff]")
BOM = "\ufeff"


#: invisible characters: format (zero-width space and joiners, soft hyphen, direction marks,
#: BOM) and control characters; whitespace controls (tab, newline, ...) are kept
INVISIBLE_CATEGORIES = ("Cf", "Cc")


def visible_text(text: str) -> str:
    """``text`` without its invisible characters (:data:`INVISIBLE_CATEGORIES`, whitespace
    kept): the text as displayed, so a zero-width character joins its neighbours rather than
    splitting a word, and alone it is no word. RoMe applies it to every text first (a metric's
    own choice: :func:`normalize_text`, which every input gets, keeps them).

    >>> visible_text("the\\u200bcat sat \\x00 on\\tthe \\u00admat\\ufeff")
    'thecat sat  on\\tthe mat'
    """
    if text.isprintable():
        return text
    return "".join(c for c in text if c.isspace() or unicodedata.category(c) not in INVISIBLE_CATEGORIES)


def normalize_text(text: str) -> str:
    """The one text normalisation of the package: a leading BOM removed, surrogate pairs
    joined, lone surrogates replaced by U+FFFD; a plain ``str`` comes back.

    >>> normalize_text("\\ufeffa \\ud800 b \\ud83d\\ude00") == "a \\ufffd b \\U0001f600"
    True
    """
    text = str.__str__(text)
    if text.startswith(BOM):
        text = text[1:]
    if not text.isascii() and _SURROGATE.search(text):
        # UTF-16 round trip: pairs decode to their character, lone halves to U+FFFD
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _check_text(item: Any, field: str, index: int) -> str:
    if item is None:
        raise ValueError(f"{field}[{index}] is None; pass an empty string for an empty text")
    if not isinstance(item, str):
        raise ValueError(f"{field}[{index}] must be a str, got {type(item).__name__}")
    return normalize_text(item)


def validate_texts(values: Any, field: str, *, multi: bool = False, allow_none: bool = False) -> List[Any]:
    """Check one field; with ``multi`` each item may be a string or a non-empty list of them;
    with ``allow_none`` an item may be None (kept: e.g. a system without an output)."""
    items = _as_list(values, field)
    out: List[Any] = []
    for i, item in enumerate(items):
        if allow_none and item is None:
            out.append(None)
        elif multi and not isinstance(item, str) and item is not None:
            group = _as_list(item, f"{field}[{i}]")
            if not group:
                raise ValueError(f"{field}[{i}] is an empty list; give at least one text")
            out.append([_check_text(t, f"{field}[{i}]", j) for j, t in enumerate(group)])
        else:
            out.append(_check_text(item, field, i))
    return out


def reference_group(item: str | Sequence[str]) -> List[str]:
    """One segment's references as a list (a multi-reference field holds a string or a list
    of strings per segment; a string is one reference).

    >>> reference_group("a cat"), reference_group(("a cat", "the cat"))
    (['a cat'], ['a cat', 'the cat'])
    """
    return [item] if isinstance(item, str) else list(item)


def validate_inputs(
    predictions: Any,
    references: Any = None,
    sources: Any = None,
    *,
    references_mode: str = "required",
    sources_mode: str = "none",
    multi_reference: bool = False,
    ids: Optional[Sequence[int]] = None,
) -> Inputs:
    """Validate all fields at once; modes are ``required``, ``optional`` or ``none``."""
    preds = validate_texts(predictions, "predictions")
    n = len(preds)
    fields: Dict[str, Optional[List[Any]]] = {}
    for name, value, mode, multi in (
        ("references", references, references_mode, multi_reference),
        ("sources", sources, sources_mode, False),
    ):
        if value is None:
            if mode == "required":
                raise ValueError(f"{name} are required by this metric")
            fields[name] = None
            continue
        if mode == "none":
            raise ValueError(f"this metric takes no {name}")
        checked = validate_texts(value, name, multi=multi)
        if len(checked) != n:
            raise ValueError(f"{name} has {len(checked)} items but predictions has {n}; they must have equal lengths")
        fields[name] = checked
    seg_ids = list(range(n)) if ids is None else [int(i) for i in ids]
    if len(seg_ids) != n:
        raise ValueError(f"ids has {len(seg_ids)} items but predictions has {n}")
    return Inputs(preds, fields["references"], fields["sources"], seg_ids)


def check_choice(label: str, value: Any, choices: Sequence[Any]) -> None:
    """The one error for an option outside its choices: names the option and the choices."""
    if value not in choices:
        raise ValueError(f"unknown {label} {value!r}; choose one of {', '.join(map(str, choices))}")


class ArgumentSyntax:
    """How a surface writes an option and a per-segment input, for the messages that tell a
    caller what to pass: in Python ``base='given'`` and ``score(..., base_scores=[...])``; the
    command line has its own (:data:`nlgmetrics.cli.common.CLI_SYNTAX`)."""

    def option(self, name: str, value: Any) -> str:
        return f"{name}={value!r}"

    def setting(self, name: str, text: str) -> str:
        """An option set to a value written out (``text`` as the caller would type it)."""
        return f"{name}={text}"

    def extra(self, name: str) -> str:
        return f"score(predictions, references, {name}=[...])"


PYTHON_SYNTAX = ArgumentSyntax()

#: 0.2.0 renames: importing an old name raises, naming the new one (for one release)
_RENAMED = {"Spelling": "ArgumentSyntax", "PYTHON_SPELLING": "PYTHON_SYNTAX"}


def __getattr__(name: str) -> Any:
    if name in _RENAMED:
        raise ImportError(f"nlgmetrics.core.inputs.{name} was renamed to {_RENAMED[name]} in nlgmetrics 0.2.0")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sort_records(records: List[Record]) -> List[Record]:
    """Records in segment-id order, refusing duplicates (a shard merged twice) and records
    without an integer id."""
    for rec in records:
        if not isinstance(rec, dict) or not isinstance(rec.get("id"), int) or isinstance(rec.get("id"), bool):
            raise ValueError(f"a record has no integer id: {str(rec)[:80]}")
    out = sorted(records, key=lambda r: r["id"])
    for a, b in zip(out, out[1:]):
        if a["id"] == b["id"]:
            raise ValueError(f"segment id {a['id']} appears twice in the records")
    return out

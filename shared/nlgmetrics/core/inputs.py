"""The one input step every metric shares: texts checked, normalised and paired (``Inputs``).

Rules for bad input (the same for every metric):
- ``predictions`` must be an ordered sequence of ``str``: a list, tuple, numpy array, pandas
  Series (or another ``collections.abc.Sequence``, e.g. a ``datasets`` column). A bare string
  is refused, since it is almost always a forgotten ``[...]``; so are a set or frozenset (no
  order: its texts would pair with the other field's in hash order), a mapping (a dict, which
  iterates its keys), a pandas DataFrame (which iterates its column names) and a generator or
  other iterator (no length; it would be used up by the first look): each is a ``ValueError``
  naming the field and the accepted types.
- Every other per-segment input (SAM's ``base_scores``, meta-evaluation's human scores,
  systems and items, the Trainer hook's ``sources`` list) goes through the same rule
  (:func:`ordered_values`), with one item per prediction.
- ``references`` / ``sources``, when the metric uses them, must have the same length as
  ``predictions``; each item a ``str`` (or, for multi-reference metrics, a non-empty sequence
  of ``str``, under the same rule).
- ``None`` or a non-string item gives ``ValueError`` naming the field and the index.
- Empty (or whitespace-only) strings are allowed: each metric documents the score it gives
  them in its card. Nothing crashes deep in a library on them.

Every text is normalised once, here, whatever the path (core, evaluate wrapper, CLI, Space,
Trainer hook all end in :func:`validate_inputs` or :func:`validate_texts`), by
:func:`normalize_text`, so two texts that display the same compare equal in every metric:

1. a surrogate pair left as two code points is joined into its character, and a lone
   surrogate (U+D800-U+DFFF, which no UTF-8 encoder or tokenizer accepts) becomes U+FFFD
   REPLACEMENT CHARACTER;
2. the invisible format characters of :data:`INVISIBLE_FORMAT` are removed, wherever they
   stand: soft hyphen U+00AD, Arabic letter mark U+061C, Mongolian vowel separator U+180E,
   zero-width space U+200B, zero-width non-joiner and joiner U+200C/U+200D, the direction
   marks U+200E/U+200F, the bidi embeddings and overrides U+202A-U+202E, word joiner U+2060,
   the invisible operators U+2061-U+2064, the bidi isolates U+2066-U+2069, the deprecated
   format controls U+206A-U+206F, and the byte-order mark / zero-width no-break space U+FEFF.
   Removing them joins their neighbours: ``"ca\u200bt"`` is ``"cat"`` (a zero-width space
   is no word break here). The zero-width joiner is removed inside emoji sequences too: the
   family emoji U+1F468 U+200D U+1F469 U+200D U+1F467 reads as its three emoji (no metric here
   has emoji-level meaning, and a text with a joiner inserted anywhere must score as the text
   without it); the non-joiner of Persian or Indic spelling only shapes letters and goes the
   same way. Other format characters (e.g. the tag characters of flag sequences, Arabic
   number signs) and variation selectors are kept; RoMe and TextEval also drop the remaining
   format and control characters (:func:`visible_text`);
3. the no-break spaces U+00A0, U+2007 (figure space) and U+202F (narrow no-break space) become
   a plain space; other spaces are kept (every word splitter here splits on them);
4. the text is put in Unicode normal form C (NFC): ``"e\u0301"`` is ``"\u00e9"``.

Nothing else changes (no case folding, whitespace collapsing or compatibility (NFKC)
mapping: full-width letters and ligatures stay as written). ``str`` subclasses
(``numpy.str_``) become plain ``str``. Option values that are texts compared with the inputs
(SAM's lexicon keys) go through :func:`normalize_text` too.
"""
from __future__ import annotations

import math
import numbers
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set

import numpy as np

from .option_values import short_repr

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


#: the accepted kinds of a text field, for the messages
ACCEPTED = "a list, tuple, numpy array or pandas Series"


def _refusal(values: Any, what: str = "texts") -> Optional[str]:
    """Why ``values`` is not an ordered sequence (None: it is one); ``what`` names its items."""
    if isinstance(values, AbstractSet):
        return f"a set has no order, so its {what} would be paired in hash order; pass a list"
    if isinstance(values, Mapping):
        return f"a mapping iterates its keys; pass a list of the {what} (e.g. list(d.values()))"
    if isinstance(values, np.ndarray):
        return "a 0-dimensional numpy array is one value, not a list" if values.ndim == 0 else None
    if isinstance(values, Sequence):
        return None
    if getattr(values, "ndim", None) == 2 and hasattr(values, "columns"):
        return "a DataFrame iterates its column names; pass one column (e.g. df['prediction'])"
    if type(values).__module__.split(".")[0] == "pandas" and getattr(values, "ndim", None) == 1:
        return None  # a Series, an Index or a pandas array: ordered, with a length
    if isinstance(values, Iterator):
        return "an iterator or generator has no length and is used up when read; pass list(...)"
    return "not an ordered sequence"


def _as_list(values: Any, field: str) -> List[Any]:
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{field} must be a list of strings, not a single {type(values).__name__}; wrap it in [...]")
    return ordered_values(values, field, "strings", "texts")


def ordered_values(values: Any, field: str, kind: str = "values", what: str = "values",
                   n: Optional[int] = None) -> List[Any]:
    """The one rule for every per-segment input, texts or not (SAM's ``base_scores``,
    meta-evaluation's human scores, systems and items, the Trainer hook's sources): an ordered
    sequence with a length, as a list; a set, a mapping, a DataFrame, an iterator or a single
    string is a ``ValueError`` naming ``field`` (its items called ``kind`` in the message,
    ``what`` in the reason). With ``n``, it must hold ``n`` items, one per prediction.

    >>> ordered_values((0.5, 0.25), "base_scores", "numbers", n=2)
    [0.5, 0.25]
    >>> ordered_values({0.5, 0.25}, "base_scores", "numbers", "numbers")
    Traceback (most recent call last):
    ...
    ValueError: base_scores must be an ordered sequence of numbers (...), got set: a set has no order, ...
    """
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{field} must be a list of {kind}, one per prediction, not a single "
                         f"{type(values).__name__}")
    why = _refusal(values, what)
    if why is not None:
        raise ValueError(f"{field} must be an ordered sequence of {kind} ({ACCEPTED}), "
                         f"got {type(values).__name__}: {why}")
    out = list(values)
    if n is not None and len(out) != n:
        raise ValueError(f"{field} has {len(out)} items but predictions has {n}; give one per prediction")
    return out


def per_segment_numbers(values: Any, field: str, n: int) -> List[float]:
    """A per-segment input of numbers (a metric's ``extra_inputs``): :func:`ordered_values`
    with ``n`` items, each a finite number (not a bool), as floats.

    >>> per_segment_numbers([1, 0.5], "offsets", 2)
    [1.0, 0.5]
    >>> per_segment_numbers([1, float("nan")], "offsets", 2)
    Traceback (most recent call last):
    ...
    ValueError: offsets[1] must be a finite number, got nan
    """
    out = ordered_values(values, field, "numbers", "numbers", n=n)
    for i, v in enumerate(out):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{field}[{i}] must be a finite number, got {v!r}")
    return [float(v) for v in out]


_SURROGATE = re.compile("[\ud800-\udfff]")
BOM = "\ufeff"

#: the invisible format characters :func:`normalize_text` removes (see the module docstring)
INVISIBLE_FORMAT = "".join(["\u00ad\u061c\u180e", *map(chr, range(0x200B, 0x2010)), *map(chr, range(0x202A, 0x202F)),
                            *map(chr, range(0x2060, 0x2065)), *map(chr, range(0x2066, 0x2070)), BOM])
#: the no-break spaces :func:`normalize_text` reads as a plain space
NO_BREAK_SPACES = "\u00a0\u2007\u202f"
_TRANSLATION = {**{ord(c): None for c in INVISIBLE_FORMAT}, **{ord(c): " " for c in NO_BREAK_SPACES}}

#: invisible characters: format (zero-width space and joiners, soft hyphen, direction marks,
#: BOM) and control characters; whitespace controls (tab, newline, ...) are kept
INVISIBLE_CATEGORIES = ("Cf", "Cc")


def visible_text(text: str) -> str:
    """``text`` without its invisible characters (:data:`INVISIBLE_CATEGORIES`, whitespace
    kept): the text as displayed, so a zero-width character joins its neighbours rather than
    splitting a word, and alone it is no word. RoMe and TextEval apply it to every text first
    (a metric's own choice: :func:`normalize_text`, which every input gets, removes only
    :data:`INVISIBLE_FORMAT` and keeps control characters and the other format characters).

    >>> visible_text("the\\u200bcat sat \\x00 on\\tthe \\u00admat\\ufeff")
    'thecat sat  on\\tthe mat'
    """
    if text.isprintable():
        return text
    return "".join(c for c in text if c.isspace() or unicodedata.category(c) not in INVISIBLE_CATEGORIES)


def normalize_text(text: str) -> str:
    """The one text normalisation of the package (the module docstring's four steps):
    surrogates repaired, :data:`INVISIBLE_FORMAT` removed, :data:`NO_BREAK_SPACES` read as
    spaces, NFC; a plain ``str`` comes back. Idempotent.

    >>> normalize_text("\\ufeffa \\ud800 b \\ud83d\\ude00") == "a \\ufffd b \\U0001f600"
    True
    >>> normalize_text("Zu\\u0308ri\\u200dch\\u00a0!\\u200f") == "Z\\u00fcrich !"
    True
    """
    text = str.__str__(text)
    if text.isascii():
        return text
    if _SURROGATE.search(text):
        # UTF-16 round trip: pairs decode to their character, lone halves to U+FFFD
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    text = text.translate(_TRANSLATION)
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


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


def check_seed(seed: Any, label: str = "seed") -> int:
    """A random seed: a whole number >= 0 (numpy's generators take no other), as an ``int``;
    else one ``ValueError`` naming ``label``.

    >>> check_seed(np.int64(7)), check_seed(0)
    (7, 0)
    >>> check_seed(1.5)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number >= 0, got 1.5
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"{label} must be a whole number >= 0, got {short_repr(seed)}")
    return int(seed)


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

    def flag(self, name: str) -> str:
        """An option's name as the caller writes it (``device=``; ``--device`` on the command line)."""
        return f"{name}="

    def unknown(self, metric: str, names: List[str], known: List[str]) -> Optional[str]:
        """The error for options the metric does not take; ``None``: the configuration's own
        (``unknown option 'x'; the options are: ...``)."""
        return None


PYTHON_SYNTAX = ArgumentSyntax()

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

"""SAM's prior-polarity sentiment lexicons, keyed by ``lemma#pos`` (``load_lexicon``):

- ``"sentivader"`` (the default): VADER's human-rated valences of emotion and social-media
  words (MIT) joined to the SentiWordNet prior (``data/sentivader.tsv.gz``, CC BY-SA 3.0;
  built by ``shared/tools/training/sam_vader.py``).
- ``"sentiwordnet"`` (paper-like): the embedded SentiWordNet 3.0 prior-polarity lexicon
  (``data/sentiwordnet_prior.tsv.gz``, CC BY-SA 3.0; built by
  ``shared/tools/training/sam_lexicon.py``).
- a path to a SentiWords 1.1 file (plain or .gz) in either published format: ``lemma#pos<TAB>
  score`` with ``#`` comment lines, or ``lemma<TAB>pos<TAB>score`` with a header line.
- a mapping ``{"happiness#n": 0.856, ...}`` (values injected by the caller, e.g. in tests).

Keys are normalised as the texts are (:func:`nlgmetrics.core.inputs.normalize_text`: NFC,
invisible format characters removed) and lowercased; pos is a/n/r/v (``s``, WordNet's adjective satellite, reads as ``a``);
multiword lemmas use ``_`` (``look_up#v``). Scores must lie in [-1, 1]. A key repeated as
written gets the mean of its scores; two keys that differ only by case (``Apple#n`` and
``apple#n``) are refused, naming both, rather than silently merged.

A file is read as every option's file is (:mod:`nlgmetrics.core.option_files`: a regular file
within :data:`MAX_LEXICON_BYTES`, a FIFO or device refused at once) on every load, and parsed
once per content: a file rewritten between two calls is read anew, under a new digest.
"""
from __future__ import annotations

import decimal
import functools
import hashlib
import math
import numbers
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

from nlgmetrics.core.files import InputFileError, excerpt
from nlgmetrics.core.inputs import normalize_text
from nlgmetrics.core.option_files import read_option_file
from nlgmetrics.core.resources import data_path

DEFAULT_FILE = "sentiwordnet_prior.tsv.gz"
#: named lexicons shipped in ``nlgmetrics/data``: name -> (file, signature prefix, aliases)
LEXICONS: Dict[str, Tuple[str, str, Tuple[str, ...]]] = {
    "sentiwordnet": (DEFAULT_FILE, "swn3prior", ("swn", DEFAULT_FILE)),
    "sentivader": ("sentivader.tsv.gz", "swn3vader", ("vader", "sentivader.tsv.gz")),
}
#: chosen by benchmarks/sam_quality.py (tweet-flip train split, HADQAET even rows); see the card
DEFAULT_LEXICON = "sentivader"
LEXICON_POS = {"a": "a", "s": "a", "n": "n", "r": "r", "v": "v"}
#: longest multiword entry (in words) looked for in texts
MAX_MULTIWORD = 4
#: the largest lexicon file read, decompressed (SentiWords 1.1 has 3.5 MB)
MAX_LEXICON_BYTES = 64 * 2**20

LexiconSpec = Union[str, Path, Mapping[str, float], "Lexicon"]


class LexiconError(InputFileError):
    """A lexicon that cannot be read or holds a bad entry; the message names the file and line,
    or the mapping's key (a ``ValueError``; the command line exits 2 on it)."""


class LexiconNotFoundError(LexiconError, FileNotFoundError):
    """A lexicon that is neither a shipped name nor a readable file."""


@dataclass(frozen=True)
class Lexicon:
    """``lemma#pos -> prior polarity`` with a name for signatures."""

    name: str
    polarity: Mapping[str, float]

    def __len__(self) -> int:
        return len(self.polarity)

    def get(self, key: str) -> Optional[float]:
        return self.polarity.get(key)

    @functools.cached_property
    def multiword_lengths(self) -> Tuple[int, ...]:
        """Word counts of the multiword entries, longest first (capped at MAX_MULTIWORD)."""
        lengths = {key.split("#")[0].count("_") + 1 for key in self.polarity if "_" in key}
        return tuple(sorted((n for n in lengths if 2 <= n <= MAX_MULTIWORD), reverse=True))


def normalise_key(lemma: str, pos: str) -> str:
    """``Ice Cream``, ``n`` -> ``ice_cream#n``, the lemma normalised as every input text is
    (an NFD ``cafe\u0301`` is the key ``café``); refuses a pos outside a/n/r/v(/s)."""
    return _spelling(lemma, pos).lower()


def _spelling(lemma: str, pos: str) -> str:
    """The key as written, case kept: ``Ice Cream``, ``n`` -> ``Ice_Cream#n``."""
    tag = LEXICON_POS.get(pos.strip().lower())
    if tag is None:
        raise ValueError(f"part of speech {excerpt(pos, 8)} is not one of a, n, r, v (s)")
    return "_".join(normalize_text(lemma).strip().split()) + "#" + tag


class _Spellings:
    """How each key was first written, to refuse a later one that differs only by case."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.first: Dict[str, Tuple[str, str]] = {}

    def add(self, lemma: str, pos: str, at: str) -> str:
        spelling = _spelling(lemma, pos)
        key = spelling.lower()
        seen = self.first.setdefault(key, (spelling, at))
        if seen[0] != spelling:
            raise LexiconError(f"{self.where}: the keys {excerpt(seen[0], 40)} ({seen[1]}) and "
                               f"{excerpt(spelling, 40)} ({at}) differ only by case; keys are read lowercased, "
                               "so keep one of them")
        return key


def _checked(key: str, value: float, where: str) -> float:
    if not math.isfinite(value) or not -1.0 <= value <= 1.0:
        raise LexiconError(f"{where}: polarity of {excerpt(key, 40)} is {value}; lexicon scores must lie in [-1, 1]")
    return float(value)


def _score(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"the score {excerpt(text.strip(), 16)} is not a number") from None


def parse_sentiwords(lines: Iterable[str], where: str = "lexicon") -> Dict[str, float]:
    """Read either SentiWords format; a repeated key gets the mean of its scores.

    ``lemma#pos<TAB>score`` (``#`` comment lines) or ``lemma<TAB>pos<TAB>score`` (its first
    line a header such as ``lemma<TAB>pos<TAB>prior_polarity``). Blank lines are skipped.
    """
    sums: Dict[str, float] = {}
    counts: Dict[str, int] = {}
    spellings = _Spellings(where)
    seen_data = False
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        if not text.strip() or text.startswith("#"):
            continue
        fields = text.split("\t")
        try:
            if len(fields) not in (2, 3):
                raise ValueError(f"{len(fields)} tab-separated field{'s' * (len(fields) != 1)}")
            if len(fields) == 2:
                lemma, _, pos = fields[0].rpartition("#")
            else:
                lemma, pos = fields[0], fields[1]
            score = _score(fields[-1])
            if not lemma:
                raise ValueError("no lemma#pos key")
            key = spellings.add(lemma, pos, f"line {number}")
        except LexiconError:
            raise
        except ValueError as err:
            if not seen_data and len(fields) == 3:  # the header line of the 3-column format
                seen_data = True
                continue
            raise ValueError(f"{where}, line {number}: cannot read the line ({err}); expected "
                             "'lemma#pos<TAB>score' or 'lemma<TAB>pos<TAB>score'") from None
        seen_data = True
        sums[key] = sums.get(key, 0.0) + _checked(key, score, f"{where}, line {number}")
        counts[key] = counts.get(key, 0) + 1
    if not sums:
        raise ValueError(f"{where}: no lexicon entries found")
    return {key: sums[key] / counts[key] for key in sums}


def content_digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


#: parsed lexicons by (file name, sha256 of its bytes): a file is read on every load, parsed once
_PARSED: "OrderedDict[Tuple[str, str], Lexicon]" = OrderedDict()
_PARSED_LOCK = threading.Lock()


def _read_file(path: str) -> Lexicon:
    label = f"lexicon {path}"
    try:  # a regular file within the cap, read whole, refused if it changes while read
        file = read_option_file(path, "lexicon", gunzip=True, max_bytes=MAX_LEXICON_BYTES, label=label)
    except InputFileError as err:  # missing, a FIFO or device, too large, a damaged or truncated gzip stream
        cls = LexiconNotFoundError if isinstance(err, FileNotFoundError) else LexiconError
        raise cls(str(err)) from None
    key = (Path(path).name, file.digest)
    with _PARSED_LOCK:
        if key in _PARSED:
            _PARSED.move_to_end(key)
            return _PARSED[key]
    lexicon = _parse_file(file.data, label, Path(path).name)
    with _PARSED_LOCK:
        _PARSED[key] = lexicon
        while len(_PARSED) > 8:
            _PARSED.popitem(last=False)
    return lexicon


def _parse_file(data: bytes, label: str, name: str) -> Lexicon:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line, column = data.count(b"\n", 0, err.start) + 1, err.start - data.rfind(b"\n", 0, err.start)
        raise LexiconError(f"{label}, line {line}: not valid UTF-8 (byte {column} of the line is "
                           f"{data[err.start:err.start + 1]!r}); save the file as UTF-8") from None
    try:
        polarity = parse_sentiwords(raw.splitlines(), where=label)
    except ValueError as err:
        raise LexiconError(str(err)) from None
    return Lexicon(f"{name}@{content_digest(raw)}", polarity)


def _mapping_value(raw_key: Any, value: Any) -> float:
    # any real number (numpy scalars, Decimal, Fraction: a pandas Series' values are numpy), never
    # a bool or a string
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise LexiconError(f"lexicon: the value of {excerpt(str(raw_key), 40)} is {excerpt(repr(value))[1:-1]}; "
                           "lexicon scores are numbers in [-1, 1]")
    try:
        return float(value)
    except OverflowError:  # an integer beyond the float range
        return math.inf


def load_lexicon(spec: LexiconSpec = DEFAULT_LEXICON) -> Lexicon:
    """A :class:`Lexicon` from ``"sentiwordnet"``, a SentiWords file path, or a mapping.

    Errors are :class:`LexiconError` (a ``ValueError``) naming the file and line or the
    mapping's key; a name that is neither shipped nor a file is :class:`LexiconNotFoundError`
    (also a ``FileNotFoundError``)."""
    if isinstance(spec, Lexicon):
        return spec
    if isinstance(spec, Mapping):
        polarity = {}
        spellings = _Spellings("lexicon")
        for number, (raw_key, value) in enumerate(spec.items(), 1):
            lemma, sep, pos = str(raw_key).rpartition("#")
            if not sep or not lemma:
                raise LexiconError(f"lexicon key {excerpt(str(raw_key), 40)} is not of the form lemma#pos")
            try:
                key = spellings.add(lemma, pos, f"key {number}")
                polarity[key] = _checked(key, _mapping_value(raw_key, value), "lexicon")
            except LexiconError:
                raise
            except ValueError as err:  # a part of speech outside a/n/r/v
                raise LexiconError(f"lexicon key {excerpt(str(raw_key), 40)}: {err}") from None
        if not polarity:
            raise LexiconError("lexicon: the mapping has no entries")
        listing = ";".join(f"{k}={v!r}" for k, v in sorted(polarity.items()))
        return Lexicon(f"custom{len(polarity)}@{content_digest(listing)}", polarity)
    name = DEFAULT_LEXICON if str(spec) == "default" else str(spec)
    for key, (file, prefix, aliases) in LEXICONS.items():
        if name == key or name in aliases:
            lexicon = _read_file(str(data_path(file)))
            return Lexicon(f"{prefix}@" + lexicon.name.split("@")[1], lexicon.polarity)
    path = Path(str(spec)).expanduser()
    if not os.path.lexists(path):  # a FIFO, device or directory is read, and refused by kind
        raise LexiconNotFoundError(f"lexicon {spec!s} is neither one of {', '.join(LEXICONS)} nor a readable "
                                "file (a SentiWords 1.1 file: lemma#pos<TAB>score)")
    return _read_file(str(path))

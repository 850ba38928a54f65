"""Prior-polarity sentiment lexicons keyed by ``lemma#pos`` and the tagged items SAM compares.

Lexicons (``load_lexicon``):

- ``"sentivader"`` (the default): VADER's human-rated valences of emotion and social-media
  words (MIT) joined to the SentiWordNet prior (``data/sentivader.tsv.gz``, CC BY-SA 3.0;
  built by ``python -m nlgmetrics.training.sam_vader``).
- ``"sentiwordnet"`` (paper-like): the embedded SentiWordNet 3.0 prior-polarity lexicon
  (``data/sentiwordnet_prior.tsv.gz``, CC BY-SA 3.0; built by
  ``python -m nlgmetrics.training.sam_lexicon``).
- a path to a SentiWords 1.1 file (plain or .gz) in either published format: ``lemma#pos<TAB>
  score`` with ``#`` comment lines, or ``lemma<TAB>pos<TAB>score`` with a header line.
- a mapping ``{"happiness#n": 0.856, ...}`` (values injected by the caller, e.g. in tests).

Keys are lowercased; pos is a/n/r/v (``s``, WordNet's adjective satellite, reads as ``a``);
multiword lemmas use ``_`` (``look_up#v``). Scores must lie in [-1, 1].

:class:`LookupAnalyzer` (``linguistic_backend="lookup"``): spaCy's rule tokenizer and, per
word form, the most frequent tag and lemma spaCy's tagger gave it in training text
(``data/sam_tagger.tsv.gz``, built by ``python -m nlgmetrics.training.sam_tagger``); forms
the table lacks get a rule (lowercase form, capitalised -> proper noun, else WordNet morphy).
"""
from __future__ import annotations

import decimal
import functools
import gzip
import hashlib
import math
import numbers
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from nlgmetrics.cli.files import InputFileError, open_binary
from nlgmetrics.core.cache import LRUCache
from nlgmetrics.core.linguistic import CACHE_BYTES, CACHE_ENTRIES, Parsed, Token, parsed_size, parser_inputs, wordnet_pos
from nlgmetrics.core.resources import data_path, wordnet

DEFAULT_FILE = "sentiwordnet_prior.tsv.gz"
#: named lexicons shipped in ``nlgmetrics/data``: name -> (file, signature prefix, aliases)
LEXICONS: Dict[str, Tuple[str, str, Tuple[str, ...]]] = {
    "sentiwordnet": (DEFAULT_FILE, "swn3prior", ("swn", DEFAULT_FILE)),
    "sentivader": ("sentivader.tsv.gz", "swn3vader", ("vader", "sentivader.tsv.gz")),
}
#: chosen by benchmarks/sam_quality.py (tweet-flip train split, HADQAET even rows); see the card
DEFAULT_LEXICON = "sentivader"
LEXICON_POS = {"a": "a", "s": "a", "n": "n", "r": "r", "v": "v"}
#: tokens that never become items
SKIPPED_UPOS = {"PUNCT", "SPACE"}
#: longest multiword entry (in words) looked for in texts
MAX_MULTIWORD = 4

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
    """``Ice Cream``, ``n`` -> ``ice_cream#n``; refuses a pos outside a/n/r/v(/s)."""
    tag = LEXICON_POS.get(pos.strip().lower())
    if tag is None:
        raise ValueError(f"part of speech {pos!r} is not one of a, n, r, v (s)")
    return "_".join(lemma.strip().lower().split()) + "#" + tag


def _checked(key: str, value: float, where: str) -> float:
    if not math.isfinite(value) or not -1.0 <= value <= 1.0:
        raise LexiconError(f"{where}: polarity of {key!r} is {value}; lexicon scores must lie in [-1, 1]")
    return float(value)


def parse_sentiwords(lines: Iterable[str], where: str = "lexicon") -> Dict[str, float]:
    """Read either SentiWords format; a repeated key gets the mean of its scores.

    ``lemma#pos<TAB>score`` (``#`` comment lines) or ``lemma<TAB>pos<TAB>score`` (its first
    line a header such as ``lemma<TAB>pos<TAB>prior_polarity``). Blank lines are skipped.
    """
    sums: Dict[str, float] = {}
    counts: Dict[str, int] = {}
    seen_data = False
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        if not text.strip() or text.startswith("#"):
            continue
        fields = text.split("\t")
        try:
            if len(fields) == 2:
                lemma, _, pos = fields[0].rpartition("#")
                score = float(fields[1])
            elif len(fields) == 3:
                lemma, pos = fields[0], fields[1]
                score = float(fields[2])
            else:
                raise ValueError(f"{len(fields)} tab-separated fields")
            if not lemma:
                raise ValueError("no lemma#pos key")
            key = normalise_key(lemma, pos)
        except ValueError as err:
            if not seen_data and len(fields) == 3:  # the header line of the 3-column format
                seen_data = True
                continue
            raise ValueError(f"{where}, line {number}: cannot read {text[:60]!r} ({err}); expected "
                             "'lemma#pos<TAB>score' or 'lemma<TAB>pos<TAB>score'") from None
        seen_data = True
        sums[key] = sums.get(key, 0.0) + _checked(key, score, f"{where}, line {number}")
        counts[key] = counts.get(key, 0) + 1
    if not sums:
        raise ValueError(f"{where}: no lexicon entries found")
    return {key: sums[key] / counts[key] for key in sums}


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


@functools.lru_cache(maxsize=8)
def _read_file(path: str) -> Lexicon:
    file = Path(path)
    try:
        with open_binary(file, f"lexicon {file}") as fh:
            data = fh.read()
    except InputFileError as err:  # missing, a directory, unreadable, a damaged or truncated gzip stream
        raise LexiconError(str(err)) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line, column = data.count(b"\n", 0, err.start) + 1, err.start - data.rfind(b"\n", 0, err.start)
        raise LexiconError(f"lexicon {file}, line {line}: not valid UTF-8 (byte {column} of the line is "
                           f"{data[err.start:err.start + 1]!r}); save the file as UTF-8") from None
    try:
        polarity = parse_sentiwords(raw.splitlines(), where=f"lexicon {file}")
    except ValueError as err:
        raise LexiconError(str(err)) from None
    return Lexicon(f"{file.name}@{_digest(raw)}", polarity)


def _mapping_value(raw_key: Any, value: Any) -> float:
    # any real number (numpy scalars, Decimal, Fraction: a pandas Series' values are numpy), never
    # a bool or a string
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise LexiconError(f"lexicon: the value of {raw_key!r} is {value!r:.60}; lexicon scores are numbers in [-1, 1]")
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
        for raw_key, value in spec.items():
            lemma, sep, pos = str(raw_key).rpartition("#")
            if not sep or not lemma:
                raise LexiconError(f"lexicon key {raw_key!r} is not of the form lemma#pos")
            try:
                key = normalise_key(lemma, pos)
                polarity[key] = _checked(key, _mapping_value(raw_key, value), "lexicon")
            except LexiconError:
                raise
            except ValueError as err:  # a part of speech outside a/n/r/v
                raise LexiconError(f"lexicon key {raw_key!r}: {err}") from None
        if not polarity:
            raise LexiconError("lexicon: the mapping has no entries")
        listing = ";".join(f"{k}={v!r}" for k, v in sorted(polarity.items()))
        return Lexicon(f"custom{len(polarity)}@{_digest(listing)}", polarity)
    name = DEFAULT_LEXICON if str(spec) == "default" else str(spec)
    for key, (file, prefix, aliases) in LEXICONS.items():
        if name == key or name in aliases:
            lexicon = _read_file(str(data_path(file)))
            return Lexicon(f"{prefix}@" + lexicon.name.split("@")[1], lexicon.polarity)
    path = Path(str(spec)).expanduser()
    if not path.is_file():
        raise LexiconNotFoundError(f"lexicon {spec!s} is neither one of {', '.join(LEXICONS)} nor a readable "
                                "file (a SentiWords 1.1 file: lemma#pos<TAB>score)")
    return _read_file(str(path.resolve()))


@dataclass(frozen=True)
class Item:
    """One compared unit of a text: a word (or multiword expression) with its ``lemma#pos``
    key (pos a/n/r/v from the tagger; other words keep their lowercased UPOS, which no
    lexicon lists) and its prior polarity (0 when the lexicon does not know it)."""

    word: str
    key: str
    polarity: float
    known: bool

    @property
    def lemma(self) -> str:
        return self.key.rpartition("#")[0]

    def explain(self) -> Dict[str, object]:
        return {"word": self.word, "item": self.key, "polarity": self.polarity, "known": self.known}


def _lookup(lexicon: Lexicon, lemma: str, form: str, pos: Optional[str]) -> Tuple[Optional[float], str]:
    """Polarity by lemma, then by the lowercased word form (a lemmatiser slip), same pos."""
    if pos is None:
        return None, lemma
    for candidate in dict.fromkeys((lemma, form)):
        value = lexicon.get(f"{candidate}#{pos}")
        if value is not None:
            return value, candidate
    return None, lemma


def _span_heads(parsed: Parsed, start: int, end: int) -> Tuple[int, ...]:
    """The token of ``[start, end)`` whose head lies outside the span (the last one if none).
    Without dependencies (light tagging): the last token, then the first (``ice_cream#n`` is
    head-final, ``look_up#v`` head-initial)."""
    if not parsed.has_dependencies:
        return (end - 1, start)
    for i in range(start, end):
        if not start <= parsed.tokens[i].head < end:
            return (i,)
    return (end - 1,)


def text_items(parsed: Parsed, lexicon: Lexicon, multiword: bool = False) -> List[Item]:
    """The items of one tagged text, punctuation and whitespace left out.

    With ``multiword``, the longest run of 2-4 adjacent words whose ``_``-joined lemmas (or
    word forms) under the WordNet pos of the run's syntactic head is a lexicon entry becomes
    one item (``ice_cream#n``); otherwise each word is an item.
    """
    tokens = parsed.tokens
    items: List[Item] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.upos in SKIPPED_UPOS or not token.text.strip():
            i += 1
            continue
        if multiword:
            found = _multiword_at(parsed, i, lexicon)
            if found is not None:
                item, i = found
                items.append(item)
                continue
        pos = wordnet_pos(token.xpos, token.upos)
        lemma, form = token.lemma.lower(), token.text.lower()
        value, _ = _lookup(lexicon, lemma, form, pos)
        # matching is on lemma#POS (FORMULAS 5), whichever form the lexicon knew
        key = f"{lemma}#{pos}" if pos else f"{lemma}#{token.upos.lower()}"
        items.append(Item(token.text, key, 0.0 if value is None else value, value is not None))
        i += 1
    return items


def _multiword_at(parsed: Parsed, start: int, lexicon: Lexicon) -> Optional[Tuple[Item, int]]:
    tokens = parsed.tokens
    for length in lexicon.multiword_lengths:
        end = start + length
        if end > len(tokens) or any(t.upos in SKIPPED_UPOS for t in tokens[start:end]):
            continue
        span = tokens[start:end]
        lemma = "_".join(t.lemma.lower() for t in span)
        form = "_".join(t.text.lower() for t in span)
        for index in _span_heads(parsed, start, end):
            pos = wordnet_pos(tokens[index].xpos, tokens[index].upos)
            value, _ = _lookup(lexicon, lemma, form, pos)
            if value is not None:
                return Item(" ".join(t.text for t in span), f"{lemma}#{pos}", value, True), end
    return None


# -- the lookup tagger (linguistic_backend="lookup") ------------------------------------------
TAGGER_FILE = "sam_tagger.tsv.gz"
Analysis = Tuple[str, str, str]  # (Penn tag, UPOS, lemma)
#: the first WordNet pos tried by morphy for an unknown lowercase word, by suffix
_SUFFIX_ORDER = (("ing", "vnar"), ("ed", "vanr"), ("ly", "ranv"), ("", "navr"))
_WN_TAG = {"n": ("NN", "NOUN"), "v": ("VB", "VERB"), "a": ("JJ", "ADJ"), "r": ("RB", "ADV")}


def read_tagger_table(path: Union[str, Path]) -> Dict[str, Analysis]:
    """``form -> (tag, upos, lemma)`` from a table written by ``training.sam_tagger``."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh if line.strip() and not line.startswith("# ")]
    return {form: (tag, upos, lemma) for form, tag, upos, lemma in rows}


def rule_analysis(form: str) -> Analysis:
    """The analysis of a form the table lacks: no letters -> punctuation, number or symbol;
    capitalised -> proper noun; else the first WordNet pos (by suffix: -ing/-ed verbs first,
    -ly adverbs first, else noun, adjective, verb, adverb) under which morphy finds a lemma."""
    if not any(c.isalpha() for c in form):
        if any(c.isdigit() for c in form):
            return ("CD", "NUM", form)
        return (".", "PUNCT", form) if all(not c.isalnum() for c in form) else ("SYM", "SYM", form)
    if form[:1].isupper():
        return ("NNP", "PROPN", form)
    low = form.lower()
    order = next(o for suffix, o in _SUFFIX_ORDER if low.endswith(suffix))
    wn = wordnet()
    for pos in order:
        lemma = wn.morphy(low, pos) if low.isalpha() else None
        if lemma:
            tag, upos = _WN_TAG[pos]
            return (tag, upos, lemma)
    return ("NN", "NOUN", low)


class LookupAnalyzer:
    """Tags and lemmas from the lookup table (see the module docstring), same interface as
    :class:`nlgmetrics.core.linguistic.Analyzer` in light mode, parses cached per text."""

    def __init__(self, path: Optional[Union[str, Path]] = None) -> None:
        import spacy

        file = Path(path) if path else data_path(TAGGER_FILE)
        self.table = read_tagger_table(file)
        self.name = f"lookup:{file.name.split('.')[0]}@{_digest(file.read_bytes().hex())}"
        self.tokenizer: Any = spacy.blank("en").tokenizer
        self.light = True
        self._unknown: LRUCache[str, Analysis] = LRUCache(100_000, 16 * 2**20)
        self._cache: LRUCache[str, Parsed] = LRUCache(CACHE_ENTRIES, CACHE_BYTES, sizeof=parsed_size)
        self._lock = threading.Lock()

    backend = property(lambda self: self.name)

    def clear(self) -> None:
        """Forget cached parses and rule analyses."""
        with self._lock:
            self._cache.clear()
            self._unknown.clear()

    def analysis(self, form: str) -> Analysis:
        """(tag, upos, lemma) of one word form: the table's, its lowercase form's, or the rule's."""
        found = self.table.get(form) or self.table.get(form.lower())
        if found is None:
            found = self._unknown.get(form)
            if found is None:
                found = self._unknown[form] = rule_analysis(form)
        return found

    def analyze(self, texts: Sequence[str]) -> List[Parsed]:
        with self._lock:
            return self._cache.get_many(texts, self._parse)

    def _parse(self, todo: List[str]) -> List[Parsed]:
        out = []
        for text, doc in zip(todo, self.tokenizer.pipe(parser_inputs(todo))):
            tokens = []
            for word in doc:
                form = word.text
                tag, upos, lemma = ("_SP", "SPACE", form) if not form.strip() else self.analysis(form)
                tokens.append(Token(form, lemma, upos, tag, -1, "", 0))
            out.append(Parsed(text, tokens, self.name, [range(0, len(tokens))] if tokens else [], False))
        return out


@functools.lru_cache(maxsize=1)
def lookup_analyzer() -> LookupAnalyzer:
    """The process-wide :class:`LookupAnalyzer` over the shipped table."""
    return LookupAnalyzer()

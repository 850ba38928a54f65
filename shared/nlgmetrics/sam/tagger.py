"""The items SAM compares (``text_items``: words and multiword expressions of a tagged text
with their ``lemma#pos`` key and prior polarity) and the lookup tagger.

:class:`LookupAnalyzer` (``linguistic_backend="lookup"``): spaCy's rule tokenizer and, per
word form, the most frequent tag and lemma spaCy's tagger gave it in training text
(``data/sam_tagger.tsv.gz``, built by ``shared/tools/training/sam_tagger.py``); forms
the table lacks get a rule (lowercase form, capitalised -> proper noun, else WordNet morphy).
"""
from __future__ import annotations

import functools
import gzip
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from nlgmetrics.core.cache import LRUCache
from nlgmetrics.core.linguistic import CACHE_BYTES, CACHE_ENTRIES, Parsed, Token, parsed_size, parser_inputs, wordnet_pos
from nlgmetrics.core.resources import data_path, wordnet
from nlgmetrics.sam.lexicon import Lexicon, content_digest

#: tokens that never become items
SKIPPED_UPOS = {"PUNCT", "SPACE"}


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
        self.name = f"lookup:{file.name.split('.')[0]}@{content_digest(file.read_bytes().hex())}"
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

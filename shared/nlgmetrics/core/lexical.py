"""Lexical metrics every other metric is compared with or combined with: sentence BLEU, chrF,
TER (sacrebleu) and METEOR (nltk, WordNet synonyms from the embedded copy). Scores are on
sacrebleu's 0-100 scale for BLEU/chrF/TER and 0-1 for METEOR unless ``unit=True``."""
from __future__ import annotations

import functools
import re
from typing import List, Sequence, Union

Refs = Union[str, Sequence[str]]


def _refs(ref: Refs) -> List[str]:
    return [ref] if isinstance(ref, str) else list(ref)


@functools.lru_cache(maxsize=1)
def _bleu():
    from sacrebleu.metrics import BLEU

    return BLEU(effective_order=True)


@functools.lru_cache(maxsize=1)
def _chrf():
    from sacrebleu.metrics import CHRF

    return CHRF()


@functools.lru_cache(maxsize=1)
def _ter():
    from sacrebleu.metrics import TER

    return TER()


def sentence_bleu(hyp: str, ref: Refs) -> float:
    """sacrebleu sentence BLEU (effective order, exp smoothing), 0-100."""
    return float(_bleu().sentence_score(hyp, _refs(ref)).score)


def sentence_chrf(hyp: str, ref: Refs) -> float:
    """sacrebleu chrF (n=6, beta=2), 0-100."""
    return float(_chrf().sentence_score(hyp, _refs(ref)).score)


def sentence_ter(hyp: str, ref: Refs) -> float:
    """sacrebleu TER (edits per reference word, x100; lower is better, may exceed 100)."""
    return float(_ter().sentence_score(hyp, _refs(ref)).score)


_WORD = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]", re.UNICODE)


def meteor_tokenize(text: str) -> List[str]:
    """Lowercased word/punctuation tokens (no downloads: a regex, not punkt)."""
    return _WORD.findall(text.lower())


def sentence_meteor(hyp: str, ref: Refs) -> float:
    """nltk METEOR (exact, Porter stem, WordNet synonym stages; alpha 0.9, beta 3, gamma 0.5),
    0-1; with several references the best is taken. Empty hypothesis or reference gives 0."""
    from nltk.translate.meteor_score import meteor_score

    from .resources import wordnet

    wn = wordnet()
    hyp_toks = meteor_tokenize(hyp)
    ref_toks = [meteor_tokenize(r) for r in _refs(ref)]
    if not hyp_toks or not any(ref_toks):
        return 0.0
    return float(meteor_score([r for r in ref_toks if r], hyp_toks, wordnet=wn))


def corpus_sentence_scores(fn, hyps: Sequence[str], refs: Sequence[Refs]) -> List[float]:
    """Apply a sentence-level function pairwise over a corpus."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    return [fn(h, r) for h, r in zip(hyps, refs)]

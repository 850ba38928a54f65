"""DiscoTK-party's members beside the discourse kernels: the ULC members that have a resource
here (TER, METEOR, head-word-chain matching, dependency overlap) and the extra members
(chrF, sentence BLEU, sentence BERTScore) of ``members="asiya+extra"``."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from nlgmetrics.discotk.discourse import is_word

from ..core.lexical import sentence_bleu, sentence_chrf, sentence_meteor, sentence_ter
from ..core.linguistic import Parsed

#: ULC members implemented here (raw values; higher is better for all of them)
ASIYA_MEMBERS = ("ter", "meteor", "dp-hwcm_c-4", "dp-hwcm_r-4", "dp-or")
PARTY_MEMBERS = ASIYA_MEMBERS
#: members beside the Asiya-like set (``members="asiya+extra"``)
EXTRA_MEMBERS = ("chrf", "bleu", "bertscore")
#: ULC members of the paper's party that have no resource here, and why
ABSENT_MEMBERS: Dict[str, str] = {
    "TERp-A": "TER-plus paraphrase tables are not installable; plain TER stands in",
    "METEOR-pa": "METEOR paraphrase tables are not installable; METEOR with WordNet synonyms stands in",
    "CP-STM-4": "needs a constituency parser",
    "CP-Oc(*)": "needs a constituency parser",
    "SR-Or(*)": "needs a semantic role labeller",
    "SR-Mr(*)": "needs a semantic role labeller",
    "SR-Or": "needs a semantic role labeller",
    "DR-Or(*)": "needs DRS (Boxer) discourse representations",
    "DR-Orp(*)": "needs DRS (Boxer) discourse representations",
}


@dataclass
class DependencyItems:
    """What HWCM and dependency overlap compare: head-word chains (lengths 1..4) of POS
    categories and of relations, and the lemmas under each dependency relation."""

    chains_c: Dict[int, Counter]
    chains_r: Dict[int, Counter]
    by_relation: Dict[str, Counter]

    @classmethod
    def from_parsed(cls, parsed: Parsed, max_length: int = 4) -> "DependencyItems":
        toks = parsed.tokens
        keep = [is_word(t.text) for t in toks]
        kids: List[List[int]] = [[] for _ in toks]
        for i, t in enumerate(toks):
            if keep[i] and 0 <= t.head < len(toks) and t.head != i and keep[t.head]:
                kids[t.head].append(i)
        chains_c: Dict[int, Counter] = {n: Counter() for n in range(1, max_length + 1)}
        chains_r: Dict[int, Counter] = {n: Counter() for n in range(1, max_length + 1)}
        frontier: List[Tuple[int, ...]] = [(i,) for i in range(len(toks)) if keep[i]]
        for n in range(1, max_length + 1):
            for path in frontier:
                chains_c[n][tuple(toks[j].upos for j in path)] += 1
                chains_r[n][tuple(toks[j].deprel for j in path)] += 1
            frontier = [path + (c,) for path in frontier for c in kids[path[-1]]]
        by_relation: Dict[str, Counter] = {}
        for i, t in enumerate(toks):
            if keep[i]:
                by_relation.setdefault(t.deprel, Counter())[t.lemma.lower()] += 1
        return cls(chains_c, chains_r, by_relation)


def _f1(hyp: Counter, ref: Counter) -> Optional[float]:
    if not hyp and not ref:
        return None
    matched = sum((hyp & ref).values())
    if matched == 0:
        return 0.0
    p, r = matched / sum(hyp.values()), matched / sum(ref.values())
    return 2 * p * r / (p + r)


def hwcm(hyp: Dict[int, Counter], ref: Dict[int, Counter]) -> float:
    """Head-word-chain matching: F1 of clipped chain matches per chain length, averaged over
    the lengths at which either side has chains (1.0 when neither has any)."""
    values = [v for n in hyp for v in [_f1(hyp[n], ref.get(n, Counter()))] if v is not None]
    return float(sum(values) / len(values)) if values else 1.0


def dependency_overlap(hyp: Dict[str, Counter], ref: Dict[str, Counter]) -> float:
    """DP-Or(*): per relation type, sum min / sum max of lemma counts, averaged over the types
    present on either side (1.0 when neither side has a word)."""
    types = set(hyp) | set(ref)
    if not types:
        return 1.0
    # math.fsum is exact, so the result does not depend on the set's order, which changes
    # with the process's string hash seed (a plain sum's last bits did)
    empty: Counter = Counter()
    return math.fsum(sum((hyp.get(t, empty) & ref.get(t, empty)).values())
                     / sum((hyp.get(t, empty) | ref.get(t, empty)).values()) for t in types) / len(types)


def has_word(text: str) -> bool:
    """True when the text has a token with a letter or digit."""
    return any(is_word(tok) for tok in text.split())


def ter_similarity(hyp: str, ref: str) -> float:
    """1 - TER / 100 (1 = identical; negative when the edits outnumber the reference words);
    a reference without a word (empty, punctuation only) gives 1.0 for a hypothesis without a
    word and 0.0 otherwise."""
    if not has_word(ref):
        return 0.0 if has_word(hyp) else 1.0
    return 1.0 - sentence_ter(hyp, ref) / 100.0


def meteor_similarity(hyp: str, ref: str) -> float:
    """METEOR with WordNet synonyms; two texts without a word score 1.0, as every other member
    (METEOR itself has no match to count there and would give 0)."""
    if not has_word(hyp) and not has_word(ref):
        return 1.0
    return float(sentence_meteor(hyp, ref))


def chrf_similarity(hyp: str, ref: str) -> float:
    """sacrebleu chrF / 100 (two texts without a word: 1.0)."""
    if not has_word(hyp) and not has_word(ref):
        return 1.0
    return sentence_chrf(hyp, ref) / 100.0


def bleu_similarity(hyp: str, ref: str) -> float:
    """sacrebleu sentence BLEU / 100 (two texts without a word: 1.0)."""
    if not has_word(hyp) and not has_word(ref):
        return 1.0
    return sentence_bleu(hyp, ref) / 100.0

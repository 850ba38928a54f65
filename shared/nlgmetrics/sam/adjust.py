"""SAM's adjustment (Eqs. 1-6): sentiment distance of the unmatched items and the penalty,
and the matching that decides which items are unmatched."""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from nlgmetrics.core.lexical import meteor_align
from nlgmetrics.sam.config import DAMPING, MATCHING
from nlgmetrics.sam.tagger import Item


# -- the adjustment (Eqs. 1-6) --------------------------------------------------------------
def weighted_polarity(polarities: Sequence[float]) -> float:
    """S = sum_i (|s_i| / sum_k |s_k|) s_i; 0 for no items or all-zero polarities."""
    total = sum(abs(s) for s in polarities)
    if total == 0:
        return 0.0
    return sum(abs(s) * s for s in polarities) / total


def sentiment_adjustment(hyp_polarities: Sequence[float],
                         ref_polarities: Sequence[float]) -> Tuple[float, float, float]:
    """``(S_h, S_r, p)`` with ``p = |S_h - S_r| / 2`` for the mismatched items' polarities."""
    s_h, s_r = weighted_polarity(hyp_polarities), weighted_polarity(ref_polarities)
    return s_h, s_r, abs(s_h - s_r) / 2


def damp(p: float, n: int, k: float) -> float:
    """``p * min(1, k / n)``: p kept whole up to ``k`` unmatched items, shrunk as ``k / n``
    beyond (a diffuse mismatch of many paraphrased words is not one flipped sentiment word)."""
    return p if n <= k else p * k / n


def unmatched_count(hyp_polarities: Sequence[float], ref_polarities: Sequence[float], damping: str) -> int:
    """n for :func:`damp`: the unmatched items of both sides (``items``, ``same-sign``) or
    those among them with a non-zero polarity (``polar``)."""
    both = list(hyp_polarities) + list(ref_polarities)
    if damping in ("items", "same-sign"):
        return len(both)
    if damping == "polar":
        return sum(s != 0 for s in both)
    raise ValueError(f"unknown damping {damping!r}; choose one of {', '.join(DAMPING[1:])}")


def damped_p(hyp_polarities: Sequence[float], ref_polarities: Sequence[float], damping: str = "off",
             k: float = 2.0) -> float:
    """p of the mismatched items under ``damping`` (``off``: the paper's p). ``same-sign``
    damps only a difference of degree (S_h and S_r non-zero with the same sign); opposite
    signs, or sentiment on one side only, keep p whole."""
    return damp_adjustment(sentiment_adjustment(hyp_polarities, ref_polarities), hyp_polarities,
                           ref_polarities, damping, k)


def damp_adjustment(adjustment: Tuple[float, float, float], hyp_polarities: Sequence[float],
                    ref_polarities: Sequence[float], damping: str, k: float) -> float:
    """:func:`damped_p` from an already computed ``(S_h, S_r, p)`` of :func:`sentiment_adjustment`."""
    s_h, s_r, p = adjustment
    if damping == "off" or (damping == "same-sign" and not s_h * s_r > 0):
        return p
    return damp(p, unmatched_count(hyp_polarities, ref_polarities, damping), k)


def adjust(base: float, p: float, low: float = 0.0) -> float:
    """The SAM score ``base - p * |base - low|``: ``low + (base - low) * (1 - p)`` for a score
    at or above the scale's lower end (the paper's ``C_hr * (1 - p)`` when low = 0); never
    higher than ``base`` and never rising with p, whatever the sign of ``base``."""
    return base - p * abs(base - low)


# -- matching ---------------------------------------------------------------------------------
def match_items(hyp: Sequence[Item], ref: Sequence[Item],
                matching: str = "meteor") -> Tuple[List[Item], List[Item]]:
    """The unmatched hypothesis and reference items (multisets, one-to-one matching).

    ``lemma``: equal ``lemma#pos`` keys, left to right. ``meteor``: METEOR's staged alignment
    of the lowercased words (exact, Porter stem, WordNet synonym; pos ignored, as in METEOR).
    """
    if matching == "meteor":
        pairs = meteor_align([it.word.lower() for it in hyp], [it.word.lower() for it in ref])
        used_h, used_r = {i for i, _, _ in pairs}, {j for _, j, _ in pairs}
    elif matching == "lemma":
        free: Dict[str, List[int]] = {}
        for j, item in enumerate(ref):
            free.setdefault(item.key, []).append(j)
        used_h, used_r = set(), set()
        for i, item in enumerate(hyp):
            if free.get(item.key):
                used_h.add(i)
                used_r.add(free[item.key].pop(0))
    else:
        raise ValueError(f"unknown matching {matching!r}; choose one of {', '.join(MATCHING)}")
    return ([it for i, it in enumerate(hyp) if i not in used_h],
            [it for j, it in enumerate(ref) if j not in used_r])

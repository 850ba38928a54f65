"""What RoMe's Space and reports draw, computed by RoMe's own scoring path: the alignment map
behind F_EMD (every word pair's alignment score, the cosines, the zeroed pairs and the pairs
the score kept), so the drawing cannot drift from the score."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .features import alignment_cosines, relative_position_gap, word_cosines
from .scorer import RoMe


@dataclass(frozen=True)
class AlignmentMap:
    """F_EMD's alignment of one hypothesis (rows) and reference (columns)."""

    hyp_words: list[str]
    ref_words: list[str]
    #: the encoder's cosines (words with an unknown subword compared by their text)
    cosine: np.ndarray
    #: 1 - |i/m - j/n|, the position factor of the alignment score
    factor: np.ndarray
    #: cos x factor with the zeroed pairs at 0: the score by which a hypothesis word picks its partner
    score: np.ndarray
    #: the pairs F_EMD kept, ``(i, j)``, exactly as scored
    pairs: list[tuple[int, int]]
    f_emd: float
    #: rule name (``antonyms``, ``names``) -> mask of the pairs whose cosine counts as 0
    zeroed: dict[str, np.ndarray] = field(default_factory=dict)


def alignment_map(scorer: RoMe, hypothesis: str, reference: str) -> AlignmentMap:
    """The alignment map of one pair, from the scorer's own analysis (:meth:`RoMe.pair_analysis`)
    and its own F_EMD step: ``pairs`` are the pairs the score used."""
    cfg = scorer.config
    sh, sr = scorer.pair_analysis(hypothesis, reference)
    m, n = len(sh.words), len(sr.words)
    if not m or not n:
        empty = np.zeros((m, n))
        return AlignmentMap(sh.words, sr.words, empty, empty, empty, [], 0.0)
    f_emd, _, kept = scorer._pair(sh, sr, {"emd"})  # noqa: SLF001 - the scorer's own F_EMD step
    assert sh.vectors is not None and sr.vectors is not None
    cosine = word_cosines(sh.words, sr.words, sh.vectors, sr.vectors, sh.opaque, sr.opaque)
    aligned, zeroed = alignment_cosines(sh.words, sr.words, sh.vectors, sr.vectors, antonyms=cfg.emd_antonyms,
                                        names=cfg.emd_names, hyp_opaque=sh.opaque, ref_opaque=sr.opaque,
                                        hyp_names=sh.names, ref_names=sr.names)
    factor = 1.0 - relative_position_gap(m, n)
    return AlignmentMap(sh.words, sr.words, cosine, factor, aligned * factor,
                        [(int(p[0]), int(p[1])) for p in kept], float(f_emd), zeroed)


__all__ = ["AlignmentMap", "alignment_map"]

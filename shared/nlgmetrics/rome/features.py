"""RoMe's features without models: preprocessing and F_EMD (hard alignment, soft position
penalty, TF-IDF weights, optimal transport); F_TED's trees and distance are in :mod:`.ted`.

    F_EMD = 1 - EMD over hard-aligned, softly position-penalised contextual word vectors
    F_TED = TED-SE / max(|T_h|, |T_r|): tree edit distance of the lemmatised dependency
            trees, two nodes equal when their words' cosine >= delta_TED (a distance)

Preprocessing: invisible characters removed (:func:`~nlgmetrics.core.inputs.visible_text`); for F_EMD then lowercase,
punctuation (Unicode P*) replaced by spaces, whitespace words. Hard alignment: each hypothesis word i, in order, takes j* = argmax_j cos(h_i, r_j) *
(1 - |i/m - j/n|) (1-based positions); the pair is kept only when cos(h_i, r_j*) > delta_EMD
and r_j* is still free. Kept pairs cost d_ij = 1 - cos * exp(-gamma * 2|m-n|/(m+n) *
|i/m - j/n|), all other pairs 1 (``unaligned="one"``, the specification) or 1 - cos clipped to
[0, 1] (``unaligned="cosine"``); word weights are TF-IDF over the pair's two sentences
(``weights="tfidf"``, the specification) or term frequency scaled down for closed-class
function words (``weights="content"``, :func:`content_weights`), normalised per sentence; EMD
is the optimal transport cost (POT's ``ot.emd``).

Words the encoder cannot fully represent (any of their subwords is the unknown token: words
longer than 100 characters, most emoji and CJK characters) are compared by their text: cosine 1
when equal, else 0, since their vectors cannot tell them from other such words.

>>> hard_alignment(np.array([[0.9, 0.7], [0.95, 0.2]]))  # word 2 wants column 0, already taken
[(0, 0)]
"""
from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Sequence

import numpy as np

from nlgmetrics.core.inputs import check_choice

from ..core.lexical import wordnet_antonyms, wordnet_common_word, wordnet_related_forms
from .config import (
    ALIGNMENT_RULES,
    ANTONYM_RULES,
    DELTA_EMD,
    EMD_WEIGHTINGS,
    FUNCTION_WORD_WEIGHT,
    GAMMA,
    GRAMMAR_RELATIVE,
    NAME_RULES,
    UNALIGNED_COSTS,
)

ROOT_LABEL = "<root>"
#: characters that end a sentence (the next word's capital letter is then no sign of a name)
SENTENCE_ENDS = frozenset(".!?\u2026\u3002\uff01\uff1f")
#: closed-class English words (articles and determiners, pronouns, auxiliaries and copulas,
#: prepositions, conjunctions, particles) that ``weights="content"`` scales down; negations
#: (not, no, never, nor) and numbers stay content words, except "one", listed as a pronoun
FUNCTION_WORDS = frozenset("""
a an the this that these those some any each every either neither both all another such
i me my mine myself you your yours yourself yourselves he him his himself she her hers herself
it its itself we us our ours ourselves they them their theirs themselves one ones who whom whose
which what whatever whoever there here
be is am are was were been being s re m d ll ve have has had having do does did doing done
will would shall should can could may might must ought
of in on at by for with about against between into through during before after above below to
from up down out off over under again further than as until while since per via onto upon
within without along across among around behind beside besides beyond near toward towards
and or but so yet if because although though unless whereas whether then also
""".split())


def relative_grammar(p_hyp: np.ndarray, p_ref: np.ndarray, rule: str) -> np.ndarray:
    """F_grammar as the network reads it. ``off`` (the specification): P(hypothesis acceptable)
    as given. ``difference``: the hypothesis minus its reference, shifted so that an equal
    acceptability is the top, 1 - max(0, P(ref) - P(hyp)): only acceptability lost against the
    reference lowers it, so an exact copy gets 1 whatever the classifier thinks of the
    reference, and with F_EMD = 1 and F_TED = 0 the network's top.

    >>> relative_grammar(np.array([0.2, 0.9, 0.3]), np.array([0.2, 0.5, 0.8]), "difference").round(2).tolist()
    [1.0, 1.0, 0.5]
    """
    if rule == "off":
        return np.asarray(p_hyp, dtype=np.float64)
    if rule != "difference":
        raise ValueError(f"unknown grammar_relative {rule!r}; choose one of {', '.join(GRAMMAR_RELATIVE)}")
    return 1.0 - np.maximum(0.0, np.asarray(p_ref, dtype=np.float64) - np.asarray(p_hyp, dtype=np.float64))


# -- preprocessing --------------------------------------------------------------------------
def preprocess(text: str) -> list[str]:
    """Lowercased whitespace words with punctuation (Unicode category P*) replaced by spaces.
    Symbols such as emoji are kept; a text of only punctuation gives no words."""
    chars = [" " if unicodedata.category(c).startswith("P") else c for c in text.lower()]
    return "".join(chars).split()


def name_flags(text: str) -> list[bool]:
    """One flag per word of :func:`preprocess` (the same split of the original-case text):
    True for a proper name by its capital letter.

    A word is a name when it starts with an upper-case letter, is not a function word
    (:data:`FUNCTION_WORDS`) and, when it starts a sentence (first word, or first after . ! ?),
    WordNet knows no common word of that form (:func:`wordnet_common_word`: "Paris" is a name
    there, "Cats" and "China" are not). A text whose capitals carry no information has no names:
    mostly ALL-CAPS words (three or more cased words, more than half upper case) or Title Case
    (three or more words inside sentences that are not function words, all capitalised).
    Scripts without case have no names.

    >>> name_flags("Paris is the capital of France.")
    [True, False, False, False, False, True]
    >>> name_flags("Cats sleep. The Eagle serves Italian food")
    [False, False, False, True, False, True, False]
    >>> name_flags("MAN BITES DOG IN PARK"), name_flags("Man Bites Dog In Park")
    ([False, False, False, False, False], [False, False, False, False, False])
    """
    words: list[str] = []
    starts: list[bool] = []
    current: list[str] = []
    sentence_start = True
    for c in text + " ":
        if c.isspace() or unicodedata.category(c).startswith("P"):
            if current:
                words.append("".join(current))
                current = []
                sentence_start = False
            if c in SENTENCE_ENDS:
                sentence_start = True
        else:
            if not current:
                starts.append(sentence_start)
            current.append(c)
    if len(words) != len(preprocess(text)):  # lower-casing changed the split: no names
        return [False] * len(preprocess(text))
    cased = [w for w in words if w.lower() != w.upper()]
    inner = [w for w, s in zip(words, starts) if not s and w.lower() not in FUNCTION_WORDS and w.lower() != w.upper()]
    shouting = len(cased) >= 3 and sum(len(w) > 1 and w.isupper() for w in cased) > len(cased) / 2
    title = len(inner) >= 3 and all(w[0].isupper() for w in inner)
    if shouting or title:
        return [False] * len(words)
    return [w[0].isupper() and w.lower() not in FUNCTION_WORDS and not (s and wordnet_common_word(w))
            for w, s in zip(words, starts)]


def clip_words(text: str, max_words: int) -> tuple[str, bool]:
    """The first ``max_words`` whitespace words of ``text`` (and whether it was cut)."""
    words = text.split()
    if len(words) <= max_words:
        return text, False
    return " ".join(words[:max_words]), True


# -- F_EMD ----------------------------------------------------------------------------------
def tfidf_weights(words: Sequence[str], other: Sequence[str]) -> np.ndarray:
    """Per-position weights (1 + log10 tf) * log10(1 + N / df), N = 2 documents (this sentence
    and the other one of the pair), normalised to sum to 1 (empty for no words)."""
    if not words:
        return np.zeros(0)
    tf = Counter(words)
    other_set = set(other)
    raw = np.array([(1 + math.log10(tf[w])) * math.log10(1 + 2 / (1 + (w in other_set))) for w in words])
    return raw / raw.sum()


def content_weights(words: Sequence[str], other: Sequence[str] = (), *,
                    function_weight: float = FUNCTION_WORD_WEIGHT) -> np.ndarray:
    """Per-position weights (1 + log10 tf) * c, c = 1 for a content word and ``function_weight``
    (:data:`FUNCTION_WORD_WEIGHT`) for a word of :data:`FUNCTION_WORDS`, normalised to sum to 1
    (empty for no words). Unlike :func:`tfidf_weights` a word's weight does not depend on
    whether the other sentence has it (``other`` is accepted for the same call shape).

    >>> content_weights(["the", "cat", "sat"]).round(4).tolist()
    [0.0909, 0.4545, 0.4545]
    """
    if not words:
        return np.zeros(0)
    tf = Counter(words)
    raw = np.array([(1 + math.log10(tf[w])) * (function_weight if w in FUNCTION_WORDS else 1.0)
                    for w in words])
    return raw / raw.sum()


def relative_position_gap(m: int, n: int) -> np.ndarray:
    """|i/m - j/n| for 1-based positions i <= m, j <= n."""
    return np.abs(np.arange(1, m + 1)[:, None] / m - np.arange(1, n + 1)[None, :] / n)


def hard_alignment(cos: np.ndarray, delta: float = DELTA_EMD, rule: str = "argmax") -> list[tuple[int, int]]:
    """One-to-one word pairs (hypothesis i, reference j), each with cos > delta. For each i in
    order, with alignment score cos * (1 - |i/m - j/n|):

    - ``argmax`` (the specification): j* maximises the score over all j; the pair is kept when
      cos(i, j*) > delta and j* is still free (a repeated word loses to its first copy).
    - ``thresholded``: j* maximises the score over the free j with cos > delta (a word moved
      far, as in a passive rewrite, is not lost to a nearer, dissimilar word).
    """
    check_choice("alignment rule", rule, ALIGNMENT_RULES)
    m, n = cos.shape
    if m == 0 or n == 0:
        return []
    scores = cos * (1.0 - relative_position_gap(m, n))
    taken = np.zeros(n, dtype=bool)
    pairs = []
    for i in range(m):
        if rule == "thresholded":
            allowed = (cos[i] > delta) & ~taken
            if not allowed.any():
                continue
            j = int(np.argmax(np.where(allowed, scores[i], -np.inf)))
        else:
            j = int(np.argmax(scores[i]))
        if cos[i, j] > delta and not taken[j]:
            taken[j] = True
            pairs.append((i, j))
    return pairs


def transport_distance(cos: np.ndarray, pairs: Sequence[tuple[int, int]],
                       gamma: float = GAMMA, unaligned: str = "one") -> np.ndarray:
    """d_ij = 1 - cos_ij * exp(-gamma * 2|m-n|/(m+n) * |i/m - j/n|) for aligned pairs; every
    other pair costs 1 (``unaligned="one"``, the specification) or its semantic distance
    1 - cos_ij clipped to [0, 1] (``unaligned="cosine"``: a word left out of the one-to-one
    alignment still moves to a similar word at a cost below 1)."""
    check_choice("unaligned cost", unaligned, UNALIGNED_COSTS)
    m, n = cos.shape
    dist = np.ones((m, n)) if unaligned == "one" else np.clip(1.0 - cos, 0.0, 1.0)
    if pairs:
        gap = relative_position_gap(m, n)
        rows, cols = np.array(pairs).T
        penalty = np.exp(-gamma * (2 * abs(m - n) / (m + n)) * gap[rows, cols])
        dist[rows, cols] = 1.0 - cos[rows, cols] * penalty
    return dist


def earth_movers_distance(dist: np.ndarray, hyp_weights: np.ndarray, ref_weights: np.ndarray) -> float:
    """sum f_ij d_ij / sum f_ij for the optimal flow under the paper's Eq. 2 (flows >= 0, row
    and column sums bounded by the weights, total flow = the smaller total). With both weight
    vectors normalised the bounds are tight and this is ``ot.emd``."""
    import ot

    a = np.asarray(hyp_weights, dtype=np.float64)
    b = np.asarray(ref_weights, dtype=np.float64)
    total = min(a.sum(), b.sum())
    # scale both sides to the smaller total: with equal totals the problem is balanced
    flow = ot.emd(a * total / a.sum(), b * total / b.sum(), np.ascontiguousarray(dist, dtype=np.float64))
    return float((flow * dist).sum() / flow.sum())


def word_cosines(hyp_words: Sequence[str], ref_words: Sequence[str], hyp_vecs: np.ndarray,
                 ref_vecs: np.ndarray, hyp_opaque: Sequence[bool] | None = None,
                 ref_opaque: Sequence[bool] | None = None) -> np.ndarray:
    """Cosines of the word vectors in [-1, 1]; a pair with an opaque word (one with a subword
    the encoder maps to its unknown token) gets 1 when the two texts are equal, else 0."""
    from ..core.embeddings import normalize_rows  # here: core.embeddings imports torch

    cos = np.clip(normalize_rows(hyp_vecs) @ normalize_rows(ref_vecs).T, -1.0, 1.0)
    if hyp_opaque is not None and ref_opaque is not None and (any(hyp_opaque) or any(ref_opaque)):
        either = np.asarray(hyp_opaque, dtype=bool)[:, None] | np.asarray(ref_opaque, dtype=bool)[None, :]
        same = np.array([[a == b for b in ref_words] for a in hyp_words], dtype=bool)
        cos = np.where(either, same.astype(float), cos)
    return cos


def antonym_mask(hyp_words: Sequence[str], ref_words: Sequence[str]) -> np.ndarray:
    """True where a hypothesis word and a reference word are WordNet adjective antonyms, in
    either direction (:func:`nlgmetrics.core.lexical.wordnet_antonyms`).

    >>> antonym_mask(["a", "small", "garden"], ["a", "large", "garden"]).astype(int).tolist()
    [[0, 0, 0], [0, 1, 0], [0, 0, 0]]
    """
    hyp_sets = [wordnet_antonyms(h) for h in hyp_words]  # one lookup per word, not per pair
    ref_sets = [wordnet_antonyms(r) for r in ref_words]
    return np.array([[h != r and (r in hs or h in rs) for r, rs in zip(ref_words, ref_sets)]
                     for h, hs in zip(hyp_words, hyp_sets)], dtype=bool).reshape(len(hyp_words), len(ref_words))


def name_mask(hyp_words: Sequence[str], ref_words: Sequence[str], hyp_names: Sequence[bool],
              ref_names: Sequence[bool]) -> np.ndarray:
    """True where a hypothesis word and a reference word are both names (:func:`name_flags`),
    differ, and are not forms of one name by WordNet (:func:`wordnet_related_forms`: "japanese"
    and "japan" are one place).

    >>> name_mask(["paris", "is", "japanese"], ["london", "is", "japan"], [True, False, True],
    ...           [True, False, True]).astype(int).tolist()
    [[1, 0, 1], [0, 0, 0], [1, 0, 0]]
    """
    hyp_forms = [wordnet_related_forms(h) if n else frozenset() for h, n in zip(hyp_words, hyp_names)]
    ref_forms = [wordnet_related_forms(r) if n else frozenset() for r, n in zip(ref_words, ref_names)]
    return np.array([[hn and rn and h != r and r not in hf and h not in rf
                      for r, rn, rf in zip(ref_words, ref_names, ref_forms)]
                     for h, hn, hf in zip(hyp_words, hyp_names, hyp_forms)],
                    dtype=bool).reshape(len(hyp_words), len(ref_words))


def zeroed_pairs(hyp_words: Sequence[str], ref_words: Sequence[str], *, antonyms: str = "off",
                 names: str = "off", hyp_names: Sequence[bool] | None = None,
                 ref_names: Sequence[bool] | None = None) -> dict[str, np.ndarray]:
    """The word pairs whose cosine F_EMD's rules set to 0, one mask per rule that is on:
    ``antonyms`` (``"wordnet"``: :func:`antonym_mask`) and ``names`` (``"capitalised"``:
    :func:`name_mask`, with the flags of :func:`name_flags`)."""
    check_choice("F_EMD antonym rule", antonyms, ANTONYM_RULES)
    check_choice("F_EMD name rule", names, NAME_RULES)
    out = {}
    if antonyms == "wordnet":
        out["antonyms"] = antonym_mask(hyp_words, ref_words)
    if names != "off":
        if hyp_names is None or ref_names is None:
            raise ValueError(f"names={names!r} needs the name flags of both texts (hyp_names, ref_names)")
        out["names"] = name_mask(hyp_words, ref_words, hyp_names, ref_names)
    return out


def alignment_cosines(hyp_words: Sequence[str], ref_words: Sequence[str], hyp_vecs: np.ndarray,
                      ref_vecs: np.ndarray, *, antonyms: str = "off", names: str = "off",
                      hyp_opaque: Sequence[bool] | None = None, ref_opaque: Sequence[bool] | None = None,
                      hyp_names: Sequence[bool] | None = None,
                      ref_names: Sequence[bool] | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The cosines F_EMD aligns and transports by (:func:`word_cosines`, with the pairs of
    :func:`zeroed_pairs` set to 0), and those zeroed masks by rule."""
    zeroed = zeroed_pairs(hyp_words, ref_words, antonyms=antonyms, names=names, hyp_names=hyp_names,
                          ref_names=ref_names)
    cos = word_cosines(hyp_words, ref_words, hyp_vecs, ref_vecs, hyp_opaque, ref_opaque)
    for mask in zeroed.values():
        cos = np.where(mask, 0.0, cos)
    return cos, zeroed


def emd_similarity(hyp_words: Sequence[str], ref_words: Sequence[str], hyp_vecs: np.ndarray,
                   ref_vecs: np.ndarray, *, delta: float = DELTA_EMD, gamma: float = GAMMA,
                   alignment: str = "argmax", unaligned: str = "one", weights: str = "tfidf",
                   antonyms: str = "off", names: str = "off", function_weight: float = FUNCTION_WORD_WEIGHT,
                   hyp_opaque: Sequence[bool] | None = None, ref_opaque: Sequence[bool] | None = None,
                   hyp_names: Sequence[bool] | None = None,
                   ref_names: Sequence[bool] | None = None) -> tuple[float, list[tuple[int, int]]]:
    """F_EMD = 1 - EMD and the hard alignment; 0 when either side has no words. ``unaligned``:
    see :func:`transport_distance`; ``weights``: ``tfidf`` (:func:`tfidf_weights`) or
    ``content`` (:func:`content_weights`, function words weighted ``function_weight``).
    ``*_opaque`` mark words compared by their text (see :func:`word_cosines`).
    ``antonyms="wordnet"``: a pair of antonyms (:func:`antonym_mask`)
    gets cosine 0, so it is never aligned and costs 1 ("small" for "large" counts as a wrong
    word, not as a near synonym); ``off`` (the specification) leaves the encoder's cosine.
    ``names="capitalised"``: two different names (``*_names``, flags from :func:`name_flags`;
    :func:`name_mask`) get cosine 0 too ("Paris" for "London" is a wrong entity, however close
    the encoder puts them). Both rules: :func:`zeroed_pairs`."""
    check_choice("F_EMD weights", weights, EMD_WEIGHTINGS)
    if not len(hyp_words) or not len(ref_words):
        return 0.0, []
    cos, _ = alignment_cosines(hyp_words, ref_words, hyp_vecs, ref_vecs, antonyms=antonyms, names=names,
                               hyp_opaque=hyp_opaque, ref_opaque=ref_opaque, hyp_names=hyp_names, ref_names=ref_names)
    pairs = hard_alignment(cos, delta, alignment)
    dist = transport_distance(cos, pairs, gamma, unaligned)
    if weights == "tfidf":
        hyp_w, ref_w = tfidf_weights(hyp_words, ref_words), tfidf_weights(ref_words, hyp_words)
    else:
        hyp_w = content_weights(hyp_words, function_weight=function_weight)
        ref_w = content_weights(ref_words, function_weight=function_weight)
    emd = earth_movers_distance(dist, hyp_w, ref_w)
    return float(np.clip(1.0 - emd, 0.0, 1.0)), pairs

"""TextEval's arithmetic over a set of texts already counted: the distance of two count
vectors (G2 or -ln p), composites of the rest of a set (optionally weighted by human
ratings), the direct approach, 1-D classical scaling oriented toward the consensus, and the
standard set of a ``score()`` row with what its predictions share computed once.

A set of ``n`` members is given as ``views``, an ``n x n x k`` array: ``views[i, j]`` are
member i's counts as compared with member j. For plain texts every view of a member is the
same vector; in the system-level mode it is the member's document over the segments member j
also has."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, cast

import numpy as np

from ..core.stats import classical_mds_1d, g2
from ..core.stats import g2_neg_log_p as neg_log_p

DISTANCES = ("g2", "neg_log_p")


def pair_distance(counts_a: np.ndarray, counts_b: np.ndarray, kind: str = "g2") -> tuple[float, float, int]:
    """(distance, G2, df) of two count vectors over the same columns; df counts the columns
    non-empty in either, minus 1."""
    value = g2(cast(Sequence[float], counts_a), cast(Sequence[float], counts_b))
    df = max(int(np.count_nonzero(np.asarray(counts_a) + np.asarray(counts_b))) - 1, 0)
    return (value if kind == "g2" else neg_log_p(value, df)), value, df


def rating_weights(ratings: Sequence[float]) -> np.ndarray:
    """Weights of the members of a composite from their human ratings: ratings min-max
    scaled to [0, 1] over the members, then rescaled to mean 1 (so the composite keeps the
    size of the unweighted one); equal ratings give weights 1 (the unweighted composite)."""
    r = np.asarray(ratings, dtype=float)
    if not np.isfinite(r).all():
        raise ValueError("ratings must be finite numbers")
    spread = float(r.max() - r.min()) if len(r) else 0.0
    if spread == 0.0:
        return np.ones(len(r))
    w = (r - r.min()) / spread
    return w / w.mean()


def scale(distances: np.ndarray, consensus: np.ndarray) -> tuple[np.ndarray, float, int]:
    """Classical MDS to 1-D, oriented so the coordinates correlate positively with
    ``consensus`` (the direct scores); when that correlation is undefined or 0, so that the
    member closest to its composite is on the positive side; else as computed. Returns
    (coordinates, r2, orientation). Sets under 3 members give coordinates 0 and r2 ``nan``."""
    n = len(distances)
    if n < 3:
        return np.zeros(n), float("nan"), 1
    x, r2 = classical_mds_1d(distances)
    x = np.where(np.abs(x) < 1e-12 * max(1.0, float(np.abs(x).max())), 0.0, x)
    # the orientation needs only the sign of the correlation, which is the covariance's sign
    # (no Pearson call: this runs once per resample in compare)
    c = np.asarray(consensus, dtype=float)
    r = float((x - x.mean()) @ (c - c.mean())) if np.ptp(c) > 0 and np.ptp(x) > 0 else float("nan")
    if not math.isnan(r) and r != 0:
        sign = 1 if r > 0 else -1
    else:
        best = x[int(np.argmax(consensus))]
        sign = -1 if best < 0 else 1
    return sign * x + 0.0, float(r2), sign


@dataclass
class SetAnalysis:
    """Both approaches over one set: each member's distance from the composite of the rest,
    the pairwise distances, the oriented scaling coordinates, r2 and the orientation."""

    direct: np.ndarray
    distances: np.ndarray
    coords: np.ndarray
    r2: float
    sign: int


def direct_distances(views: np.ndarray, kind: str, ratings: Sequence[float] | None = None) -> np.ndarray:
    """Each member's distance from the composite (summed, or rating-weighted, counts) of
    the others; a set of one gives 0."""
    n = views.shape[0]
    direct = np.zeros(n)
    for i in range(n):
        others = [t for t in range(n) if t != i]
        if not others:
            continue
        rest = views[others, i]
        if ratings is None:
            composite = rest.sum(axis=0)
        else:
            composite = rating_weights([ratings[t] for t in others]) @ rest
        direct[i] = pair_distance(views[i, i], composite, kind)[0]
    return direct


def pairwise_distances(views: np.ndarray, kind: str) -> np.ndarray:
    """The symmetric matrix of the members' pairwise distances (zero diagonal)."""
    n = views.shape[0]
    distances = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            distances[i, j] = distances[j, i] = pair_distance(views[i, j], views[j, i], kind)[0]
    return distances


def analyse(views: np.ndarray, kind: str, ratings: Sequence[float] | None = None,
            distances: np.ndarray | None = None) -> SetAnalysis:
    """Both approaches over a set given as ``views`` (see the module docstring);
    ``distances`` a precomputed pairwise matrix."""
    n = views.shape[0]
    if ratings is not None and len(ratings) != n:
        raise ValueError(f"ratings has {len(ratings)} values but the set has {n} members")
    direct = direct_distances(views, kind, ratings)
    if distances is None:
        distances = pairwise_distances(views, kind)
    coords, r2, sign = scale(distances, -direct)
    return SetAnalysis(direct, distances, coords, r2, sign)


def same_views(matrix: np.ndarray) -> np.ndarray:
    """The views of plain texts: member i is the same vector against every member."""
    n = matrix.shape[0]
    return np.broadcast_to(matrix[:, None, :], (n, n, matrix.shape[1]))


@dataclass
class SetRanking:
    """Ratings of the members of one set (of texts, or of systems' documents).

    ``scores`` are the chosen approach's (higher = better); ``direct`` the negative distance
    of each member from the composite of the rest, ``scaling`` its MDS coordinate oriented
    toward the consensus (``orientation`` is the sign applied to the raw eigenvector
    coordinate), ``r2`` the share of the pairwise distances the 1-D scale explains (``nan``
    for sets under 3), ``distances`` the pairwise matrix, ``tokens`` each member's feature
    count."""

    names: list[str]
    approach: str
    scores: list[float]
    direct: list[float]
    scaling: list[float]
    r2: float
    reliable: bool
    orientation: int
    distances: list[list[float]]
    tokens: list[int]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def ranking(analysis: SetAnalysis, approach: str, min_r2: float, names: list[str], tokens: list[int]) -> SetRanking:
    """A :class:`SetRanking` from an analysis under the chosen approach."""
    direct_scores = [float(-d) + 0.0 for d in analysis.direct]
    scaling_scores = [float(c) for c in analysis.coords]
    return SetRanking(names, approach, direct_scores if approach == "direct" else scaling_scores,
                      direct_scores, scaling_scores, analysis.r2, bool(analysis.r2 >= min_r2), analysis.sign,
                      analysis.distances.tolist(), tokens)


def dense(counts: Sequence[Mapping[str, float]], vocab: dict[str, int] | None = None) -> np.ndarray:
    """Stack count mappings into a members x features matrix (at least one column)."""
    if vocab is None:
        vocab = {}
        for c in counts:
            for key in c:
                vocab.setdefault(key, len(vocab))
    matrix = np.zeros((len(counts), max(len(vocab), 1)))
    for i, c in enumerate(counts):
        for key, v in c.items():
            matrix[i, vocab[key]] = v
    return matrix


class StandardSet:
    """A standard set of texts (their counts), with what every prediction rated against it
    shares computed once: the composite and, for scaling, the pairwise distances. With
    ``keys`` (the members' texts) and a ``cache`` shared between sets, the distance of each
    pair of texts is computed once per call, however many sets it appears in."""

    def __init__(self, members: list[Mapping[str, float]], kind: str, approach: str, min_r2: float,
                 keys: Sequence[str] | None = None, cache: dict[tuple[str, str], float] | None = None) -> None:
        self.members = members
        self.kind, self.approach, self.min_r2 = kind, approach, min_r2
        self.keys = list(keys) if keys is not None else None
        self.cache = cache if cache is not None else {}
        self.vocab: dict[str, int] = {}
        for c in members:
            for key in c:
                self.vocab.setdefault(key, len(self.vocab))
        self.matrix = dense(members, self.vocab)
        self.composite = self.matrix.sum(axis=0)
        self._distances: np.ndarray | None = None

    def rate(self, prediction: Mapping[str, float], text: str | None = None) -> dict[str, Any]:
        """The prediction's record: score, distance to the composite, G2, df, tokens (and
        for scaling its coordinate, the set's r2 and reliability); ``text`` is its text."""
        base = self.matrix.shape[1]
        extra = [key for key in dict.fromkeys(prediction) if key not in self.vocab]
        columns = {**self.vocab, **{key: base + k for k, key in enumerate(extra)}}
        pred = np.zeros(base + len(extra))
        for key, v in prediction.items():
            pred[columns[key]] = v
        composite = np.concatenate([self.composite, np.zeros(len(extra))])
        distance, g2_value, df = pair_distance(pred, composite, self.kind)
        record: dict[str, Any] = {"score": 0.0 - distance, "distance": distance, "g2": g2_value, "df": df,
                                  "tokens": int(sum(prediction.values())), "standard_set": len(self.members)}
        if self.approach == "scaling":
            full = np.vstack([pred[None, :], np.hstack([self.matrix, np.zeros((len(self.members), len(extra)))])])
            n = len(full)
            d = np.zeros((n, n))
            d[1:, 1:] = self.member_distances()
            for j in range(1, n):
                d[0, j] = d[j, 0] = self._distance(text, pred, j - 1, full[j])
            result = analyse(same_views(full), self.kind, distances=d)
            record.update(score=float(result.coords[0]), r2=result.r2, reliable=bool(result.r2 >= self.min_r2))
        return record

    def member_distances(self) -> np.ndarray:
        """Pairwise distances among the members, computed once per standard set."""
        if self._distances is None:
            n = len(self.members)
            self._distances = np.zeros((n, n))
            for i in range(n):
                text = self.keys[i] if self.keys is not None else None
                for j in range(i + 1, n):
                    self._distances[i, j] = self._distances[j, i] = self._distance(
                        text, self.matrix[i], j, self.matrix[j])
        return self._distances

    def _distance(self, text: str | None, vector: np.ndarray, member: int, member_vector: np.ndarray) -> float:
        """The distance between a text (``vector``) and member ``member``, from the cache
        when both texts are known."""
        if text is None or self.keys is None:
            return pair_distance(vector, member_vector, self.kind)[0]
        other = self.keys[member]
        pair = (text, other) if text <= other else (other, text)
        if pair not in self.cache:
            self.cache[pair] = pair_distance(vector, member_vector, self.kind)[0]
        return self.cache[pair]

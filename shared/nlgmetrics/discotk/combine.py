"""Combining DiscoTK's features: Asiya's per-test-set normalisation, the learned pairwise
model (weights on raw features) and its training by pairwise logistic regression."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Mapping, Sequence, Tuple, Union

import numpy as np

from ..core.resources import data_path
from ..core.significance import draw_counts

WEIGHTS_FILE = "discotk_weights.json"


def asiya_normalize(values: Union[Sequence[float], np.ndarray]) -> np.ndarray:
    """Asiya's per-test-set rule: s / max when min >= 0, else (s + |min|) / (max + |min|);
    all-zero (or constant non-positive) columns give zeros."""
    s = np.asarray(values, dtype=float)
    if s.size == 0:
        return s
    lo, hi = float(s.min()), float(s.max())
    if lo >= 0:
        return s / hi if hi > 0 else np.zeros_like(s)
    denom = hi + abs(lo)
    return (s + abs(lo)) / denom if denom > 0 else np.zeros_like(s)


#: resamples x records counted at once by :class:`NormalizedMeans` (about 32 MB)
COUNTED_VALUES = 2**22


def _first_drawn(drawn: Callable[[np.ndarray, int], np.ndarray], rows: int, order: np.ndarray) -> np.ndarray:
    """Per resample (``rows`` of them), the first record in ``order`` that it draws
    (``drawn(resamples, record)``: whether each of those resamples draws that record): the
    resamples still looking are checked one position further at a time (a resample draws
    about half or more of the records, so a few steps settle almost all of them)."""
    found = np.zeros(rows, dtype=np.intp)
    active = np.arange(rows)
    for k in range(len(order)):
        if not active.size:
            break
        hit = drawn(active, int(order[k]))
        found[active[hit]] = order[k]
        active = active[~hit]
    return found


class NormalizedMeans:
    """The corpus score under per-test-set normalisation for many resampled test sets at once:
    the mean over features of :func:`asiya_normalize`'s column means, where a resample's
    column mean, minimum and maximum come from which records it draws (one product with the
    records x features ``matrix`` for the means, and the first drawn record from either end of
    each column's sorted order), not from the resampled rows themselves. Equal to normalising
    each resample column by column, up to the order of the additions (about 1e-15)."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.matrix = np.asarray(matrix, dtype=float)
        self.order = np.argsort(self.matrix, axis=0, kind="stable")  # ascending, per feature

    def _scores(self, means: np.ndarray, drawn: Callable[[np.ndarray, int], np.ndarray]) -> np.ndarray:
        rows, f = means.shape
        lo, hi = np.empty((rows, f)), np.empty((rows, f))
        for j in range(f):
            lo[:, j] = self.matrix[_first_drawn(drawn, rows, self.order[:, j]), j]
            hi[:, j] = self.matrix[_first_drawn(drawn, rows, self.order[::-1, j]), j]
        shift = np.where(lo >= 0, 0.0, np.abs(lo))
        denom = np.where(lo >= 0, hi, hi + np.abs(lo))
        per = np.where(denom > 0, (means + shift) / np.where(denom > 0, denom, 1.0), 0.0)
        return per.mean(axis=1)

    def __call__(self, positions: np.ndarray) -> np.ndarray:
        """Scores of the resamples ``positions`` (resamples x segments drawn)."""
        rows, m = positions.shape
        n, f = self.matrix.shape
        if rows == 0 or f == 0:
            return np.zeros(rows)
        step = max(1, COUNTED_VALUES // n)
        if rows > step:  # a block of counts at a time
            return np.concatenate([self(positions[k:k + step]) for k in range(0, rows, step)])
        counts = draw_counts(positions, n)
        means = (counts.astype(float) @ self.matrix) / m
        return self._scores(means, lambda active, record: counts[active, record] > 0)

    def swap_differences(self, swaps: np.ndarray) -> np.ndarray:
        """Approximate randomisation on the pooled records (the baseline's ``n``, then the
        system's): per trial, the system side's score minus the baseline side's, where ``swaps``
        (trials x n) says which segments trade places (see
        :func:`nlgmetrics.core.significance.paired_randomization`)."""
        n = len(self.matrix) // 2
        base, system = self.matrix[:n], self.matrix[n:]
        moved = swaps.astype(float) @ (base - system)  # what the swapped segments change, per feature

        def sides(on_system: bool) -> Callable[[np.ndarray, int], np.ndarray]:
            def drawn(active: np.ndarray, record: int) -> np.ndarray:
                # the system side draws a baseline record where swapped, a system record where not
                swapped = swaps[active, record % n]
                return swapped if (record < n) == on_system else ~swapped
            return drawn

        return (self._scores((system.sum(axis=0) + moved) / n, sides(True))
                - self._scores((base.sum(axis=0) - moved) / n, sides(False)))


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=float)))


@dataclass
class PairwiseModel:
    """Learned combination: ``raw = w . f + b`` on raw features, segment score sigmoid(raw).

    Trained as pairwise logistic regression, P(a better than b) = sigmoid(w . (f(a) - f(b)));
    ``b`` centres the raw score on the training features' mean (it does not change rankings).
    """

    features: Tuple[str, ...]
    weights: Tuple[float, ...]
    bias: float = 0.0
    meta: Dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.features) != len(self.weights):
            raise ValueError(f"{len(self.features)} features but {len(self.weights)} weights")
        bad = [f for f, w in zip(self.features, self.weights) if not math.isfinite(w)]
        if bad or not math.isfinite(self.bias):
            raise ValueError(f"weights must be finite numbers; not finite: {', '.join(bad) or 'bias'}")

    def raw(self, matrix: np.ndarray) -> np.ndarray:
        return np.asarray(matrix, dtype=float) @ np.asarray(self.weights, dtype=float) + self.bias

    def to_dict(self) -> Dict[str, Any]:
        return {"features": list(self.features), "weights": list(self.weights), "bias": self.bias,
                "meta": self.meta}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "PairwiseModel":
        """From ``{"features": [...], "weights": [...], "bias": b}`` or ``{feature: weight, "bias": b}``."""
        if "features" in data:
            return cls(tuple(data["features"]), tuple(float(w) for w in data["weights"]),
                       float(data.get("bias", 0.0)), dict(data.get("meta", {})))
        named = {str(k): float(v) for k, v in data.items() if k != "bias"}
        return cls(tuple(named), tuple(named.values()), float(data.get("bias", 0.0)))


def fit_pairwise(better: np.ndarray, worse: np.ndarray, names: Sequence[str], *, c: float = 1.0,
                 nonnegative: bool = False) -> PairwiseModel:
    """Pairwise logistic regression (L2, strength ``1 / c``) on feature differences of human
    (better, worse) pairs, in standardised feature space; returns raw-space weights. With
    ``nonnegative`` every weight is kept >= 0 (all DiscoTK features are similarities: a higher
    value never means a worse output, so a negative weight can only fit noise)."""
    from scipy.optimize import minimize

    better, worse = np.asarray(better, dtype=float), np.asarray(worse, dtype=float)
    if better.shape != worse.shape or better.ndim != 2 or better.shape[1] != len(names):
        raise ValueError(f"need two (pairs x {len(names)}) feature matrices, got {better.shape} and {worse.shape}")
    if len(better) == 0:
        raise ValueError("no training pairs")
    if not (np.isfinite(better).all() and np.isfinite(worse).all()):
        raise ValueError("training features must be finite")
    pooled = np.vstack([better, worse])
    mean, std = pooled.mean(axis=0), pooled.std(axis=0)
    std[std == 0] = 1.0
    diff = (better - worse) / std

    def loss(w: np.ndarray) -> Tuple[float, np.ndarray]:
        margin = diff @ w
        value = float(np.logaddexp(0.0, -margin).sum() + 0.5 / c * w @ w)
        grad = -(diff.T @ sigmoid(-margin)) + w / c
        return value, grad

    bounds = [(0.0, None)] * len(names) if nonnegative else None
    solution = minimize(loss, np.zeros(len(names)), jac=True, method="L-BFGS-B", bounds=bounds)
    w = solution.x / std
    accuracy = float(((better - worse) @ w > 0).mean())
    return PairwiseModel(tuple(names), tuple(float(x) for x in w), float(-(w @ mean)),
                         {"pairs": int(len(better)), "c": c, "nonnegative": nonnegative, "train_pair_accuracy": round(accuracy, 4)})


def weights_key(variant: str, lexical_layer: str = "flat", members: str = "asiya") -> str:
    """The entry of the weights file for a configuration (``members`` counts for party only:
    light combines the five kernels whatever it is)."""
    key = variant if lexical_layer == "flat" else f"{variant}/{lexical_layer}"
    return key if members == "asiya" or variant == "light" else f"{key}+{members}"


def has_shipped(variant: str, lexical_layer: str = "flat", members: str = "asiya") -> bool:
    """Whether the package ships tuned weights for this configuration."""
    return weights_key(variant, lexical_layer, members) in json.loads(data_path(WEIGHTS_FILE).read_text())


def shipped_model(variant: str, lexical_layer: str = "flat", members: str = "asiya") -> PairwiseModel:
    """The default tuned weights shipped with the package (built by shared/tools/training/discotk_weights.py in a checkout)."""
    data = json.loads(data_path(WEIGHTS_FILE).read_text())
    key = weights_key(variant, lexical_layer, members)
    if key not in data:
        raise ValueError(f"no shipped tuned weights for {key!r} (shipped: {', '.join(data)}); give "
                         "weights='uniform', a weights file or a mapping")
    return PairwiseModel.from_dict(data[key])

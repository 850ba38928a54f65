"""Combining DiscoTK's features: Asiya's per-test-set normalisation, the learned pairwise
model (weights on raw features) and its training by pairwise logistic regression."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Sequence, Tuple, Union

import numpy as np

from ..core.resources import data_path

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
    """The default tuned weights shipped with the package (see nlgmetrics.training.discotk_weights)."""
    data = json.loads(data_path(WEIGHTS_FILE).read_text())
    key = weights_key(variant, lexical_layer, members)
    if key not in data:
        raise ValueError(f"no shipped tuned weights for {key!r} (shipped: {', '.join(data)}); give "
                         "weights='uniform', a weights file or a mapping")
    return PairwiseModel.from_dict(data[key])

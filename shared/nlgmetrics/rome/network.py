"""RoMe's final scorer network in numpy: three features in, one score in [0, 1] out.

Two layouts, named by the weights file's ``kind``:

- ``monotone`` (the shipped networks): inputs sign-fixed to "higher is better",
  ``u = (F_grammar, 1 - F_TED, F_EMD)``, then ``sigmoid(w3 . relu(W2 relu(W1 u + b1) + b2) + b3)``
  with every weight in W1, W2 and w3 non-negative (checked when the file loads). Each layer is
  non-decreasing in its input, so the score is non-decreasing in F_EMD and F_grammar and
  non-increasing in F_TED by construction.
- ``paper`` (the reference code's layout, kept for files made elsewhere): 3 -> 30 -> 20 ->
  ReLU -> 1 -> sigmoid over ``(F_grammar, F_TED, F_EMD)`` with unconstrained weights.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..core.resources import user_or_data_file

#: feature order of the network input (the reference code's)
FEATURE_ORDER = ("f_grammar", "f_ted", "f_emd")
#: +1: the score may only grow with the feature, -1: only shrink (F_TED is a distance)
FEATURE_SIGNS = (1.0, -1.0, 1.0)
KINDS = ("monotone", "paper")


def sign_fixed(features: np.ndarray) -> np.ndarray:
    """(F_grammar, 1 - F_TED, F_EMD) from rows in :data:`FEATURE_ORDER`."""
    x = np.atleast_2d(np.asarray(features, dtype=np.float64)).copy()
    x[:, 1] = 1.0 - x[:, 1]
    return x


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """``x @ weight.T + bias`` computed row by row in a fixed order, so a row's result does not
    depend on how many rows come with it (BLAS picks different kernels, and roundings, for
    different batch shapes; sharded runs must equal single runs bit for bit)."""
    return (x[:, None, :] * weight[None, :, :]).sum(axis=-1) + bias


def _layers(payload: Any, name: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The three linear layers of a network payload, or one ValueError naming the file: a JSON
    object whose ``layers`` lists three ``{"weight": matrix, "bias": vector}`` of finite
    numbers, from 3 features to 1 output (a file without them was a bare ``KeyError: 'layers'``)."""
    expected = (f"{name}: not a RoMe network: expected a JSON object whose 'layers' lists three "
                "{'weight': matrix, 'bias': vector} from 3 features to 1 output")
    layers = payload.get("layers") if isinstance(payload, dict) else None
    if not isinstance(layers, list) or len(layers) != 3 or not all(isinstance(x, dict) for x in layers):
        raise ValueError(expected)
    try:
        out = [(np.asarray(x["weight"], dtype=np.float64), np.asarray(x["bias"], dtype=np.float64)) for x in layers]
    except (KeyError, TypeError, ValueError):
        raise ValueError(expected) from None
    shapes_ok = all(w.ndim == 2 and b.shape == (w.shape[0],) for w, b in out) and all(
        out[i + 1][0].shape[1] == out[i][0].shape[0] for i in range(2))
    if not shapes_ok or out[0][0].shape[1] != len(FEATURE_ORDER) or out[-1][0].shape[0] != 1:
        raise ValueError(expected)
    if not all(np.isfinite(w).all() and np.isfinite(b).all() for w, b in out):
        raise ValueError(f"{name}: the network's weights must be finite numbers (found NaN or infinity)")
    return out


class ScorerNetwork:
    """The final scorer, from a JSON file (``layers``: weight and bias per linear layer,
    ``kind``: monotone or paper) written by ``python -m nlgmetrics.training.rome_scorer``."""

    def __init__(self, weights: str | Path | dict[str, Any]) -> None:
        if isinstance(weights, dict):
            payload, self.name = weights, str(weights.get("name", "network"))
        else:
            path = user_or_data_file(weights)
            payload, self.name = json.loads(path.read_text()), path.name
        self.layers = _layers(payload, self.name)
        self.kind = str(payload.get("kind", "paper"))
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: unknown network kind {self.kind!r}; choose one of {', '.join(KINDS)}")
        if self.kind == "monotone" and any((w < 0).any() for w, _ in self.layers):
            raise ValueError(f"{self.name}: a monotone network needs non-negative weights")
        self.meta = {k: v for k, v in payload.items() if k != "layers"}

    def __call__(self, features: np.ndarray) -> np.ndarray:
        """Scores in [0, 1] for rows ordered as :data:`FEATURE_ORDER`."""
        (w1, b1), (w2, b2), (w3, b3) = self.layers
        if self.kind == "monotone":
            hidden = np.maximum(linear(np.maximum(linear(sign_fixed(features), w1, b1), 0.0), w2, b2), 0.0)
        else:
            x = np.atleast_2d(np.asarray(features, dtype=np.float64))
            hidden = np.maximum(linear(linear(x, w1, b1), w2, b2), 0.0)
        logits = linear(hidden, w3, b3)[:, 0]
        return 1.0 / (1.0 + np.exp(-logits))

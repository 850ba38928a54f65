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

from pathlib import Path
from typing import Any

import numpy as np

from ..core.option_files import OptionFileError, finite_numbers, read_option_json

#: feature order of the network input (the reference code's)
FEATURE_ORDER = ("f_grammar", "f_ted", "f_emd")
#: +1: the score may only grow with the feature, -1: only shrink (F_TED is a distance)
FEATURE_SIGNS = (1.0, -1.0, 1.0)
KINDS = ("monotone", "paper")
#: the largest network file read (the shipped one has 14 KB)
MAX_NETWORK_BYTES = 16 * 2**20


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


class ScorerNetwork:
    """The final scorer, from a JSON file (``layers``: weight and bias per linear layer,
    ``kind``: monotone or paper) written by ``python shared/tools/training/rome_scorer.py``, read
    as the file of ``option`` (:mod:`nlgmetrics.core.option_files`: a regular file within
    :data:`MAX_NETWORK_BYTES`, finite numbers); every problem is one ``ValueError`` naming it."""

    def __init__(self, weights: str | Path | dict[str, Any], option: str = "scorer_weights") -> None:
        if isinstance(weights, dict):
            payload, self.name, where = weights, str(weights.get("name", "network")), "the network"
        else:
            payload, file = read_option_json(weights, option, shipped=True, max_bytes=MAX_NETWORK_BYTES)
            self.name, where = file.path.name, f"{option}={str(weights)!r}"
        if not isinstance(payload, dict):
            raise OptionFileError(f"{where}: expected a JSON object with 'layers', got {type(payload).__name__}")
        self.kind = str(payload.get("kind", "paper"))
        if self.kind not in KINDS:
            raise OptionFileError(f"{where}: unknown network kind {self.kind[:24]!r}; choose one of {', '.join(KINDS)}")
        self.layers = _layers(payload.get("layers"), where)
        if self.kind == "monotone" and any((w < 0).any() for w, _ in self.layers):
            raise OptionFileError(f"{where}: a monotone network needs non-negative weights")
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


def _layers(layers: Any, where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(weight, bias)] * 3`` from a network file's ``layers``, every shape and number
    checked: 3 features in, one output, each weight ``(out, in)`` matching the layer before."""
    shape = "'layers' must be three {'weight': [[...]], 'bias': [...]} from 3 features to 1 output"
    if not isinstance(layers, list) or len(layers) != 3 or not all(isinstance(la, dict) for la in layers):
        raise OptionFileError(f"{where}: {shape}")
    out: list[tuple[np.ndarray, np.ndarray]] = []
    width = len(FEATURE_ORDER)
    for k, layer in enumerate(layers, 1):
        try:
            weight = np.asarray(layer["weight"], dtype=np.float64)
            bias = np.asarray(layer["bias"], dtype=np.float64)
        except (KeyError, TypeError, ValueError):
            raise OptionFileError(f"{where}: layer {k}: {shape}") from None
        if weight.ndim != 2 or weight.shape[1] != width or bias.shape != (weight.shape[0],) or weight.size == 0:
            raise OptionFileError(f"{where}: layer {k}: weight {weight.shape} and bias {bias.shape} do not fit "
                                  f"{width} inputs; {shape}")
        finite_numbers((weight, bias), where)
        out.append((weight, bias))
        width = weight.shape[0]
    if width != 1:
        raise OptionFileError(f"{where}: the last layer has {width} outputs; {shape}")
    return out

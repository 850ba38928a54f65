"""Fitting RoMe's network for a configuration without a shipped one (the paper profile, an own
encoder or CoLA classifier): the first time such a scorer computes a final score, the monotone
network is trained on its own features of the self-supervised pairs
(:func:`fit_network`) and cached as JSON under
``<cache_dir>/rome/``; later runs load the cached file. The key covers everything that changes
the features (models, parser, thresholds) and the training settings.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from ..core import atomic
from ..core.resources import cache_dir
from .network import FEATURE_ORDER, ScorerNetwork
from .pairs import N_TEST, N_TRAIN, PERTURBATIONS, SEED, make_pairs

if TYPE_CHECKING:
    from .scorer import RoMe

#: training pairs per class for a fitted network (the paper's 2,500)
FIT_PAIRS_PER_CLASS = N_TRAIN
FIT_TEST_PAIRS_PER_CLASS = N_TEST
LEARNING_RATE = 0.02
STEPS = 1500
HIDDEN = (30, 20)
#: bump when the pairs, the network or its training change
FIT_VERSION = 1
#: one fit at a time in a process: a second thread asking for the same network waits and loads
#: the file the first one wrote (instead of fitting again and racing it to the same temp file)
_FIT_LOCK = threading.Lock()
#: the options that change the features
FEATURE_OPTIONS = ("delta_emd", "delta_ted", "gamma", "alignment", "emd_unaligned", "emd_weights", "emd_antonyms", "emd_names",
                   "ted_normalization", "ted_tree", "ted_vectors", "max_words", "grammar_label", "grammar_punctuation",
                   "dtype")


def _fingerprint(name: str) -> str:
    """A local model directory or file by its path, size and modification time; hub ids as given."""
    path = Path(name).expanduser()
    if not path.exists():
        return name
    stats = [(str(p.relative_to(path)) if path.is_dir() else p.name, p.stat().st_size, int(p.stat().st_mtime))
             for p in (sorted(path.rglob("*")) if path.is_dir() else [path]) if p.is_file()]
    return f"{path.resolve()}:{hashlib.sha256(json.dumps(stats).encode()).hexdigest()[:16]}"


def fit_key(scorer: RoMe) -> str:
    """Hex digest naming the fitted network of a scorer's configuration."""
    cfg = scorer.config
    facts: dict[str, Any] = {name: getattr(cfg, name) for name in FEATURE_OPTIONS}
    facts.update(model=_fingerprint(str(cfg.resource("model"))),
                 grammar=_fingerprint(str(cfg.resource("grammar_model"))),
                 parser=scorer._analyzer.backend if scorer._analyzer is not None else None,
                 version=FIT_VERSION, pairs=FIT_PAIRS_PER_CLASS, test_pairs=FIT_TEST_PAIRS_PER_CLASS)
    if cfg.grammar_relative != "off":  # keys of configurations without it unchanged (their caches stay valid)
        facts["grammar_relative"] = cfg.grammar_relative
    return hashlib.sha256(json.dumps(facts, sort_keys=True, default=str).encode()).hexdigest()


def fitted_path(scorer: RoMe) -> Path:
    return cache_dir() / "rome" / f"scorer-{fit_key(scorer)[:24]}.json"


def fitted_network(scorer: RoMe) -> ScorerNetwork:
    """The cached network for this configuration, fitted first when there is none, or when the
    cached file is unreadable or holds another configuration's fit (its ``fit_key`` differs:
    the file name keeps only 24 of the key's 64 digits, and a file may be damaged or replaced)."""
    path, key = fitted_path(scorer), fit_key(scorer)
    net = _cached(path, key)  # a cached network loads without waiting for another configuration's fit
    if net is None:
        with _FIT_LOCK:
            net = _cached(path, key)
            if net is None:
                _fit_and_write(scorer, path, key)
                net = ScorerNetwork(path, "the fitted network")
    return net


def _cached(path: Path, key: str) -> ScorerNetwork | None:
    """The network cached at ``path`` when it is readable and fitted for ``key``."""
    if not path.exists():
        return None
    try:
        net = ScorerNetwork(path, "the fitted network")
    except ValueError as err:
        warnings.warn(f"RoMe: the cached network {path} cannot be used ({err}); fitting it again", stacklevel=3)
        return None
    if net.meta.get("fit_key") != key:
        warnings.warn(f"RoMe: the cached network {path} was fitted for another configuration (its fit_key "
                      "differs); fitting it again", stacklevel=3)
        return None
    return net


def _fit_and_write(scorer: RoMe, path: Path, key: str) -> None:
    if not scorer.quiet:
        warnings.warn(f"RoMe: fitting the scorer network on this configuration's features "
                      f"({FIT_PAIRS_PER_CLASS} + {FIT_PAIRS_PER_CLASS} pairs, once; cached at {path})", stacklevel=3)
    payload = fit_network(scorer, FIT_PAIRS_PER_CLASS, FIT_TEST_PAIRS_PER_CLASS)
    payload["fit_key"] = key
    path.parent.mkdir(parents=True, exist_ok=True)
    # the one writer: an exclusive random temporary, no link followed, an atomic replace
    # (concurrent first runs in other processes write the same file)
    atomic.write_file(path, (json.dumps(payload, indent=1) + "\n").encode("utf-8"), "fitted-network cache")


# -- training ----------------------------------------------------------------------------------
class MonotoneNetwork(torch.nn.Module):
    """u = (F_grammar, 1 - F_TED, F_EMD) -> 30 -> ReLU -> 20 -> ReLU -> 1 (sigmoid in the
    loss), every weight softplus(raw) >= 0: non-decreasing in each entry of u by construction."""

    def __init__(self, seed: int = SEED) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(seed)
        sizes = (len(FEATURE_ORDER),) + HIDDEN + (1,)
        self.raw = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.randn(b, a, generator=gen) * 0.5 - 1.0) for a, b in itertools.pairwise(sizes)])
        self.bias = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.randn(b, generator=gen) * 0.1) for b in sizes[1:]])

    def weights(self) -> list[torch.Tensor]:
        return [torch.nn.functional.softplus(v) for v in self.raw]

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """Logits for rows ordered as FEATURE_ORDER (F_TED as given: a distance)."""
        h = torch.stack([features[:, 0], 1.0 - features[:, 1], features[:, 2]], dim=1)
        w = self.weights()
        for k, (weight, bias) in enumerate(zip(w, self.bias)):
            h = h @ weight.T + bias
            if k < len(w) - 1:
                h = torch.relu(h)
        return h[:, 0]

    def export(self) -> list[dict[str, Any]]:
        """Layers as the JSON file stores them (non-negative weights, 7 decimals)."""
        with torch.no_grad():
            return [{"weight": np.round(w.double().numpy(), 7).tolist(), "bias": np.round(b.double().numpy(), 7).tolist()}
                    for w, b in zip(self.weights(), self.bias)]


def train_network(x: np.ndarray, y: np.ndarray, seed: int = SEED,
                  ranked: tuple[np.ndarray, np.ndarray] | None = None, rank_weight: float = 0.0,
                  class_weight: float = 1.0) -> MonotoneNetwork:
    """Full-batch Adam on ``class_weight`` x binary cross-entropy (+ ``rank_weight`` x the
    pairwise logistic loss log(1 + exp(s(neg) - s(pos))) on same-reference ``ranked`` =
    (positive features, negative features) rows), fixed seed, one thread: the same features
    give the same weights bit for bit."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        net = MonotoneNetwork(seed)
        opt = torch.optim.Adam(net.parameters(), lr=LEARNING_RATE)
        xt, yt = torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        pos, neg = (torch.tensor(r, dtype=torch.float32) for r in ranked) if ranked else (None, None)
        for _step in range(STEPS):
            opt.zero_grad()
            loss = class_weight * loss_fn(net(xt), yt) if class_weight else torch.zeros(())
            if pos is not None and neg is not None and rank_weight:
                loss = loss + rank_weight * torch.nn.functional.softplus(net(neg) - net(pos)).mean()
            loss.backward()
            opt.step()
    finally:
        torch.set_num_threads(threads)
    return net


def features(scorer: RoMe, rows: Sequence[tuple[str, str, str, int]]) -> np.ndarray:
    feats = scorer.features([r[1] for r in rows], [r[0] for r in rows], final=False)
    return np.column_stack([feats[k] for k in FEATURE_ORDER])


def accuracy_by_kind(prob: np.ndarray, rows: Sequence[tuple[str, str, str, int]]) -> dict[str, float]:
    out: dict[str, list[bool]] = {}
    for p, (_, _, kind, label) in zip(prob, rows):
        out.setdefault(kind, []).append((p > 0.5) == bool(label))
    out["all"] = [(p > 0.5) == bool(r[3]) for p, r in zip(prob, rows)]
    return {k: round(float(np.mean(v)), 4) for k, v in sorted(out.items())}


def fit_network(scorer: RoMe, n_per_class: int = N_TRAIN, n_test: int = N_TEST,
                seed: int = SEED) -> dict[str, Any]:
    """Fit the monotone network on ``scorer``'s own features of the self-supervised pairs;
    returns the JSON payload (layers, settings, held-out accuracy per pair kind)."""
    pairs = make_pairs(seed, n_per_class, n_test)
    x_train, x_test = features(scorer, pairs["train"]), features(scorer, pairs["test"])
    y_train = np.array([r[3] for r in pairs["train"]], dtype=np.float32)
    net = train_network(x_train, y_train, seed)
    with torch.no_grad():
        prob_test = torch.sigmoid(net(torch.tensor(x_test, dtype=torch.float32))).numpy()
        prob_train = torch.sigmoid(net(torch.tensor(x_train, dtype=torch.float32))).numpy()
    report = {"train_accuracy": accuracy_by_kind(prob_train, pairs["train"]),
              "test_accuracy": accuracy_by_kind(prob_test, pairs["test"])}
    return {
        "kind": "monotone",
        "architecture": "u = (F_grammar, 1 - F_TED, F_EMD) -> 30 -> ReLU -> 20 -> ReLU -> 1 -> sigmoid, "
                        "weights >= 0",
        "feature_order": list(FEATURE_ORDER),
        "features_model": scorer.signature.replace("|net:", "|fitted-for:"),
        "training": {"seed": seed, "pairs_per_class": n_per_class, "test_pairs_per_class": n_test,
                     "optimizer": f"full-batch Adam lr={LEARNING_RATE}", "steps": STEPS,
                     "loss": "binary cross-entropy", "data": "rome_scorer_facts.json",
                     "perturbations": list(PERTURBATIONS)},
        "report": report,
        "layers": net.export(),
    }

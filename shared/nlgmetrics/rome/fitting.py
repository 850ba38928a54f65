"""Fitting RoMe's network for a configuration without a shipped one (the paper profile, an own
encoder or CoLA classifier): the first time such a scorer computes a final score, the monotone
network is trained on its own features of the self-supervised pairs
(:func:`nlgmetrics.training.rome_scorer.fit_network`) and cached as JSON under
``<cache_dir>/rome/``; later runs load the cached file. The key covers everything that changes
the features (models, parser, thresholds) and the training settings.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.resources import cache_dir
from .network import ScorerNetwork

if TYPE_CHECKING:
    from .scorer import RoMe

#: training pairs per class for a fitted network (the paper's 2,500)
FIT_PAIRS_PER_CLASS = 2500
FIT_TEST_PAIRS_PER_CLASS = 500
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
    return hashlib.sha256(json.dumps(facts, sort_keys=True, default=str).encode()).hexdigest()


def fitted_path(scorer: RoMe) -> Path:
    return cache_dir() / "rome" / f"scorer-{fit_key(scorer)[:24]}.json"


def fitted_network(scorer: RoMe) -> ScorerNetwork:
    """The cached network for this configuration, fitted first when there is none."""
    path = fitted_path(scorer)
    if not path.exists():  # a cached network loads without waiting for another configuration's fit
        with _FIT_LOCK:
            if not path.exists():
                _fit_and_write(scorer, path)
    return ScorerNetwork(path)


def _fit_and_write(scorer: RoMe, path: Path) -> None:
    from ..training.rome_scorer import fit_network

    if not scorer.quiet:
        warnings.warn(f"RoMe: fitting the scorer network on this configuration's features "
                      f"({FIT_PAIRS_PER_CLASS} + {FIT_PAIRS_PER_CLASS} pairs, once; cached at {path})", stacklevel=3)
    payload = fit_network(scorer, FIT_PAIRS_PER_CLASS, FIT_TEST_PAIRS_PER_CLASS)
    payload["fit_key"] = fit_key(scorer)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(payload, indent=1) + "\n")
    os.replace(tmp, path)  # atomic: concurrent first runs in other processes write the same file

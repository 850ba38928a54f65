"""nlgmetrics: DATScore, RoMe, DiscoTK, TextEval and SAM on one scoring core.

Where things are (layers point down: surfaces -> this API -> metrics -> core)::

    __init__.py        the public API: load, score, list_metrics, metric_path, scorer_class,
                       compute_metrics_fn (and REGISTRY, metric name -> scorer class)
    core/              what two or more metrics share: config (the option model), inputs (the one
                       input step), scorer (the Scorer template), result + signature, records,
                       models, embeddings, linguistic, lexical, stats, cache, resources
    datscore/ rome/ discotk/ texteval/ sam/
                       one package per metric: config.py (Config, options), scorer.py (the
                       Scorer), explain.py (what a Space or report draws), and its own parts
    integrations/      evaluate plumbing (evaluate.py), the Trainer hook (transformers.py,
                       decoding.py), torch.distributed (distributed.py)
    cli/               the command line; options.py (--flags from a Config), cards.py (the
                       cards' options tables), files.py (input files)
    space/             the Gradio page builder the Spaces (spaces/<name>/app.py) use
    data/              shipped lexicons and trained heads
    _moved.py          old module names (0.1) -> an error naming the new place

>>> import nlgmetrics
>>> sorted(nlgmetrics.list_metrics())
['datscore', 'discotk', 'rome', 'sam', 'texteval']
"""
from __future__ import annotations

import importlib
import importlib.util
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, Type

if TYPE_CHECKING:
    from nlgmetrics.core.scorer import Scorer

    from .core.result import MetricResult

from ._moved import install as _install_moved
from .core.version import __version__

_install_moved()

#: metric name -> (module, class)
REGISTRY: Dict[str, Tuple[str, str]] = {
    "datscore": ("nlgmetrics.datscore", "DATScore"),
    "rome": ("nlgmetrics.rome", "RoMe"),
    "discotk": ("nlgmetrics.discotk", "DiscoTK"),
    "texteval": ("nlgmetrics.texteval", "TextEval"),
    "sam": ("nlgmetrics.sam", "SAM"),
}

_SCORERS: Dict[Tuple[str, Tuple[Any, ...]], Any] = {}
_LOCK = threading.Lock()


def list_metrics() -> List[str]:
    """Names of the metrics whose module is installed."""
    return [name for name, (module, _) in REGISTRY.items() if importlib.util.find_spec(module) is not None]


def scorer_class(name: str) -> Type["Scorer"]:
    """The scorer class of a metric by name."""
    key = name.lower()
    if key not in REGISTRY:
        raise ValueError(f"unknown metric {name!r}; available: {', '.join(REGISTRY)}")
    module, cls = REGISTRY[key]
    try:
        return getattr(importlib.import_module(module), cls)
    except ModuleNotFoundError as err:
        if err.name == module:
            raise ValueError(f"metric {name!r} is not part of this installation") from err
        raise


def load(name: str, *, quiet: Optional[bool] = None, **options: Any) -> "Scorer":
    """A scorer for metric ``name``, created once per process and normalised configuration:
    equivalent options (a default spelled out, another order) return the same scorer.
    ``quiet`` is a run-time switch, not part of the configuration."""
    cls = scorer_class(name)
    config = cls.Config.from_options(**options)
    key = (name.lower(), config.key())
    with _LOCK:
        scorer = _SCORERS.get(key)
        if scorer is None:
            scorer = _SCORERS[key] = cls(config, quiet=bool(quiet))
        elif quiet is not None:
            scorer.quiet = quiet
        return scorer


def score(name: str, predictions: Any, references: Any = None, sources: Any = None,
          **options: Any) -> "MetricResult":
    """Score with metric ``name``: ``nlgmetrics.score("sam", hyps, refs, base="chrf")``. The
    metric's per-segment inputs (``extra_inputs``: SAM's ``base_scores``) go to its ``score``
    with the texts; every other keyword is a configuration option (the metric may derive one
    from the inputs given: ``Scorer.call_options``)."""
    from nlgmetrics.core.scorer import split_extras

    cls = scorer_class(name)
    config_options, extras = split_extras(cls, options)
    config_options = cls.call_options(config_options, [k for k, v in extras.items() if v is not None])
    return load(name, **config_options).score(predictions, references, sources, **extras)


def metric_path(name: str) -> str:
    """Directory of the metric's evaluate module: ``evaluate.load(metric_path("rome"))``."""
    scorer_class(name)  # validates the name
    modules = importlib.import_module("nlgmetrics.evaluate_modules")  # mapped onto metrics/ by setup.cfg
    path = Path(str(modules.__file__)).resolve().parent / name.lower()
    if not (path / f"{name.lower()}.py").exists():
        raise FileNotFoundError(f"evaluate module for {name!r} not found at {path}")
    return str(path)


def compute_metrics_fn(metric: Any, tokenizer: Any, sources: Optional[List[str]] = None,
                       **kwargs: Any) -> Callable[..., Dict[str, float]]:
    """A ``compute_metrics`` for ``Seq2SeqTrainer``; see :mod:`nlgmetrics.integrations.transformers`."""
    from nlgmetrics.integrations.transformers import compute_metrics_fn as _fn

    return _fn(metric, tokenizer, sources=sources, **kwargs)


__all__ = ["__version__", "list_metrics", "load", "score", "metric_path", "compute_metrics_fn",
           "scorer_class", "REGISTRY"]

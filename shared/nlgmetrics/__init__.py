"""nlgmetrics: DATScore, RoMe, DiscoTK, TextEval and SAM on one scoring core.

Where things are (layers point down: surfaces -> registry -> metrics -> core)::

    __init__.py        re-exports the public API (below) and compute_metrics_fn, the Trainer hook
    workbench.py       an mt-metrics-eval EvalSet scored by a metric, many metrics ranked (rank)
    registry.py        REGISTRY (metric name -> scorer class), load, score, compare, meta_eval,
                       list_metrics, scorer_class, metric_path, example: every surface imports these
    core/              what two or more metrics share: config (the option model), call (the one
                       front door: options and per-segment inputs of a call), inputs, scorer (the
                       Scorer template), result + signature, facts (a metric's declared facts and
                       example), records (the records-file format), files (input files),
                       significance, models, embeddings, linguistic, lexical, stats, cache,
                       resources
    meta/              evaluating metrics: correlations with human scores, significance between
                       metrics, mt-metrics-eval EvalSets (imports core only; no metric imports it)
    datscore/ rome/ discotk/ texteval/ sam/
                       one package per metric: config.py (Config, options, FACTS, PRESETS,
                       EXAMPLE), scorer.py (the Scorer), explain.py (what a Space or report
                       draws), and its own parts
    integrations/      evaluate plumbing (evaluate.py, evaluate_install.py), the records reader
                       (records_reader.py), the Trainer hook (transformers.py, decoding.py),
                       torch.distributed (distributed.py)
    cli/               the command line; options.py (--flags from a Config), cards.py (the
                       cards' options tables), trees.py (discourse-tree files)
    space/             the Gradio page builder the Spaces (spaces/<name>/app.py) use
    evaluate_modules/  the evaluate wrappers (metrics/<name>/<name>.py, mapped by setup.cfg)
    data/              shipped lexicons and trained heads

>>> import nlgmetrics
>>> sorted(nlgmetrics.list_metrics())
['datscore', 'discotk', 'rome', 'sam', 'texteval']
"""
from __future__ import annotations

from typing import Any, Dict, List

from .core.version import __version__
from .registry import REGISTRY, compare, example, list_metrics, load, meta_eval, metric_path, score, scorer_class, space_path


def __getattr__(name: str) -> Any:
    """``compute_metrics_fn``, the Trainer hook, imported on first use (it needs NumPy): the
    function itself, so ``help(nlgmetrics.compute_metrics_fn)`` shows its decoding steps."""
    if name == "compute_metrics_fn":
        from .integrations.transformers import compute_metrics_fn

        return compute_metrics_fn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted([*globals(), "compute_metrics_fn"])


def rank(mtme: str, lp: str, metrics: List[str], **kwargs: Any) -> Dict[str, Any]:
    """The metrics-task table of ``metrics`` on an mt-metrics-eval EvalSet (published ones and
    this package's, scored first where needed); see :func:`nlgmetrics.workbench.rank`."""
    from nlgmetrics.workbench import rank as _rank

    return _rank(mtme, lp, metrics, **kwargs)


__all__ = ["__version__", "list_metrics", "load", "score", "metric_path", "space_path", "compute_metrics_fn",
           "scorer_class", "compare", "meta_eval", "rank", "example", "REGISTRY"]

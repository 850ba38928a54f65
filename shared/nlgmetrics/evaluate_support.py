"""What the thin ``evaluate.Metric`` wrappers in ``metrics/<name>/<name>.py`` share:
features schemas, the MetricInfo, and ``compute`` calling the core scorer, which is cached
by configuration (``nlgmetrics.load``) so a training loop pays the model loading once.

The wrappers import this *module* (not classes from it): evaluate picks the first
``evaluate.Metric`` subclass it finds in the script's namespace as the metric."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

import datasets
import evaluate

import nlgmetrics

TEXT = datasets.Value("string")


def features(*, sources: bool = False, multi_reference: bool = False) -> datasets.Features:
    """``predictions`` and ``references`` (a string, or a list of strings with
    ``multi_reference``), plus ``sources`` when the configuration uses them."""
    fields = {"predictions": TEXT,
              "references": datasets.Sequence(TEXT) if multi_reference else TEXT}
    if sources:
        fields["sources"] = TEXT
    return datasets.Features(fields)


def metric_info(*, description: str, citation: str, inputs_description: str,
                features: datasets.Features, reference_urls: Optional[list] = None) -> evaluate.MetricInfo:
    return evaluate.MetricInfo(
        description=description,
        citation=citation,
        inputs_description=inputs_description,
        features=features,
        homepage="https://pypi.org/project/nlgmetrics/",
        codebase_urls=[],
        reference_urls=reference_urls or [],
    )


def compute(name: str, predictions: Any, references: Any = None, sources: Any = None, *,
            config_options: Optional[Mapping[str, Any]] = None, return_details: bool = False,
            score_kwargs: Optional[Mapping[str, Any]] = None, **options: Any) -> Dict[str, Any]:
    """Score with the cached core scorer; returns ``score``, ``scores``, ``signature`` (and
    ``details`` plus ``corpus`` with ``return_details=True``). ``options`` configure the
    scorer; ``score_kwargs`` are per-call inputs of the scorer's ``score`` (e.g. SAM's
    ``base_scores``)."""
    merged = dict(config_options or {})
    merged.update(options)
    scorer = nlgmetrics.load(name, **merged)
    result = scorer.score(list(predictions), None if references is None else list(references),
                          None if sources is None else list(sources), **dict(score_kwargs or {}))
    out: Dict[str, Any] = {"score": result.score, "scores": result.scores, "signature": result.signature}
    if return_details:
        out["details"] = result.details
        out["corpus"] = result.corpus
    return out

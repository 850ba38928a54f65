"""A Space for programs: handlers with named parameters (gradio names an endpoint's API
parameters after its function's), and the JSON endpoint ``/score``. Its named, typed
parameters are ``predictions``, ``references``, ``sources`` (where the metric takes them), the
metric's per-segment inputs (SAM's ``base_scores``) and the page's settings (each ``None`` by
default: the Space's initial setting); it answers ``{"score", "scores", "signature",
"warnings"}``. ``gradio_client.Client(url).predict(predictions=[...], references=[...],
base="chrf", api_name="/score")``."""
from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Type, Union

from nlgmetrics.core.config import OptionSpec
from nlgmetrics.core.result import MetricResult

from .report import Warning_

#: the parameters of ``/score`` that are texts, in order
TEXTS = ("predictions", "references", "sources")
_ARG = inspect.Parameter.POSITIONAL_OR_KEYWORD


def named(fn: Callable[..., Any], names: Sequence[str]) -> Callable[..., Any]:
    """``fn(*values)`` called by parameter names ``names`` (positionally too; one left out is
    ``None``, as for an empty box): gradio names the event's API parameters after them,
    instead of ``param_0``, ``param_1``..."""

    def handler(*args: Any, **kwargs: Any) -> Any:
        bound = handler.__signature__.bind(*args, **kwargs)  # type: ignore[attr-defined]
        bound.apply_defaults()
        return fn(*bound.arguments.values())

    handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, _ARG, default=None) for n in names])
    handler.__name__ = handler.__qualname__ = getattr(fn, "__name__", "handler")
    handler.__doc__ = fn.__doc__
    handler.__wrapped__ = fn  # type: ignore[attr-defined]
    return handler


def option_type(spec: OptionSpec, offered: Optional[Sequence[Any]]) -> Any:
    """The type of a setting's API parameter: one of the values the page offers, else the
    option's own type (a switch, a number); ``None`` always (the Space's initial value)."""
    if offered is not None:
        return Optional[Literal[tuple(offered)]]
    return Optional[spec.base_type]


def text_types(cls: Type[Any]) -> Dict[str, Any]:
    """The text parameters of ``cls``'s ``/score``: name -> type (a sequence of references per
    prediction where the metric takes several)."""
    out: Dict[str, Any] = {"predictions": List[str]}
    if cls.references_mode != "none":
        out["references"] = List[Union[str, List[str]]] if cls.multi_reference else List[str]
    if cls.sources_mode != "none":
        out["sources"] = List[str] if cls.sources_mode == "required" else Optional[List[str]]
    return out


def typed(fn: Callable[..., Dict[str, Any]], types: Mapping[str, Any], defaults: Mapping[str, Any],
          doc: str) -> Callable[..., Dict[str, Any]]:
    """:func:`named` with a type per parameter (``types``, in order), ``defaults`` for the
    optional ones and a JSON object as its answer: what ``gr.api`` reads to type an endpoint."""
    handler = named(fn, list(types))
    params = [inspect.Parameter(n, _ARG, annotation=t, **({"default": defaults[n]} if n in defaults else {}))
              for n, t in types.items()]
    handler.__signature__ = inspect.Signature(params, return_annotation=Dict[str, Any])  # type: ignore[attr-defined]
    handler.__annotations__ = {**types, "return": Dict[str, Any]}
    handler.__doc__ = doc
    return handler


def describe(metric: str, extras: Mapping[str, str], specs: Mapping[str, OptionSpec], settings: Sequence[str]) -> str:
    """The endpoint's description in the API page: the texts, the per-segment inputs, each
    setting with its documentation, and the answer."""
    lines = [f"Score with {metric}: one segment per list item, references aligned with the predictions "
             "(a list of references per prediction where the metric takes several), as nlgmetrics.score takes them."]
    lines += [f"{name}: {doc}" for name, doc in extras.items()]
    lines += [f"{name} (default: this Space's setting): {specs[name].doc}" for name in settings if name in specs]
    lines.append('Returns {"score": corpus score, "scores": per-segment scores, "signature": the reproducibility '
                 'signature, "warnings": [{"key", "message"}]}; bad input is an error with one message.')
    return "\n".join(lines)


def _number(value: Any) -> Optional[float]:
    """A score for JSON: a finite float, else ``None``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def result_json(result: MetricResult, warned: Sequence[Warning_]) -> Dict[str, Any]:
    """What ``/score`` answers: the corpus score, the per-segment scores (``None`` where the
    metric gives none), the signature and the warnings the page would show."""
    return {"score": _number(result.score), "scores": [_number(s) for s in result.scores],
            "signature": result.signature, "warnings": [{"key": key, "message": text} for key, text in warned]}


__all__ = ["TEXTS", "named", "option_type", "text_types", "typed", "describe", "result_json"]

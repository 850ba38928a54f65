"""A Space's settings generated from the metric's configuration (``Scorer.Config``): each
shown option becomes a widget by its type and choices (radio or dropdown for choices, checkbox
for booleans, a bounded number box for numbers), labelled with the option's name and its
one-line documentation. Free text is never offered: a string option without choices needs a
fixed list from the app (languages, the owner's models). The scorer pool builds scorers once
per configuration and checks every value against what the page offers."""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type, Union

from nlgmetrics import registry
from nlgmetrics.core.call import resolve
from nlgmetrics.core.config import MetricConfig, OptionSpec

from .runtime import Runtime

Factory = Callable[..., Any]
#: the value a widget uses for "the option's own default / none" (the pool drops it)
DEFAULT = ""


@dataclass(frozen=True)
class Setting:
    """How an app shows one configuration option: ``label`` and ``info`` (default: the name
    and the configuration's documentation), ``choices`` (values, or (label, value) pairs) for
    options whose configuration has none, ``widget`` (``radio``/``dropdown``; by default
    radio up to four choices)."""

    name: str
    label: str = ""
    info: Optional[str] = None
    choices: Optional[Sequence[Any]] = None
    widget: str = ""
    scale: Optional[int] = None


def _pairs(choices: Sequence[Any]) -> List[Tuple[str, Any]]:
    return [c if isinstance(c, tuple) else (str(c), c) for c in choices]


def setting_choices(spec: OptionSpec, setting: Setting) -> Optional[List[Tuple[str, Any]]]:
    """The (label, value) choices a widget offers, ``DEFAULT`` first for an option whose
    default is None; ``None`` for booleans and numbers."""
    raw = setting.choices if setting.choices is not None else spec.choices
    if raw is None:
        if spec.base_type in (bool, int, float):
            return None
        raise TypeError(f"setting {spec.name!r} is free text; give it a fixed list of choices")
    pairs = _pairs(raw)
    if spec.default is None and all(v != DEFAULT for _, v in pairs):
        pairs = [("default", DEFAULT)] + pairs
    return pairs


def build_settings(config: Type[MetricConfig], shown: Sequence[Union[str, Setting]],
                   initial: Mapping[str, Any]) -> Dict[str, Any]:
    """The gradio widgets of ``shown`` options (created inside the current Blocks context), by
    option name, with ``initial`` values or the configuration's defaults."""
    import gradio as gr

    specs = {s.name: s for s in config.specs()}
    out: Dict[str, Any] = {}
    for item in shown:
        setting = item if isinstance(item, Setting) else Setting(item)
        spec = specs[setting.name]
        value = initial.get(spec.name, spec.default)
        value = DEFAULT if value is None else value
        label = setting.label or spec.name
        info = spec.doc if setting.info is None else setting.info
        elem_id = f"setting-{spec.name.replace('_', '-')}"
        choices = setting_choices(spec, setting)
        widget: Any
        if spec.base_type is bool and choices is None:
            widget = gr.Checkbox(value=bool(value), label=label, info=info, elem_id=elem_id, scale=setting.scale)
        elif choices is None:
            widget = gr.Number(value=float(value), minimum=spec.low, maximum=spec.high, label=label, info=info,
                               precision=0 if spec.base_type is int else None, elem_id=elem_id, scale=setting.scale)
        elif setting.widget == "radio" or (not setting.widget and len(choices) <= 4):
            widget = gr.Radio(choices, value=value, label=label, info=info, elem_id=elem_id, scale=setting.scale)
        else:
            widget = gr.Dropdown(choices, value=value, allow_custom_value=False, label=label, info=info,
                                 elem_id=elem_id, scale=setting.scale)
        out[spec.name] = widget
    return out


class ScorerPool:
    """Scorers by configuration, built once with ``factory(**options)`` (default
    :func:`nlgmetrics.load`, quiet); ``device``/``dtype`` are set when the configuration has
    them. Scoring is serialised: one request at a time uses the models."""

    def __init__(self, metric: str, factory: Optional[Factory] = None) -> None:
        self.metric = metric
        self.cls = registry.scorer_class(metric)
        self.factory = factory or functools.partial(registry.load, metric, quiet=True)
        self.lock = threading.RLock()
        self.accepted = set(self.cls.Config.names())
        #: option -> the values the page offers (checked again on the server)
        self.offered: Dict[str, List[Any]] = {}

    @property
    def uses_models(self) -> bool:
        return "device" in self.accepted

    def options(self, options: Mapping[str, Any], runtime: Runtime) -> Dict[str, Any]:
        out = {k: v for k, v in options.items() if v is not None and v != DEFAULT}
        for key, offered in self.offered.items():
            if key in out and out[key] not in offered:
                raise ValueError(f"{key} {out[key]!r} is not offered by this Space; choose one of the list")
        if self.uses_models:
            out.setdefault("device", runtime.device)
            if "dtype" in self.accepted:
                out.setdefault("dtype", runtime.dtype)
        unknown = sorted(set(out) - self.accepted)
        if unknown:
            raise ValueError(f"{self.metric} does not take option(s) {', '.join(unknown)}")
        # the page always sends its profile: the resolver drops it where the configuration uses
        # none (SAM with a base that runs no model); other refusals come here, before any model loads
        return {k: v for k, v in out.items() if k not in resolve(self.cls, out, sent_always=("profile",),
                                                                   check_extras=False).dropped}

    def get(self, options: Mapping[str, Any]) -> Any:
        with self.lock:
            return self.factory(**dict(options))

"""A Space's settings generated from the metric's configuration (``Scorer.Config``): each
shown option becomes a widget by its type and choices (radio or dropdown for choices, checkbox
for booleans, a bounded number box for numbers), labelled with the option's name and its
one-line documentation. Free text is never offered: a string option without choices needs a
fixed list from the app (languages, the owner's models). The scorer pool builds scorers once
per configuration and checks every value against what the page offers; the resolver checks
the rest, once per request."""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type, Union

from nlgmetrics import registry
from nlgmetrics.core.call import Call
from nlgmetrics.core.config import MetricConfig, OptionSpec

from .runtime import Runtime

#: an app's scorer factory: the scorer of a checked configuration (``factory(config)``)
Factory = Callable[[MetricConfig], Any]
#: the value a widget uses for "the option's own default / none" (the pool drops it)
DEFAULT = ""
#: scorers a page keeps (one per configuration asked for, least recently used dropped)
MAX_SCORERS = 4


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
    """A Space's calls and scorers. :meth:`resolve` turns a request's settings into a call
    (:class:`nlgmetrics.core.call.Call`) through the one front door, once per request;
    :meth:`get` gives the call's scorer, built once per configuration (keyed by
    ``config.key()``) with ``factory(config)`` when the app gives one, else
    :func:`nlgmetrics.registry.load_call` (quiet). Scoring is serialised: one request at a
    time uses the models."""

    def __init__(self, metric: str, factory: Optional[Factory] = None) -> None:
        self.metric = metric
        self.cls = registry.scorer_class(metric)
        #: builds a scorer from a call; picklable when the app's factory is (worker processes)
        self.build: Callable[[Call], Any] = _LOAD_CALL if factory is None else functools.partial(_from_config,
                                                                                                 factory)
        self.lock = threading.RLock()
        self.accepted = set(self.cls.Config.names())
        #: option -> the values the page offers (checked again on the server)
        self.offered: Dict[str, List[Any]] = {}
        self.scorers: "OrderedDict[Tuple[Any, ...], Any]" = OrderedDict()

    @property
    def uses_models(self) -> bool:
        return "device" in self.accepted

    def resolve(self, given: Mapping[str, Any], preset: Mapping[str, Any], runtime: Runtime,
                fixed: Optional[Mapping[str, Any]] = None) -> Call:
        """The call of a request: ``given`` (the settings sent, by name; ``None`` = not sent,
        ``DEFAULT`` = the option's own default) on top of ``preset`` (the page's initial
        settings) and the runtime's device and dtype, with the app's ``fixed`` options. The
        values sent must be ones the page offers; every other check is the resolver's (an
        unknown option, a bad value, a per-segment input the configuration does not take)."""
        for key, offered in self.offered.items():
            if given.get(key) is not None and given[key] not in offered:
                raise ValueError(f"{key} {given[key]!r} is not offered by this Space; choose one of the list")
        cleared = {k for k, v in given.items() if _is_default(v)}
        keywords = {k: v for k, v in given.items() if v is not None and not _is_default(v)}
        keywords.update(fixed or {})
        base = {k: v for k, v in preset.items()
                if k not in cleared and k not in keywords and v is not None and not _is_default(v)}
        if self.uses_models:
            base.setdefault("device", runtime.device)
            if "dtype" in self.accepted:
                base.setdefault("dtype", runtime.dtype)
        # the page always sends its profile: the resolver drops it where the configuration uses
        # none (SAM with a base that runs no model)
        return registry.resolve(self.metric, keywords, preset=base, sent_always=("profile",))

    def get(self, call: Call) -> Any:
        """The scorer of ``call``, built once per configuration (the last :data:`MAX_SCORERS`)."""
        key = call.config.key()
        with self.lock:
            scorer = self.scorers.get(key)
            if scorer is None:
                scorer = self.build(call)
                self.scorers[key] = scorer
                while len(self.scorers) > MAX_SCORERS:
                    self.scorers.popitem(last=False)
            else:
                self.scorers.move_to_end(key)
            return scorer


def _is_default(value: Any) -> bool:
    return isinstance(value, str) and value == DEFAULT


def _from_config(factory: Factory, call: Call) -> Any:
    """An app's ``factory`` given the call's configuration."""
    return factory(call.config)


_LOAD_CALL = functools.partial(registry.load_call, quiet=True)

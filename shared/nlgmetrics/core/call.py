"""The one front door of a call: (metric class, preset, the caller's keywords) -> the checked
configuration and the call's per-segment inputs (:func:`resolve`).

Every surface resolves a call here and never splits options itself: ``nlgmetrics.score``,
``compare`` and ``meta_eval``, the evaluate module, the command line, the records reader, the
Space and the Trainer hook. The rules, in order:

1. the keywords that are the metric's declared per-segment inputs (``extra_inputs``: SAM's
   ``base_scores``) are set apart; every other keyword is a configuration option;
2. the metric derives options from the per-segment inputs given
   (:meth:`~nlgmetrics.core.scorer.Scorer.call_options`: ``base_scores`` means ``base="given"``
   unless ``base`` is given);
3. an option the metric does not take is an error listing the options, worded as the surface
   writes them (``syntax``: ``device=`` in Python, ``--device`` on the command line); the
   caller's options apply on top of the preset (an evaluate configuration, a Space's
   settings), and the configuration checks them all;
4. the configuration says whether it takes those per-segment inputs
   (:meth:`~nlgmetrics.core.scorer.Scorer.check_extra_names`);
5. ``device`` and ``dtype`` are checked as the models will resolve them (:func:`check_device`),
   before anything loads. No surface checks options, devices or dtypes itself.

A surface that sends some options with every call whatever the others are (``sent_always``:
the Space's settings form always sends its ``profile``) has those dropped where the rest of the
configuration does not use them (``unused_options``: SAM's profile with a base that runs no
model), where a caller who names them is refused ("a profile that changes nothing is an error").

>>> import nlgmetrics
>>> call = resolve(nlgmetrics.scorer_class("sam"), {"base_scores": [0.5]}, preset={"base": "chrf"})
>>> call.config.base, sorted(call.extras)
('given', ['base_scores'])
>>> resolve(nlgmetrics.scorer_class("sam"), {"colour": "red"})
Traceback (most recent call last):
...
ValueError: unknown option 'colour'; the options are: ...
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Collection, Dict, Mapping, Optional, Tuple, Type

from .config import MetricConfig
from .inputs import PYTHON_SYNTAX, ArgumentSyntax

if TYPE_CHECKING:
    from .scorer import Scorer


@dataclass(frozen=True)
class Call:
    """A resolved call, the value every later step takes: the metric's entry (``scorer``, its
    scorer class), the checked ``config`` and the per-segment inputs given as keywords
    (``extras``, name -> values; ``None`` values left out). Nothing after the resolver looks
    the metric up by name or builds its configuration again."""

    config: MetricConfig
    extras: Dict[str, Any] = field(default_factory=dict)
    #: the ``sent_always`` options left out because the configuration does not use them
    dropped: Tuple[str, ...] = ()
    #: the metric's scorer class (None only for a Call built by hand)
    scorer: Optional[Type["Scorer"]] = None
    #: the name the metric was asked for by (a registry name); empty: its scorer's name
    name: str = ""

    @property
    def metric(self) -> str:
        """The metric's name: the name it was asked for by, else its scorer's ``name``."""
        if self.name:
            return self.name
        if self.scorer is None:
            raise ValueError("this call names no metric (it was not made by resolve)")
        return self.scorer.name


def split(cls: Type["Scorer"], keywords: Mapping[str, Any]) -> tuple[Dict[str, Any], Dict[str, Any]]:
    """``(options, extras)``: the keywords that are ``cls``'s declared per-segment inputs apart
    from the rest (the configuration options; an unknown name stays there, for the
    configuration to refuse)."""
    options = {k: v for k, v in keywords.items() if k not in cls.extra_inputs}
    return options, {k: v for k, v in keywords.items() if k in cls.extra_inputs}


def resolve(cls: Type["Scorer"], keywords: Mapping[str, Any], *, preset: Optional[Mapping[str, Any]] = None,
            extra_names: Collection[str] = (), syntax: ArgumentSyntax = PYTHON_SYNTAX,
            check_extras: bool = True, sent_always: Collection[str] = (), name: str = "",
            keyword_extras: bool = True) -> Call:
    """The configuration and per-segment inputs of one call of metric ``cls`` (rules in the
    module docstring). ``extra_names`` names per-segment inputs the caller gives by another
    way (columns of an evaluate batch, a file on the command line). ``ValueError`` for a bad
    option or a per-segment input the configuration does not take, before anything loads;
    ``check_extras=False`` leaves that last check (rule 4) to a caller that words it itself
    (the command line, which names its files); ``sent_always``: see the module docstring;
    ``name``: the name the metric was asked for by (:attr:`Call.metric`);
    ``keyword_extras=False``: every keyword is an option (a surface that takes per-segment
    inputs another way, the command line's files: ``-o base_scores=...`` is an unknown option).
    Unknown options, ``device`` and ``dtype`` are checked here, worded by ``syntax``."""
    options, extras = split(cls, keywords) if keyword_extras else (dict(keywords), {})
    cls.Config._known(options, lambda unknown, known: syntax.unknown(name or cls.name, unknown, known))
    extras = {k: v for k, v in extras.items() if v is not None}
    given = [*extras, *(n for n in extra_names if n not in extras)]
    options = {**dict(preset or {}), **cls.call_options(options, given)}
    config, dropped = _configured(cls, options, sent_always)
    if check_extras:
        cls.check_extra_names(config, given, syntax)
    check_device(config, syntax)
    return Call(config, extras, dropped, cls, name)


def check_device(config: MetricConfig, syntax: ArgumentSyntax = PYTHON_SYNTAX) -> None:
    """``device`` and ``dtype`` checked as the models will resolve them (``device="tpu"``,
    ``cuda`` without CUDA, ``fp16`` on the CPU), so the error comes before anything loads;
    ``ValueError`` naming the option as ``syntax`` writes it. Without torch's import where
    the values are valid wherever torch runs (``auto``/``cpu`` with ``fp32``/``bf16``)."""
    names = set(type(config).names())
    if "device" not in names and "dtype" not in names:
        return
    device, dtype = getattr(config, "device", None), getattr(config, "dtype", None)
    if str(device) in ("None", "auto", "cpu") and str(dtype).lower() in ("none", "fp32", "bf16"):
        return
    import torch

    from . import models

    resolved = None
    if device is not None:
        text = str(device)
        try:
            kind = torch.device(text).type if text != "auto" else "auto"
        except (RuntimeError, ValueError):
            kind = None
        if kind not in ("auto", "cpu", "cuda", "mps"):
            raise ValueError(f"unknown device {text!r} ({syntax.flag('device')}); use auto, cpu, cuda, cuda:N or mps")
        try:
            resolved = models.resolve_device(text)
        except (RuntimeError, ValueError) as err:
            raise ValueError(f"{err} ({syntax.flag('device')})") from None
    if dtype is not None:
        try:
            models.resolve_dtype(dtype, resolved if resolved is not None else models.resolve_device("auto"))
        except (RuntimeError, ValueError) as err:
            raise ValueError(f"{err} ({syntax.flag('dtype')})") from None


def _configured(cls: Type["Scorer"], options: Mapping[str, Any],
                sent_always: Collection[str]) -> Tuple[MetricConfig, Tuple[str, ...]]:
    """The configuration of ``options`` less the ``sent_always`` names that the configuration of
    the other options does not use, and those names (when the other options are refused, all
    are kept: their own error comes from the full check)."""
    names = [n for n in sent_always if n in options]
    if names:
        try:
            without = cls.Config.from_options(**{k: v for k, v in options.items() if k not in names})
        except (ValueError, TypeError):
            without = None
        if without is not None:
            dropped = tuple(n for n in names if n in without.unused_options())
            kept = {n: options[n] for n in names if n not in dropped}
            # the configuration without them is the answer, or it with the used ones put back
            # (checked as a build checks them): one build either way
            return (_adding(without, kept) if kept else without), dropped
    return cls.Config.from_options(**options), ()


def _adding(config: MetricConfig, values: Mapping[str, Any]) -> MetricConfig:
    """``config`` with ``values`` set, each checked as a build checks it and the cross-field
    rules run again (the other fields are checked already): an option set apart put back,
    without building the whole configuration again."""
    type(config)._known(values)
    out = copy.copy(config)
    out._set_checked(values)
    return out


def config_of(cls: Type["Scorer"], config: Optional[MetricConfig], options: Mapping[str, Any]) -> MetricConfig:
    """The configuration given as such (checked to be ``cls``'s) or built from ``options``;
    not both."""
    if config is None:
        return cls.Config.from_options(**options)
    if options:
        raise TypeError("give either a configuration or keyword options, not both")
    if not isinstance(config, cls.Config):
        raise TypeError(f"{cls.__name__} takes a {cls.Config.__name__}, got {type(config).__name__}")
    return config

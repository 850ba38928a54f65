"""One frozen, typed configuration per metric: the single source of every option.

A metric declares ``class Config(MetricConfig)`` with one :func:`option` per field (type,
default, choices or range, one line of documentation, a short signature key). From that class,
and only from it, come the scorer's options, the signature, the ``nlgmetrics score <metric>``
options and ``--help``, the evaluate wrapper's argument documentation, the Space's settings and
the card's options table.

The option model lives here; what each surface generates from it lives beside the surface:
``--name`` flags in :mod:`nlgmetrics.cli.options`, the card's table in
:mod:`nlgmetrics.cli.cards`, the evaluate argument docs in :mod:`nlgmetrics.integrations.evaluate`.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo(MetricConfig):
...     base: str = option("chrf", "base metric", choices=("chrf", "bleu"))
...     gamma: float = option(0.07, "position penalty", low=0.0, short="g")
>>> Demo(gamma=0.1).signature_fields()
{'g': 0.1}
>>> Demo.from_options(bse="bleu")
Traceback (most recent call last):
...
ValueError: unknown option 'bse'; the options are: base, gamma
>>> Demo(gamma=float("nan"))
Traceback (most recent call last):
...
ValueError: gamma must be a finite number, got nan
"""
from __future__ import annotations

import ast
import dataclasses
import json
import os
import typing
from collections import abc
from dataclasses import dataclass
from types import MappingProxyType, UnionType
from typing import Any, Callable, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple

from . import structured
from .facts import HigherIsBetter
from .option_values import mapping_value, number_value, short_repr

_MISSING = dataclasses.MISSING
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True)
class OptionSpec:
    """What one configuration field is: everything the generated surfaces need."""

    name: str
    type: Any
    default: Any
    doc: str
    choices: Optional[Tuple[Any, ...]] = None
    low: Optional[float] = None
    high: Optional[float] = None
    low_open: bool = False
    high_open: bool = False
    short: Optional[str] = None
    #: ``always``: in the signature whatever its value; ``changed``: only when it differs from
    #: the default; ``never``: not in the signature (it cannot change a score, e.g. batch size)
    signature: str = "changed"
    #: an option a user can give on the command line as ``--name`` (simple types only)
    cli: bool = True

    @property
    def base_type(self) -> Any:
        """The type without ``Optional``: ``Optional[int]`` -> ``int``."""
        args = [a for a in typing.get_args(self.type) if a is not type(None)]
        if is_union(self.type) and len(args) == 1:
            return args[0]
        return self.type

    @property
    def takes_str(self) -> bool:
        """True when a string is one of the option's types (``str``, ``str | None``, ``str | Mapping``)."""
        base = self.base_type
        return base is str or (is_union(base) and str in typing.get_args(base))

    @property
    def optional(self) -> bool:
        return type(None) in typing.get_args(self.type)

    def type_name(self) -> str:
        """A short human name for the type: ``str``, ``int or None``, ``str or mapping``."""
        base = self.base_type
        if is_union(base):
            parts = [_simple_name(a) for a in typing.get_args(base) if a is not type(None)]
            name = " or ".join(parts)
        else:
            name = _simple_name(base)
        return f"{name} or None" if self.optional else name

    def describe_range(self) -> str:
        """``one of a, b``, ``>= 1``, ``in (0, 1]`` or an empty string."""
        if self.choices is not None:
            return "one of " + ", ".join(map(str, self.choices))
        if self.low is not None and self.high is not None:
            return f"in {'(' if self.low_open else '['}{self.low:g}, {self.high:g}{')' if self.high_open else ']'}"
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {self.low:g}"
        if self.high is not None:
            return f"{'<' if self.high_open else '<='} {self.high:g}"
        return ""

    def default_text(self) -> str:
        """The default as the generated docs write it: ``"chrf"``, ``0.07``, ``null``, ``true``."""
        value = json_ready(self.default)
        if isinstance(value, str):
            return f'"{value}"'
        return json.dumps(value) if isinstance(value, (dict, list, bool)) or value is None else str(value)

    def check(self, value: Any) -> Any:
        """The value converted to the field's type and checked, or ``ValueError`` naming the
        option, what it got and what it takes."""
        if value is None:
            if self.optional or self.default is None:
                return None
            raise ValueError(f"{self.name} may not be None")
        base = self.base_type
        if base is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, (int, float)) and value in (0, 1):
                return bool(value)
            raise ValueError(f"{self.name} must be true or false, got {value!r}")
        if base in (int, float):
            value = number_value(self.name, value, base, self.describe_range())
            if not self._in_range(value):
                raise ValueError(f"{self.name} must be {self.describe_range()}, got {short_repr(value)}")
        elif isinstance(value, os.PathLike) and self.takes_str:
            value = os.fspath(value)  # a path given as a pathlib.Path, for any option a string can fill
        if base is str and not isinstance(value, str):
            raise ValueError(f"{self.name} must be a string, got {type(value).__name__}")
        if isinstance(value, Mapping):
            types = typing.get_args(base) if is_union(base) else (base,)
            value = mapping_value(self.name, value, numeric=any(
                typing.get_args(t)[1:] == (float,) for t in types if typing.get_origin(t) in (abc.Mapping, dict)))
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"unknown {self.name} {value!r}; choose one of {', '.join(map(str, self.choices))}")
        return value

    def _in_range(self, value: float) -> bool:
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        if self.high is not None and (value >= self.high if self.high_open else value > self.high):
            return False
        return True

    def parse(self, text: str) -> Any:
        """A command-line or form string as this field's value (then :meth:`check` it)."""
        lowered = text.strip().lower()
        if lowered in ("none", "null") and (self.optional or self.default is None):
            return None
        base = self.base_type
        if base is bool:
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
            raise ValueError(f"{self.name} must be true or false, got {text!r}")
        if base is int:
            try:
                return int(text)
            except ValueError:
                raise ValueError(f"{self.name} must be an integer, got {text!r}") from None
        if base is float:
            try:
                return float(text)
            except ValueError:
                raise ValueError(f"{self.name} must be a number, got {text!r}") from None
        if base is str:
            return text
        stripped = text.strip()
        if typing.get_origin(base) is tuple and stripped[:1] + stripped[-1:] in ("()", "[]"):
            try:  # a tuple option (no string among its types) also takes Python's "(low, high)",
                # and Python's number forms ("-.5", "1_000"), as a literal: nothing is evaluated
                value = ast.literal_eval(stripped)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                value = None
            if isinstance(value, (tuple, list)):
                return list(value)
        # mappings, sequences and unions: JSON (read by the one reader, within its limits), else the plain string
        return structured.parse_json_or_text(text, self.name)


def is_union(tp: Any) -> bool:
    """True for ``Union[a, b]``, ``Optional[a]`` and ``a | b`` alike.

    >>> is_union(Optional[int]), is_union(int | None), is_union(int)
    (True, True, False)
    """
    return typing.get_origin(tp) in (typing.Union, UnionType)


def _simple_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if is_union(tp):
        return " or ".join(_simple_name(a) for a in typing.get_args(tp) if a is not type(None))
    if origin is not None:
        return {dict: "mapping", list: "list", tuple: "list"}.get(origin, getattr(origin, "__name__", str(origin)))
    if tp in (Mapping, dict) or getattr(tp, "_name", None) == "Mapping":
        return "mapping"
    return getattr(tp, "__name__", str(tp))


def option(default: Any, doc: str, *, choices: Optional[Sequence[Any]] = None,
           low: Optional[float] = None, high: Optional[float] = None, low_open: bool = False,
           high_open: bool = False, short: Optional[str] = None, signature: str = "changed",
           cli: bool = True) -> Any:
    """A configuration field: its default and what the generated surfaces say of it."""
    if signature not in ("always", "changed", "never"):
        raise ValueError(f"signature must be always, changed or never, got {signature!r}")
    meta = {"doc": doc, "choices": tuple(choices) if choices is not None else None, "low": low,
            "high": high, "low_open": low_open, "high_open": high_open, "short": short,
            "signature": signature, "cli": cli}
    if isinstance(default, Mapping):
        raise TypeError("a mapping option defaults to None (a frozen configuration holds no dict default)")
    if isinstance(default, list):
        default = tuple(default)
    return dataclasses.field(default=default, metadata=meta)


def _freeze(value: Any) -> Any:
    """Hashable, order-independent form of option values (dicts become sorted tuples)."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def json_ready(value: Any) -> Any:
    """JSON-ready form of an option value (for records files and the cache key)."""
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value


@dataclass(frozen=True)
class MetricConfig:
    """Base of every metric's configuration (subclasses are frozen dataclasses).

    Each field is declared with :func:`option`. ``__post_init__`` converts and checks every
    value once (a field named ``language`` as :func:`nlgmetrics.core.language.language_option`
    says: a known code, lower-cased, that the metric's resources cover); a subclass adds
    cross-field rules in :meth:`check`.
    """

    #: options that matter only at run time and never enter the cache key or the signature
    RUNTIME: ClassVar[Tuple[str, ...]] = ()
    #: the direction of the scores under this configuration (the metric's FACTS, core/facts.py)
    higher_is_better = HigherIsBetter()

    def __post_init__(self) -> None:
        self._set_checked({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})

    def _set_checked(self, values: Mapping[str, Any]) -> None:
        """Set each of ``values`` converted and checked by its field's spec (a mapping read-only,
        a list a tuple; ``language`` a known code the metric covers), then the cross-field rules."""
        specs = {spec.name: spec for spec in self.specs()}
        for name, value in values.items():
            value = specs[name].check(value)
            if isinstance(value, Mapping):
                value = MappingProxyType(dict(value))  # read-only, like the rest of the config
            elif isinstance(value, list):
                value = tuple(value)
            object.__setattr__(self, name, value)
        if "language" in values:  # the texts' language: a known code the metric covers
            from .language import language_option

            object.__setattr__(self, "language", language_option(type(self), getattr(self, "language")))  # noqa: B009
        self.check()

    def check(self) -> None:
        """Cross-field rules of a metric (override); raise ``ValueError``."""

    def unused_options(self) -> frozenset:
        """Options that cannot change a score under this configuration (override): e.g. the
        encoder's precision when no encoder runs. They stay valid options but are left out of
        the signature, which names what shaped the scores."""
        return frozenset()

    # -- introspection ----------------------------------------------------------------------
    @classmethod
    def specs(cls) -> List[OptionSpec]:
        hints = typing.get_type_hints(cls)
        out = []
        for f in dataclasses.fields(cls):
            meta = dict(f.metadata)
            if "doc" not in meta:
                raise TypeError(f"{cls.__name__}.{f.name} is not declared with option()")
            out.append(OptionSpec(name=f.name, type=hints[f.name], default=f.default, **meta))
        return out

    @classmethod
    def spec(cls, name: str) -> OptionSpec:
        for s in cls.specs():
            if s.name == name:
                return s
        raise KeyError(name)

    @classmethod
    def names(cls) -> List[str]:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def from_options(cls, **options: Any) -> "MetricConfig":
        """A configuration from keyword options; an unknown name is an error that lists the
        options (a mistyped option never falls back to a default silently)."""
        cls._known(options)
        return cls(**options)

    @classmethod
    def _known(cls, options: Mapping[str, Any],
               say: Optional[Callable[[List[str], List[str]], Optional[str]]] = None) -> None:
        """``ValueError`` for an option the configuration does not have, listing the options;
        ``say(unknown, known)``: the message in a surface's own words (``None``: these)."""
        known = cls.names()
        unknown = [k for k in options if k not in known]
        if unknown:
            raise ValueError((say(unknown, known) if say else None) or (
                f"unknown option{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))}; the options are: {', '.join(known)}"))

    @classmethod
    def parse_options(cls, items: Mapping[str, str]) -> Dict[str, Any]:
        """Strings (command line, form fields) parsed per field type; unknown names refused."""
        known = {s.name: s for s in cls.specs()}
        out: Dict[str, Any] = {}
        for key, text in items.items():
            if key not in known:
                raise ValueError(f"unknown option {key!r}; the options are: {', '.join(known)}")
            out[key] = known[key].parse(text) if isinstance(text, str) else text
        return out

    # -- derived values ---------------------------------------------------------------------
    def replace(self, **changes: Any) -> "MetricConfig":
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> Dict[str, Any]:
        """Every field, JSON-ready."""
        return {f.name: json_ready(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def changed(self) -> Dict[str, Any]:
        """The fields that differ from their defaults, JSON-ready."""
        return {s.name: json_ready(getattr(self, s.name)) for s in self.specs()
                if _freeze(getattr(self, s.name)) != _freeze(s.default)}

    def key(self) -> Tuple[Any, ...]:
        """Hashable normalised configuration (defaults filled in, run-time fields left out):
        equivalent options give equal keys."""
        return (type(self).__qualname__,) + tuple(
            (s.name, _freeze(getattr(self, s.name))) for s in self.specs() if s.name not in self.RUNTIME)

    def signature_fields(self, facts: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Short-name -> value for the signature: ``always`` fields, every other field that
        differs from its default (:meth:`unused_options` left out), then the scorer's ``facts``
        (:meth:`Scorer.signature_facts`: model actually loaded, backend)."""
        out: Dict[str, Any] = {}
        unused = self.unused_options()
        for s in self.specs():
            if s.signature == "never" or s.name in self.RUNTIME or s.name in unused:
                continue
            value = getattr(self, s.name)
            if s.signature == "always" or _freeze(value) != _freeze(s.default):
                out[s.short or s.name] = _signature_value(value)
        for k, v in (facts or {}).items():
            if v is not None:
                out[k] = v
        return out


def _signature_value(value: Any) -> Any:
    """An option value as the signature writes it: a mapping as ``key=value`` pairs in key
    order (equal mappings sign equally whatever their insertion order), a sequence joined by
    commas, None as ``none``.

    >>> _signature_value(MappingProxyType({"b": 0.5, "a": 1})), _signature_value(("x", "y"))
    ('a=1,b=0.5', 'x,y')
    """
    if isinstance(value, Mapping):
        value = _freeze(value)
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        return ",".join(f"{k}={_signature_value(v)}" for k, v in value)
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    if value is None:
        return "none"
    return value


__all__ = ["MetricConfig", "OptionSpec", "option", "is_union", "json_ready"]

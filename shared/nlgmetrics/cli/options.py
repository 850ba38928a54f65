"""The command line's per-metric options, generated from the metric's configuration: one typed
``--name`` flag per field (type, default and range in ``--help``) and ``-o key=value`` items,
both parsed by the field's own parser (:meth:`~nlgmetrics.core.config.OptionSpec.parse`); a
value given as JSON is read by the one reader of structured input, whose errors name the flag
(``-o weights: nested deeper than 32 levels``)."""
from __future__ import annotations

from typing import Any, Callable, Dict, Sequence, Type

from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.structured import StructuredInputError


def add_arguments(parser: Any, config: Type[MetricConfig], *, skip: Sequence[str] = ()) -> None:
    """Per-metric command-line options ``--name`` with type, default and choices in ``--help``.
    Values arrive as strings and are converted by the field's own parser."""
    group = parser.add_argument_group("metric options (from the configuration)")
    for s in config.specs():
        if not s.cli or s.name in skip:
            continue
        extra = s.describe_range()
        help_text = f"{s.doc} [{s.type_name()}; default {s.default_text()}{'; ' + extra if extra else ''}]"
        group.add_argument(f"--{s.name.replace('_', '-')}", dest=f"opt_{s.name}", default=None,
                           metavar=s.base_type.__name__.upper() if isinstance(s.base_type, type) else "VALUE",
                           help=help_text.replace("%", "%%"))


def options_from_args(args: Any, config: Type[MetricConfig]) -> Dict[str, Any]:
    """The ``--name`` options a user gave (parsed; absent ones left to the defaults)."""
    given = {s.name: getattr(args, f"opt_{s.name}") for s in config.specs()
             if getattr(args, f"opt_{s.name}", None) is not None}
    return _parse(config, given, lambda name: f"--{name.replace('_', '-')}")


def parse_key_values(items: Sequence[str], config: Type[MetricConfig]) -> Dict[str, Any]:
    """``-o key=value`` items parsed by the fields' types; a key given twice is refused (the
    last one silently won)."""
    raw: Dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"-o expects key=value, got {item!r}")
        key, value = item.split("=", 1)
        name = key.strip().replace("-", "_")
        if name in raw:
            raise ValueError(f"option {name} given twice (-o {name}={raw[name]} and -o {name}={value}); give it once")
        raw[name] = value
    return _parse(config, raw, lambda name: f"-o {name}")


def _parse(config: Type[MetricConfig], raw: Dict[str, str], flag: Callable[[str], str]) -> Dict[str, Any]:
    """The options parsed one by one, an error in a JSON value naming its ``flag``."""
    out: Dict[str, Any] = {}
    for name, value in raw.items():
        try:
            out.update(config.parse_options({name: value}))
        except StructuredInputError as err:
            raise err.at(flag(name)) from None
    return out


__all__ = ["add_arguments", "options_from_args", "parse_key_values"]

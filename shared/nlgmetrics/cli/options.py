"""The command line's per-metric options, generated from the metric's configuration: one typed
``--name`` flag per field (type, default and range in ``--help``) and ``-o key=value`` items,
both parsed by the field's own parser (:meth:`~nlgmetrics.core.config.OptionSpec.parse`)."""
from __future__ import annotations

from typing import Any, Dict, Sequence, Type

from nlgmetrics.core.config import MetricConfig


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
    return config.parse_options(given)


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
    return config.parse_options(raw)


__all__ = ["add_arguments", "options_from_args", "parse_key_values"]

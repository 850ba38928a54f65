"""What every command shares: the error type (one ``error:`` line, exit code 2 for usage
errors), the argument parser, the metric's options generated from its configuration (typed
``--name`` flags and ``-o key=value``, validated before any model loads) and the output."""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from typing import IO, Any, Dict, List, Optional, Sequence

from nlgmetrics import registry
from nlgmetrics.cli import options as cli_options
from nlgmetrics.core import files
from nlgmetrics.core.call import resolve
from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import ArgumentSyntax
from nlgmetrics.core.result import MetricResult, finite_or_none


class CLIError(SystemExit):
    """A command-line error: :func:`nlgmetrics.cli.main` prints ``error: <message>`` (one
    line, no traceback) and the process exits with ``code`` (2: usage or input; 1: failure
    while running)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(code)
        self.message = " ".join(str(message).split()) or "failed"

    def __str__(self) -> str:
        return f"error: {self.message}"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (a :class:`CLIError`) instead of usage + message."""

    def error(self, message: str) -> Any:
        raise CLIError(f"{message} (see: {self.prog} --help)")


class CLISyntax(ArgumentSyntax):
    """Options and per-segment inputs as the command line writes them: ``--base given``,
    ``--base-scores FILE``."""

    def option(self, name: str, value: Any) -> str:
        return f"--{name.replace('_', '-')} {value}"

    def extra(self, name: str) -> str:
        return f"--{name.replace('_', '-')} FILE"

    def setting(self, name: str, text: str) -> str:
        return f"--{name.replace('_', '-')} \"{text}\""

    def flag(self, name: str) -> str:
        return f"--{name.replace('_', '-')}"

    def unknown(self, metric: str, names: List[str], known: List[str]) -> str:
        return (f"{metric} does not take option{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))}; "
                f"it takes: {', '.join(known)}")


CLI_SYNTAX = CLISyntax()


def scorer_class(name: str) -> Any:
    try:
        return registry.scorer_class(name)
    except ValueError as err:
        raise CLIError(str(err)) from None


def add_metric_options(parser: argparse.ArgumentParser, cls: Optional[Any]) -> None:
    """``-o KEY=VALUE`` and, when the metric is known, one typed ``--name`` per configuration
    field (type, default and choices in ``--help``); a field whose flag the command already
    uses stays reachable through ``-o``."""
    names = ", ".join(cls.Config.names()) if cls is not None else "see: nlgmetrics score METRIC --help"
    parser.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", default=[],
                        help=f"a metric option, parsed by its type (options: {names})")
    if cls is None:
        return
    taken = set(parser._option_string_actions)  # noqa: SLF001 - argparse has no public accessor
    skip = [s.name for s in cls.Config.specs() if f"--{s.name.replace('_', '-')}" in taken]
    cli_options.add_arguments(parser, cls.Config, skip=skip)


def config_from_args(cls: Any, args: argparse.Namespace) -> MetricConfig:
    """The metric's configuration of :func:`call_from_args`."""
    return call_from_args(cls, args).config


def call_from_args(cls: Any, args: argparse.Namespace) -> Any:
    """The call of ``--name`` flags and ``-o key=value`` items, resolved once by the front door
    and checked (types, choices, ranges, cross-field rules, device and dtype) before anything
    loads: a :class:`~nlgmetrics.core.call.Call`."""
    config_cls = cls.Config
    known = set(config_cls.names())
    items: List[str] = []  # -o items of the configuration's options, parsed by their types
    unknown: Dict[str, str] = {}  # the others, which the resolver refuses in CLI words
    for item in getattr(args, "option", None) or []:
        if "=" not in item:
            raise CLIError(f"-o expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        name = key.strip().replace("-", "_")
        if name in known:
            items.append(item)
        else:
            unknown[name] = value
    try:
        flags = cli_options.options_from_args(args, config_cls)
        pairs = cli_options.parse_key_values(items, config_cls)
    except ValueError as err:
        raise CLIError(str(err)) from None
    for key in set(flags) & set(pairs):
        if json.dumps(flags[key], default=str) != json.dumps(pairs[key], default=str):
            flag = f"--{key.replace('_', '-')}"
            raise CLIError(f"option {key} given twice with different values ({flag} and -o {key}=...)")
    extras = [name[len("extra_"):] for name, path in vars(args).items() if name.startswith("extra_") and path]
    try:  # the core's one front door: unknown options, values, device and dtype; the per-segment
        # files are checked with the input files
        return resolve(cls, {**unknown, **flags, **pairs}, extra_names=extras, syntax=CLI_SYNTAX,
                       check_extras=False, keyword_extras=False)
    except (ValueError, TypeError) as err:
        raise CLIError(str(err)) from None


def add_extra_flags(parser: argparse.ArgumentParser, cls: Optional[Any], how: str = "",
                    append: bool = False) -> None:
    """One ``--name FILE`` flag per per-segment input of the metric (SAM's ``--base-scores``),
    generated alike for score, compare and meta-eval; ``how`` says what a file's lines are
    for the command, ``append``: repeated, one file per system."""
    for name, doc in (getattr(cls, "extra_inputs", None) or {}).items():
        parser.add_argument(f"--{name.replace('_', '-')}", dest=f"extra_{name}", metavar="FILE",
                            action="append" if append else "store",
                            help=f"one number per line{how}: {doc}")


def extra_paths(args: argparse.Namespace) -> Dict[str, Any]:
    """The per-segment input files given (name -> path, or paths with ``append``)."""
    return {name[len("extra_"):]: path for name, path in vars(args).items() if name.startswith("extra_") and path}


def read_extra_file(cls: Any, config: MetricConfig, name: str, path: str, n: Optional[int] = None,
                    against: str = "the hypothesis file") -> List[float]:
    """A per-segment input file's numbers, each checked by the metric; ``n``: the lines it
    must hold (of ``against``)."""
    values: List[float] = []
    try:
        for m, line in enumerate(files.iter_lines(path), start=1):
            where = f"{path}, line {m}"
            values.append(cls.check_extra_value(config, name, as_number(line, where), where, CLI_SYNTAX))
    except (files.InputFileError, ValueError) as err:
        raise CLIError(str(err)) from None
    if n is not None and len(values) != n:
        raise CLIError(f"{path} has {len(values)} lines but {against} has {n}")
    return values


def load_scorer(name: str, config: MetricConfig, quiet: bool) -> Any:
    """``nlgmetrics.load`` for an already checked configuration; a model that cannot be had
    is one error line (exit 1); an input file an option names that cannot be read (e.g. SAM's
    ``lexicon``: an ``InputFileError``) is a usage error (exit 2)."""
    from nlgmetrics.core.files import InputFileError

    try:
        return registry.load(name, config, quiet=quiet)
    except InputFileError as err:
        raise CLIError(str(err)) from None
    except (ValueError, FileNotFoundError, OSError) as err:
        raise CLIError(str(err), code=1) from None
    except Exception as err:
        # core.models (torch) is not imported for this: a scorer that loads no model cannot raise its error
        models = sys.modules.get("nlgmetrics.core.models")
        if models is not None and isinstance(err, models.ModelUnavailableError):
            raise CLIError(str(err), code=1) from None
        raise


# -- output --------------------------------------------------------------------------------------
def dumps(value: Any) -> str:
    """Strict JSON (never a bare NaN): non-finite numbers become ``null``."""
    return json.dumps(finite_or_none(value), allow_nan=False, default=str)


def write_result(result: MetricResult, as_json: bool, out: Optional[IO[str]] = None) -> None:
    """``score<TAB>signature``, or the whole result as strict JSON written piece by piece (a
    large corpus is not first built as one string)."""
    out = out or sys.stdout
    if not as_json:
        score = f"{result.score:.4f}" if math.isfinite(result.score) else "nan"
        out.write(f"{score}\t{result.signature}\n")
        return
    out.write('{"metric": ' + dumps(result.metric) + ', "scores": [')
    _write_items(out, result.scores)
    out.write('], "score": ' + dumps(result.score) + ', "signature": ' + dumps(result.signature))
    out.write(', "details": [')
    _write_items(out, result.details)
    out.write('], "corpus": ' + dumps(result.corpus) + "}\n")
    out.flush()


def _write_items(out: IO[str], items: Sequence[Any]) -> None:
    for i, item in enumerate(items):
        out.write((", " if i else "") + dumps(item))


#: a plain decimal or scientific number (``0.5``, ``-3``, ``.5``, ``1e-3``); Python's float()
#: also takes ``1_0``, non-ASCII digits and ``infinity``, which a number file should not hold
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = {"nan", "inf", "infinity"}


def as_number(text: str, where: str) -> float:
    """A finite number from a line of a per-segment input file: a plain decimal or scientific
    number, blanks around it allowed; ``nan``/``inf`` are refused as not finite."""
    plain = text.strip(" \t\r")
    if plain.lstrip("+-").lower() in _NON_FINITE:
        raise CLIError(f"{where}: not a finite number")
    if not _PLAIN_NUMBER.fullmatch(plain):
        raise CLIError(f"{where}: not a number ({text[:40]!r}; write a plain decimal such as 0.5 or 1e-3)")
    value = float(plain)
    if not math.isfinite(value):  # 1e999
        raise CLIError(f"{where}: not a finite number")
    return value


def print_error(err: BaseException) -> None:
    print(str(err) if isinstance(err, CLIError) else f"error: {err}", file=sys.stderr)


__all__ = ["CLI_SYNTAX", "CLIError", "Parser", "add_metric_options", "as_number", "config_from_args", "dumps",
           "finite_or_none", "load_scorer", "print_error", "scorer_class", "write_result"]


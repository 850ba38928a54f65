"""Command line: ``nlgmetrics list | score | compare | reduce | meta-eval | demo``.

    nlgmetrics score sam -p hyp.txt -r ref.txt --json
    nlgmetrics score rome --help                       # every option of RoMe: type, default, choices
    nlgmetrics score rome -p hyp.txt -r ref.txt --profile lite -o batch_size=16
    nlgmetrics compare sam -r ref.txt -p base.txt -p sysB.txt -o base=chrf --json
    nlgmetrics meta-eval rome data.jsonl.gz --human human.quality --ref-field refs
    nlgmetrics demo
    nlgmetrics score rome -p hyp.txt -r ref.txt --shard 2/4 --records part2.jsonl
    nlgmetrics reduce part*.jsonl
    torchrun --nproc_per_node 2 -m nlgmetrics.cli score rome -p hyp.txt -r ref.txt --distributed

A metric's options come from its configuration (``nlgmetrics.scorer_class(name).Config``):
``--name VALUE`` or ``-o name=VALUE``, parsed by the field's type and checked before any
model loads. Every error is one ``error:`` line; usage and input errors exit with 2, a failure
while running with 1. Python warnings print as one ``warning: <message>`` line on stderr while
the command runs (library callers keep Python's own format); a closed standard output (``|
head``) ends the command quietly with exit 141, as ``git`` does.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any, List, Optional, Sequence

from nlgmetrics import registry
from nlgmetrics.cli import help as help_text
from nlgmetrics.cli.common import CLIError, Parser, add_extra_flags, add_metric_options, print_error
from nlgmetrics.cli.compare import add_compare_arguments
from nlgmetrics.cli.score import add_score_arguments
from nlgmetrics.core.version import __version__


def _command(module: str, name: str) -> Any:
    """The command ``name`` of ``nlgmetrics.cli.<module>``, imported when it runs: building the
    parser (``--help``) imports none of what the commands use (scipy, the metrics' models)."""
    def run(args: argparse.Namespace) -> int:
        import importlib

        return int(getattr(importlib.import_module(f"nlgmetrics.cli.{module}"), name)(args) or 0)

    run.__name__ = name
    return run


cmd_list, cmd_reduce = _command("commands", "cmd_list"), _command("commands", "cmd_reduce")
cmd_meta_eval, cmd_demo = _command("meta_eval", "cmd_meta_eval"), _command("commands", "cmd_demo")
cmd_score, cmd_compare = _command("score", "cmd_score"), _command("compare", "cmd_compare")
cmd_rank = _command("rank", "cmd_rank")

_FLAGS_WITHOUT_VALUE = {"--json", "-q", "--quiet", "--distributed", "-h", "--help"}


def _metric_in(argv: Sequence[str]) -> Optional[str]:
    """The metric named after ``score``/``meta-eval`` (so its options can be added to the
    parser), or None."""
    if not argv or argv[0] not in ("score", "meta-eval", "compare"):
        return None
    for i, token in enumerate(argv[1:], start=1):
        prev = argv[i - 1]
        if token in registry.metric_names() and (i == 1 or not prev.startswith("-") or prev in _FLAGS_WITHOUT_VALUE):
            return token
    return None


def _metric_class(name: Optional[str]) -> Optional[type]:
    if name is None:
        return None
    try:
        return registry.scorer_class(name)
    except ValueError:
        return None  # the parser's choices give the error


def build_parser(metric: Optional[str] = None) -> Parser:
    """The parser; with ``metric``, ``score`` and ``meta-eval`` carry that metric's options."""
    cls = _metric_class(metric)
    parser = Parser(prog="nlgmetrics", description=(__doc__ or "").split("\n")[0], epilog=help_text.MAIN,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"nlgmetrics {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    sub.add_parser("list", help="list the metrics").set_defaults(func=cmd_list)
    _add_scoring_commands(sub, cls)
    _add_meta_eval(sub, cls)
    _add_rank(sub)
    _add_tool_commands(sub)
    return parser


def _common(p: Parser) -> None:
    """The arguments every per-metric command takes."""
    p.add_argument("metric", choices=registry.metric_names(),
                   help="the metric (nlgmetrics score METRIC --help lists its options)")
    p.add_argument("--json", action="store_true", help="print JSON (non-finite numbers as null)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")


def _add_scoring_commands(sub: Any, cls: Any) -> None:
    """``score``, ``compare`` and ``reduce``."""
    raw = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("score", help="score a hypothesis file", epilog=help_text.SCORE, formatter_class=raw)
    _common(p)
    add_score_arguments(p, cls)
    add_metric_options(p, cls)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("compare", help="is system B better than A? paired bootstrap and approximate randomisation")
    _common(p)
    add_compare_arguments(p, cls)
    add_metric_options(p, cls)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("reduce", help="merge shard records and print the corpus result")
    p.add_argument("records", nargs="+", help="records files written by score --shard")
    p.add_argument("--metric", help="the metric; with -o, the options the records were scored with "
                                    "(needed when the files' options name paths or models)")
    p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE", default=[],
                   help="an option of --metric, parsed by its type")
    p.add_argument("--json", action="store_true", help="print JSON (non-finite numbers as null)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars (reduce loads no model but "
                   "DATScore's, so it shows none otherwise)")
    p.set_defaults(func=cmd_reduce)


def _add_meta_eval(sub: Any, cls: Any) -> None:
    p = sub.add_parser("meta-eval", help="correlate a metric with human judgements (JSON lines or an mt-metrics-eval "
                       "EvalSet), optionally against a second metric",
                       epilog=help_text.META_EVAL, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(p)
    p.add_argument("data", nargs="?", help="JSON lines (.gz ok), one segment a row (or --mtme instead)")
    p.add_argument("--human", help="JSON lines: field with the human score (dots for nesting: human.quality); "
                   "--mtme: the human score name (mqm, wmt-z ...; default: the only one with a seg file)")
    add_extra_flags(p, cls, " of the JSON-lines file's rows, in order (not with --mtme)")  # as score's
    p.add_argument("--hyp-field", default="hyp", help="field with the output text (default: hyp)")
    p.add_argument("--ref-field", default="ref", help="field with the reference(s) (default: ref; a list for several)")
    p.add_argument("--src-field", default="src", help="field with the source (default: src)")
    p.add_argument("--system-field", default="system", help="field with the system name (default: system; "
                   "empty: no system level)")
    p.add_argument("--item-field", default="", help="field naming each row's item (the segment it translates) "
                   "for the item-level statistics and SPA (default: the source text, when the rows have sources)")
    p.add_argument("--mtme", metavar="DIR", help="an mt-metrics-eval test-set folder (sources/, references/, "
                   "system-outputs/, documents/, human-scores/) instead of a JSON-lines file")
    p.add_argument("--lp", help="with --mtme: the language pair SRC-TGT (e.g. de-en)")
    p.add_argument("--ref", help="with --mtme: the reference name (default: the only one)")
    p.add_argument("--mtme-items", choices=("document", "segment"), default="document",
                   help="with --mtme: the items of the item level and SPA (default: document when "
                   "documents/LP.docs exists, else segment)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the 95%% intervals "
                   "(default 1000; 0: no intervals)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the permutations (default 0)")
    p.add_argument("--permutations", type=int, default=1000,
                   help="permutations of SPA's significance tests and of the metric-vs-metric tests (default 1000)")
    p.add_argument("--darr-threshold", type=float, default=25.0,
                   help="DARR: the least human-score difference that makes a pair (default 25, WMT's on raw 0-100 DA)")
    p.add_argument("--against", metavar="METRIC|FILE", help="a second metric: a metric name (options with "
                   "--against-option) or an mt-metrics-eval METRIC-REF.seg.score file (with --mtme: that name in "
                   "metric-scores/LP/); prints both values, the difference, its 95%% interval and p-values")
    p.add_argument("--against-option", action="append", metavar="KEY=VALUE", default=[],
                   help="an option of the --against metric, parsed by its type")
    p.add_argument("--one-sided", action="store_true", help="with --against: one-sided p-values of 'this metric "
                   "is better than the other' (as mt-metrics-eval reports; default: two-sided)")
    p.add_argument("--limit", type=int, help="JSON lines: score only the first N rows")
    add_metric_options(p, cls)
    p.set_defaults(func=cmd_meta_eval)


def _add_rank(sub: Any) -> None:
    from nlgmetrics.cli.rank import add_rank_arguments

    p = sub.add_parser("rank", help="rank many metrics on an mt-metrics-eval EvalSet as the WMT metrics task does "
                       "(correlations, pairwise accuracy, acc*_eq, SPA; significance clusters)")
    add_rank_arguments(p)
    p.set_defaults(func=cmd_rank)


def _add_tool_commands(sub: Any) -> None:
    """``install-evaluate``, ``cards`` and ``demo``."""
    p = sub.add_parser("install-evaluate",
                       help="make evaluate.load('<name>') and evaluate.load('nlgmetrics/<name>') work offline")
    p.add_argument("names", nargs="*", help="metrics (default: all installed)")
    p.set_defaults(func=lambda a: _delegate("nlgmetrics.integrations.evaluate_install", a.names))

    p = sub.add_parser("cards", help="regenerate (or --check) the options table of each metric card")
    p.add_argument("names", nargs="*", help="metrics (default: all)")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table is out of date")
    p.set_defaults(func=lambda a: _delegate("nlgmetrics.cli.cards", a.names + (["--check"] if a.check else [])))

    p = sub.add_parser("demo", help="score a small bundled example with every metric that runs offline")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_demo)


def _delegate(module: str, argv: List[str]) -> int:
    """Run another module's ``main`` (install-evaluate, cards) with these arguments."""
    import importlib

    return int(importlib.import_module(module).main(argv) or 0)


#: the exit code of a command whose standard output was closed (128 + SIGPIPE, as git's)
BROKEN_PIPE_EXIT = 141


def _format_warning(message: Any, category: Any, filename: str, lineno: int, line: Optional[str] = None) -> str:
    """``warning: <message>`` on one line (no source path or code line), for the command line."""
    return "warning: " + (" ".join(str(message).split()) or category.__name__) + "\n"


def _quiet_stdout() -> None:
    """After a broken pipe: point the standard output at the null device so that the flush at
    exit does not fail again (Python's own advice for SIGPIPE)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (e.g. captured by tests)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; errors raise :class:`CLIError` (a ``SystemExit``) after printing
    one ``error:`` line. Warnings print as one ``warning:`` line while it runs; a closed
    standard output ends it quietly with exit code 141."""
    # the format only: a caller recording warnings (catch_warnings(record=True), pytest.warns)
    # still records them, which replacing showwarning would have bypassed
    previous = warnings.formatwarning
    warnings.formatwarning = _format_warning
    try:
        return _main(argv)
    finally:
        warnings.formatwarning = previous


def _parse(args_list: List[str]) -> Any:
    """Parse; an unknown flag after a metric points to that metric's ``--help`` (and to the
    nearest option name when one is close)."""
    import difflib

    metric = _metric_in(args_list)
    parser = build_parser(metric)
    args, unknown = parser.parse_known_args(args_list)
    if unknown:
        where = f"nlgmetrics {args_list[0]} {metric} --help" if metric else "nlgmetrics --help"
        cls: Any = _metric_class(metric)
        flags = [f"--{s.name.replace('_', '-')}" for s in cls.Config.specs()] if cls is not None else []
        close = difflib.get_close_matches(unknown[0].split("=")[0], flags, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise CLIError(f"unrecognized arguments: {' '.join(unknown)}{hint} (see: {where})")
    return args


def _silence_library_bars() -> None:
    """``--quiet``: no progress bar from transformers or the hub either (checkpoint loading).
    Neither is imported for this (1-2 s that a command scoring without models need not pay):
    the hub's environment switch, read when they are imported, or their own switches when
    something imported them already."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()


def _main(argv: Optional[Sequence[str]]) -> int:
    args_list: List[str] = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parse(args_list)
        if getattr(args, "quiet", False):
            _silence_library_bars()
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's flush at exit
        return code
    except BrokenPipeError:
        _quiet_stdout()
        raise CLIError("standard output closed", code=BROKEN_PIPE_EXIT) from None
    except CLIError as err:
        print_error(err)
        raise
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        raise CLIError("interrupted", code=130) from None
    except Exception as err:  # noqa: BLE001 - one line, not a traceback (NLGMETRICS_DEBUG=1 shows it)
        if os.environ.get("NLGMETRICS_DEBUG"):
            raise
        failure = CLIError(f"{type(err).__name__}: {err} (set NLGMETRICS_DEBUG=1 for the traceback)", code=1)
        print_error(failure)
        raise failure from None


__all__ = ["CLIError", "build_parser", "main"]

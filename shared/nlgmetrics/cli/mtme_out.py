"""``nlgmetrics score ... --mtme-out DIR``: the scores written as mt-metrics-eval metric score
files, ``DIR/metric-scores/LP/NAME-REF.seg.score`` (the system's segment scores) and
``.sys.score`` (the metric's own corpus score), other systems already there kept; written by
the package's one writer (:mod:`nlgmetrics.core.atomic`: names checked, inside DIR, atomic,
concurrent runs merged under a lock).

``nlgmetrics score METRIC --mtme EVALSET --lp LP [--ref NAME ...] [--ref-as-system]
--mtme-out DIR``: every system of an EvalSet scored for each reference
(:func:`nlgmetrics.workbench.score_evalset`: segment, document and system files; resumable;
``--shard K/N`` scores a part of the systems, and parts may run at once)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from nlgmetrics.cli.common import CLIError
from nlgmetrics.meta import mtme

#: the command line's names of write_metric_scores' arguments, for its errors
OPTION_NAMES = {"root": "--mtme-out", "lp": "--lp", "metric": "--metric-name", "ref": "--ref-name", "system": "--system"}


def add_mtme_out_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("mt-metrics-eval: an EvalSet scored, scores written in its layout")
    g.add_argument("--mtme", metavar="EVALSET", help="score every system of this mt-metrics-eval test-set folder "
                   "(with --lp and --mtme-out; instead of -p/-r/-s): each system for each reference, in "
                   "segment, document and system files; a system already written under the same signature "
                   "is skipped (resumable); --shard K/N scores a part of the systems")
    g.add_argument("--ref", action="append", metavar="NAME", help="with --mtme: the reference(s) to score against "
                   "(repeat; default: every reference of the language pair)")
    g.add_argument("--ref-as-system", action="store_true", help="with --mtme: also score each other reference "
                   "as a system of its name")
    g.add_argument("--mtme-out", metavar="DIR", help="also write DIR/metric-scores/LP/NAME-REF.seg.score and "
                   ".sys.score (mt-metrics-eval's layout; needs --lp, --system and --ref-name)")
    g.add_argument("--lp", help="with --mtme-out: the language pair SRC-TGT")
    g.add_argument("--system", help="with --mtme-out: the system these outputs are (no blanks)")
    g.add_argument("--ref-name", help="with --mtme-out: the reference's name (refA; 'src' for none), no '-'")
    g.add_argument("--metric-name", help="with --mtme-out: the metric's base name in the file name "
                   "(default: the metric), no '-' or '.'")


def check_mtme_out(args: argparse.Namespace) -> None:
    """Usage errors of --mtme-out, before anything loads."""
    if getattr(args, "mtme", None) is None and (getattr(args, "ref", None) or getattr(args, "ref_as_system", False)):
        raise CLIError(f"{'--ref' if args.ref else '--ref-as-system'} goes with --mtme EVALSET")
    given = [f for f in ("lp", "system", "ref_name", "metric_name") if getattr(args, f, None)]
    if not getattr(args, "mtme_out", None):
        if given:
            raise CLIError(f"--{given[0].replace('_', '-')} goes with --mtme-out DIR")
        return
    if args.shard:
        raise CLIError("--mtme-out writes whole systems; score without --shard (or reduce the shards first)")
    for flag in ("lp", "system", "ref_name"):
        if not getattr(args, flag):
            raise CLIError(f"--mtme-out needs --{flag.replace('_', '-')}")
    try:  # every name by the writer's one rule, before anything loads
        mtme.metric_score_paths(args.mtme_out, args.lp, args.metric_name or args.metric, args.ref_name,
                                systems=[args.system], options=OPTION_NAMES)
    except ValueError as err:
        raise CLIError(str(err)) from None


def write_mtme_out(args: argparse.Namespace, result: Any) -> None:
    if not getattr(args, "mtme_out", None) or result is None:
        return
    try:
        paths = mtme.write_metric_scores(args.mtme_out, args.lp, args.metric_name or args.metric, args.ref_name,
                                         {args.system: result.scores}, {args.system: result.score},
                                         options=OPTION_NAMES)
    except (ValueError, OSError) as err:
        message = str(err) if str(err).startswith("--mtme-out") else f"--mtme-out: {err}"
        raise CLIError(message, code=1) from None
    print(f"wrote {paths[0]} and {paths[1]}", file=sys.stderr)


def score_evalset(args: argparse.Namespace, call: Any) -> int:
    """``score METRIC --mtme EVALSET``: the EvalSet's systems scored by the resolved ``call``
    and written under ``--mtme-out`` (the metric's name in the files: ``--metric-name``, else
    the metric and the options given, :func:`nlgmetrics.workbench.file_name`)."""
    from nlgmetrics import workbench
    from nlgmetrics.core import files
    from nlgmetrics.integrations import distributed

    given = [flag for flag, dest in (("-p", "predictions"), ("-r", "references"), ("-s", "sources"),
                                     ("--system", "system"), ("--ref-name", "ref_name"), ("--records", "records"),
                                     ("--distributed", "distributed"))
             if getattr(args, dest, None)]
    given += [f"--{k[len('extra_'):].replace('_', '-')}" for k, v in vars(args).items() if k.startswith("extra_") and v]
    if given:
        raise CLIError(f"--mtme reads the outputs, references and sources from the EvalSet: give no {given[0]}")
    for flag in ("mtme_out", "lp"):
        if not getattr(args, flag, None):
            raise CLIError(f"--mtme needs --{flag.replace('_', '-')}")
    try:
        shard = distributed.parse_shard(args.shard) if args.shard else (1, 1)
    except ValueError as err:
        raise CLIError(f"--shard: {err}") from None
    name = args.metric_name or workbench.file_name(workbench.spec_of(call))
    try:
        done = workbench.score_evalset(call, args.mtme, args.lp, args.mtme_out, name=name, refs=args.ref,
                                       ref_as_system=args.ref_as_system, shard=shard, quiet=args.quiet,
                                       names={**OPTION_NAMES, "root": "--mtme-out"})
    except files.InputFileError as err:
        raise CLIError(str(err)) from None
    except ValueError as err:
        text = str(err)
        raise CLIError(text, code=2 if text.startswith(("--", args.mtme)) else 1) from None
    for paths in done.written.values():
        print(f"wrote {', '.join(paths)}", file=sys.stderr)
    if done.skipped:
        print(f"skipped {len(done.skipped)} systems already scored under {done.signature}", file=sys.stderr)
    return 0

"""``nlgmetrics score ... --mtme-out DIR``: the scores written as mt-metrics-eval metric score
files, ``DIR/metric-scores/LP/NAME-REF.seg.score`` (the system's segment scores) and
``.sys.score`` (the metric's own corpus score), other systems already there kept; written by
the package's one writer (:mod:`nlgmetrics.core.atomic`: names checked, inside DIR, atomic,
concurrent runs merged under a lock)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from nlgmetrics.cli.common import CLIError
from nlgmetrics.meta import mtme

#: the command line's names of write_metric_scores' arguments, for its errors
OPTION_NAMES = {"root": "--mtme-out", "lp": "--lp", "metric": "--metric-name", "ref": "--ref-name", "system": "--system"}


def add_mtme_out_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("mt-metrics-eval output")
    g.add_argument("--mtme-out", metavar="DIR", help="also write DIR/metric-scores/LP/NAME-REF.seg.score and "
                   ".sys.score (mt-metrics-eval's layout; needs --lp, --system and --ref-name)")
    g.add_argument("--lp", help="with --mtme-out: the language pair SRC-TGT")
    g.add_argument("--system", help="with --mtme-out: the system these outputs are (no blanks)")
    g.add_argument("--ref-name", help="with --mtme-out: the reference's name (refA; 'src' for none), no '-'")
    g.add_argument("--metric-name", help="with --mtme-out: the metric's base name in the file name "
                   "(default: the metric), no '-' or '.'")


def check_mtme_out(args: argparse.Namespace) -> None:
    """Usage errors of --mtme-out, before anything loads."""
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

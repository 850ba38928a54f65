"""``nlgmetrics compare``: is system B better than system A? Every system is scored once (or
read from saved records), then paired bootstrap resampling and paired approximate
randomisation, each resample re-running the metric's own corpus reduction
(:mod:`nlgmetrics.core.significance`).

    nlgmetrics compare sam -r refs.txt -p base.txt -p sysB.txt -p sysC.txt -o base=chrf
    nlgmetrics compare rome --records base.part1.jsonl,base.part2.jsonl --records sysB.jsonl -o profile=lite
"""
from __future__ import annotations

import argparse
import os
from typing import Any, Dict, List, Optional

from nlgmetrics.cli.common import CLIError, add_extra_flags, config_from_args, dumps, load_scorer, scorer_class
from nlgmetrics.cli.options import options_from_args
from nlgmetrics.cli.score import check_inputs, check_language
from nlgmetrics.core.inputs import check_seed
from nlgmetrics.core.significance import DEFAULT_RESAMPLES, DEFAULT_SEED, DEFAULT_TRIALS, compare_records
from nlgmetrics.integrations import distributed
from nlgmetrics.integrations.records_reader import load_records


def add_compare_arguments(p: argparse.ArgumentParser, cls: Optional[Any] = None) -> None:
    p.add_argument("-p", "--predictions", action="append", metavar="FILE", default=[],
                   help="one system's outputs, one per line; repeat for each system (the first is the baseline)")
    add_extra_flags(p, cls, ", one file per system in the order of -p", append=True)  # as score's
    p.add_argument("-r", "--references", action="append", metavar="FILE",
                   help="one reference per line (repeat for several)")
    p.add_argument("-s", "--sources", metavar="FILE", help="one source per line")
    p.add_argument("--records", action="append", metavar="FILE[,FILE...]", default=[],
                   help="instead of -p: one system's saved records (score --records), its shard files joined by "
                        "commas; repeat for each system")
    p.add_argument("--names", metavar="A,B,...", help="system names (default: the file names)")
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                   help=f"paired bootstrap resamples (default {DEFAULT_RESAMPLES}; 0: no intervals). Its p counts "
                        "resampled differences centred on 0 with |d_r - mean d| >= |d| (ties included: identical "
                        "systems get p = 1); sacrebleu counts strictly larger, uncentred ones")
    p.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                   help=f"approximate randomisation trials (default {DEFAULT_TRIALS}; 0: none)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    p.add_argument("--confidence", type=float, default=0.95, help="interval coverage (default 0.95)")


def _names(args: argparse.Namespace, labels: List[str]) -> List[str]:
    if not args.names:
        names = [os.path.basename(x.split(",")[0]) for x in labels]
        return names if len(set(names)) == len(names) else [f"{n} ({k + 1})" for k, n in enumerate(names)]
    names = [n.strip() for n in args.names.split(",")]
    if len(names) != len(labels) or len(set(names)) != len(names) or not all(names):
        raise CLIError(f"--names must give {len(labels)} different, non-empty names separated by commas")
    return names


def _from_records(args: argparse.Namespace) -> tuple[Any, Dict[str, List[Any]]]:
    """The scorer and each system's records from saved records files."""
    cls = scorer_class(args.metric)
    config = config_from_args(cls, args)  # checks -o and the flags before anything is read
    given = bool(args.option) or bool(options_from_args(args, cls.Config))
    options: Optional[Dict[str, Any]] = config.changed() if given else None
    systems: Dict[str, List[Any]] = {}
    scorer, first = None, None
    for name, group in zip(_names(args, args.records), args.records):
        paths = [p for p in group.split(",") if p]
        try:
            scorer_k, header, records = load_records(paths, args.metric, options, quiet=True)
        except ValueError as err:
            raise CLIError(str(err)) from None
        if first is None:
            scorer, first = scorer_k, header
        elif (header["metric"], header["options"], header["signature"], header["n_segments"]) != (
                first["metric"], first["options"], first["signature"], first["n_segments"]):
            raise CLIError(f"{paths[0]}: these records come from another metric configuration or corpus size than "
                           f"{args.records[0].split(',')[0]}; compare records of one configuration")
        systems[name] = records
    return scorer, systems


def _scored(args: argparse.Namespace) -> tuple[Any, Dict[str, List[Any]]]:
    """Score each system's file once (checked first, all of them, before anything loads)."""
    cls = scorer_class(args.metric)
    config = config_from_args(cls, args)
    extras = {k: v for k, v in vars(args).items() if k.startswith("extra_") and v}
    for key, paths in extras.items():
        if len(paths) != len(args.predictions):
            flag = "--" + key[len("extra_"):].replace("_", "-")
            raise CLIError(f"{flag} gives {len(paths)} file(s) for {len(args.predictions)} systems: one per -p, in order")
    checked = []
    for k, path in enumerate(args.predictions):  # each system with its own per-segment files
        one = argparse.Namespace(**{**vars(args), "predictions": path, **{key: v[k] for key, v in extras.items()}})
        checked.append(check_inputs(cls, one, config))
    if len({c.n for c in checked}) > 1:
        raise CLIError("the systems' files have different numbers of lines: "
                       + ", ".join(f"{c.predictions}: {c.n}" for c in checked))
    names = _names(args, args.predictions)
    check_language(cls, config, checked, names)  # as nlgmetrics.compare: each system's outputs, the references
    scorer = load_scorer(args.metric, config, quiet=args.quiet)
    systems: Dict[str, List[Any]] = {}
    for name, inputs in zip(names, checked):
        try:
            systems[name] = [r for recs in distributed.score_chunks(scorer, inputs.chunks(512)) for r in recs]
        except ValueError as err:
            raise CLIError(str(err), code=1) from None
    return scorer, systems


def cmd_compare(args: argparse.Namespace) -> int:
    if bool(args.predictions) == bool(args.records):
        raise CLIError("give the systems either as -p FILE (one per system) or as --records FILES (one per system)")
    count = len(args.predictions or args.records)
    if count < 2:
        raise CLIError(f"compare needs at least two systems (the baseline first), got {count}")
    if args.resamples < 0 or args.trials < 0:
        raise CLIError("--resamples and --trials must be 0 (skip that test) or positive")
    try:
        check_seed(args.seed, "--seed")
    except ValueError as err:
        raise CLIError(str(err)) from None
    if not 0 < args.confidence < 1:
        raise CLIError(f"--confidence must be between 0 and 1 (e.g. 0.95), got {args.confidence}")
    if args.records and (args.references or args.sources):
        raise CLIError("-r/-s go with -p; records files already hold what was scored")
    scorer, systems = _from_records(args) if args.records else _scored(args)
    try:
        result = compare_records(scorer, systems, resamples=args.resamples, trials=args.trials, seed=args.seed,
                                 confidence=args.confidence)
    except ValueError as err:
        raise CLIError(str(err), code=1) from None
    print(dumps(result.to_dict()) if args.json else str(result))
    return 0

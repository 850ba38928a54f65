"""``nlgmetrics list | reduce | demo`` (meta-eval: :mod:`nlgmetrics.cli.meta_eval`)."""
from __future__ import annotations

import argparse
from typing import Any, Dict, Optional

import nlgmetrics
from nlgmetrics.cli.common import CLIError, scorer_class, write_result
from nlgmetrics.cli.options import parse_key_values
from nlgmetrics.core.facts import facts_of
from nlgmetrics.examples import example
from nlgmetrics.integrations import distributed


def demo_options(name: str) -> Optional[Dict[str, Any]]:
    """The example's options with the first way to run offline that is installed here
    (the metric's FACTS), or None when none is."""
    options = example(name).options
    need = facts_of(nlgmetrics.scorer_class(name)).offline_need()
    if options is None or (need is None and name != "datscore"):
        return None  # DATScore runs offline only on a local checkpoint (NLGMETRICS_DATSCORE_MODEL)
    return {**options, **(need.options if need is not None else {})}


def cmd_list(args: argparse.Namespace) -> int:
    """One line per metric from its FACTS: what it is and, per profile, what it needs and
    whether that is installed here."""
    for name in nlgmetrics.list_metrics():
        try:
            line = facts_of(nlgmetrics.scorer_class(name)).line()
        except Exception as err:  # noqa: BLE001 - list the others; say why this one is out
            line = f"[not available: {type(err).__name__}: {err}]"
        print(f"{name:9s} {line}")
    return 0


def cmd_reduce(args: argparse.Namespace) -> int:
    """Records files are data: the metric and options come from ``--metric``/``-o`` or,
    without them, from the files when every option there is on the safe list."""
    options = None
    if args.metric:
        cls = scorer_class(args.metric)
        try:
            options = parse_key_values(args.option or [], cls.Config)
            cls.Config.from_options(**options)
        except ValueError as err:
            raise CLIError(str(err)) from None
    elif args.option:
        raise CLIError("-o needs --metric: give the metric whose options these are")
    try:
        result = distributed.reduce_files(args.records, args.metric, options, quiet=True)
    except ValueError as err:  # files.InputFileError included
        raise CLIError(str(err)) from None
    write_result(result, args.json)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    failures = 0
    for name in nlgmetrics.list_metrics():
        options = demo_options(name)
        if options is None:
            needs = "; ".join(n.describe() for n in facts_of(nlgmetrics.scorer_class(name)).needs)
            print(f"{name}: skipped, nothing installed runs it offline ({needs})")
            continue
        inputs = example(name).inputs
        try:
            result = nlgmetrics.load(name, quiet=args.quiet, **options).score(
                inputs["predictions"], inputs.get("references"), inputs.get("sources"))
        except Exception as err:  # noqa: BLE001 - report and go on with the next metric
            failures += 1
            print(f"{name}: FAILED ({type(err).__name__}: {err})")
            continue
        print(f"{name}: {result.score:.4f}  {result.signature}")
        for hyp, s in zip(inputs["predictions"], result.scores):
            print(f"    {s:9.4f}  {hyp[:70]}")
    return 1 if failures else 0

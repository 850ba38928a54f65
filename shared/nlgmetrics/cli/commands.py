"""``nlgmetrics list | reduce | demo`` (meta-eval: :mod:`nlgmetrics.cli.meta_eval`)."""
from __future__ import annotations

import argparse
from typing import Any, Dict, List, Optional, Tuple

from nlgmetrics import registry
from nlgmetrics.cli.common import CLIError, scorer_class, write_result
from nlgmetrics.cli.options import parse_key_values
from nlgmetrics.core.facts import facts_of
from nlgmetrics.integrations import distributed


def demo_plan(name: str) -> Tuple[Optional[Dict[str, Any]], str]:
    """The options ``nlgmetrics demo`` scores metric ``name`` with, and a line saying why:
    ``score``'s own defaults (``{}``) when what they need is installed here; else the first
    way to run offline that is: the example's options when its ``model_env`` names a local
    checkpoint (DATScore's NLGMETRICS_DATSCORE_MODEL), else the metric's FACTS, saying what the
    defaults need; ``None`` when nothing installed runs it offline."""
    cls = registry.scorer_class(name)
    facts = facts_of(cls)
    need = facts.need_of(cls.Config.from_options())
    if need is None or not need.missing():
        return {}, "score's defaults"
    local = registry.example(name).local_options()
    offline = facts.offline_need()
    fallback = local or (dict(offline.options) if offline is not None else None)
    why = f"the defaults ({need.label}) need {', '.join(need.missing())}"
    if fallback is None:
        return None, why
    return dict(fallback), f"{why}; shown with {' '.join(_flags(fallback))}"


def _flags(options: Dict[str, Any]) -> List[str]:
    return [f"--{k.replace('_', '-')} {v}" for k, v in options.items()]


def cmd_list(args: argparse.Namespace) -> int:
    """One line per metric from its FACTS: what it is and, per profile, what it needs and
    whether that is installed here."""
    for name in registry.list_metrics():
        try:
            line = registry.facts(name).line()  # the configuration's FACTS: no scorer imported
        except Exception as err:  # noqa: BLE001 - list the others; say why this one is out
            line = f"[not available: {type(err).__name__}: {err}]"
        print(f"{name:9s} {line}")
    return 0


def cmd_reduce(args: argparse.Namespace) -> int:
    """Records files are data: the metric and options come from ``--metric``/``-o`` or,
    without them, from the files when every option there is on the safe list."""
    call = None
    if args.metric:  # the caller's call, resolved once; the files must have been scored under it
        cls = scorer_class(args.metric)
        try:
            call = registry.resolve(args.metric, parse_key_values(args.option or [], cls.Config), check_extras=False)
        except ValueError as err:
            raise CLIError(str(err)) from None
    elif args.option:
        raise CLIError("-o needs --metric: give the metric whose options these are")
    try:
        result = distributed.reduce_files(args.records, call=call, quiet=args.quiet)
    except ValueError as err:  # files.InputFileError included
        raise CLIError(str(err)) from None
    write_result(result, args.json)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Each metric on its example with ``score``'s defaults where they run here (else the first
    offline way installed, saying so), with the ``nlgmetrics score`` command that gives the same
    numbers."""
    failures = 0
    for name in registry.list_metrics():
        options, why = demo_plan(name)
        if options is None:
            print(f"{name}: skipped, nothing installed runs it offline ({why})")
            continue
        inputs = registry.example(name).inputs
        try:
            call = registry.resolve(name, options)  # the front door, as every surface
            result = registry.load_call(call, quiet=args.quiet).score(
                inputs["predictions"], inputs.get("references"), inputs.get("sources"), **call.extras)
        except Exception as err:  # noqa: BLE001 - report and go on with the next metric
            failures += 1
            print(f"{name}: FAILED ({type(err).__name__}: {err})")
            continue
        print(f"{name}: {result.score:.4f}  {result.signature}")
        print(f"    {why}; the same with: nlgmetrics score {' '.join([name, *_flags(options)])} -p HYPS -r REFS")
        for hyp, s in zip(inputs["predictions"], result.scores):
            print(f"    {s:9.4f}  {hyp[:70]}")
    return 1 if failures else 0

"""``nlgmetrics list | reduce | meta-eval | demo``."""
from __future__ import annotations

import argparse
import math
from typing import Any, Dict, List, Optional, Tuple

import nlgmetrics
from nlgmetrics.cli.common import CLI_SYNTAX, CLIError, config_from_args, dumps, load_scorer, scorer_class, write_result
from nlgmetrics.cli.options import parse_key_values
from nlgmetrics.core import files, stats
from nlgmetrics.core.facts import facts_of
from nlgmetrics.core.meta_eval import meta_evaluate
from nlgmetrics.examples import example
from nlgmetrics.integrations import distributed


def demo_plan(name: str) -> Tuple[Optional[Dict[str, Any]], str]:
    """The options ``nlgmetrics demo`` scores metric ``name`` with, and a line saying why:
    ``score``'s own defaults (``{}``) when what they need is installed here; else the first
    way to run offline that is (the metric's FACTS), saying what the defaults need; ``None``
    when nothing installed runs it offline (DATScore: unless NLGMETRICS_DATSCORE_MODEL names a
    local checkpoint, the example's options)."""
    cls = nlgmetrics.scorer_class(name)
    facts = facts_of(cls)
    need = facts.need_of(cls.Config.from_options())
    if need is None or not need.missing():
        return {}, "score's defaults"
    local = example(name).options if name == "datscore" else None
    fallback = local if local else (facts.offline_need().options if facts.offline_need() is not None else None)
    why = f"the defaults ({need.label}) need {', '.join(need.missing())}"
    if fallback is None:
        return None, why
    return dict(fallback), f"{why}; shown with {' '.join(_flags(fallback))}"


def _flags(options: Dict[str, Any]) -> List[str]:
    return [f"--{k.replace('_', '-')} {v}" for k, v in options.items()]


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


def _human(row: files.Row, key: str, path: str) -> float:
    value = files.field(row, key, path)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise CLIError(f"{path}, line {row[0]}: human score {value!r} is not a number")
    try:
        number = float(value)  # an integer beyond the float range overflows
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise CLIError(f"{path}, line {row[0]}: human score {value!r:.40} is not a finite number")
    return number


def _check_meta_eval_args(cls: Any, config: Any, args: argparse.Namespace) -> None:
    """Usage errors of meta-eval, before anything loads."""
    try:  # e.g. SAM's base='given' needs per-segment base scores, which meta-eval cannot give
        cls.check_extra_names(config, (), CLI_SYNTAX)
    except ValueError as err:
        raise CLIError(f"{err}; meta-eval gives no per-segment inputs: score the file with "
                       "`nlgmetrics score` instead") from None
    if cls.references_mode == "required" and not args.ref_field:
        raise CLIError(f"--ref-field is empty, but {args.metric} needs references: name the field that holds them "
                       "(default: ref)")
    if args.bootstrap < 0:
        raise CLIError(f"--bootstrap must be a number of resamples, or 0 for no confidence intervals; got {args.bootstrap}")
    if args.permutations < 1:
        raise CLIError(f"--permutations must be a positive number, got {args.permutations}")
    if args.limit is not None and args.limit < 1:
        raise CLIError(f"--limit must be a positive number of rows, got {args.limit} (leave it out to score every row)")


def cmd_meta_eval(args: argparse.Namespace) -> int:
    cls = scorer_class(args.metric)
    config = config_from_args(cls, args)
    path = args.data
    _check_meta_eval_args(cls, config, args)
    try:
        rows: List[files.Row] = []
        for row in files.iter_jsonl(path):
            rows.append(row)
            if args.limit is not None and len(rows) >= args.limit:
                break
        if not rows:
            raise CLIError(f"{path} holds no rows")
        hyps = [files.text_field(r, args.hyp_field, path) for r in rows]
        refs = None
        if cls.references_mode != "none" and args.ref_field:
            refs = [files.text_field(r, args.ref_field, path, allow_list=True) if not _empty_list(r, args.ref_field)
                    else _raise(f"{path}, line {r[0]}: empty reference list") for r in rows]
            if not cls.multi_reference:
                for row, ref in zip(rows, refs):
                    if not isinstance(ref, str) and len(ref) > 1:
                        raise CLIError(f"{path}, line {row[0]}: {args.metric} takes one reference per segment; "
                                       f"the row's {args.ref_field!r} lists {len(ref)}")
                refs = [x if isinstance(x, str) else x[0] for x in refs]
        use_sources = args.src_field and (cls.sources_mode == "required" or (
            cls.sources_mode == "optional" and all(r[1].get(args.src_field) is not None for r in rows)))
        srcs = [files.text_field(r, args.src_field, path) for r in rows] if use_sources else None
        human = [_human(r, args.human, path) for r in rows]
        systems = _systems(rows, args.system_field, path) if args.system_field else [None] * len(rows)
        items = _items(rows, args)
    except files.InputFileError as err:
        raise CLIError(str(err)) from None
    scorer = load_scorer(args.metric, config, quiet=args.quiet)
    try:
        result = scorer.score(hyps, refs, srcs)
    except ValueError as err:
        raise CLIError(str(err), code=1) from None
    out: Dict[str, Any] = {"metric": args.metric, "signature": result.signature, "human": args.human,
                           **meta_evaluate(result.scores, human, systems, items, bootstrap=args.bootstrap,
                                           seed=args.seed, permutations=args.permutations)}
    kept = [s for s in systems if s is not None]
    if args.json:
        print(dumps(out))
        return 0
    print(f"{args.metric} vs {args.human} on {len(rows)} segments  ({result.signature})")
    for level in ("segment", "system"):
        for method, v in out[level].items():
            ci = f"  95% CI [{v['ci95'][0]:+.4f}, {v['ci95'][1]:+.4f}]" if v["ci95"] is not None else ""
            print(f"  {level:8s} {method:9s} {v['value']:+.4f}{ci}")
    _print_pairwise(out)
    if kept:
        print(f"  system level over {out['n_systems']} systems ({len(kept)} rows)")
    if not args.system_field:
        print("  (no system-level correlation: --system-field is empty)")
    elif not kept:
        print(f"  (no system-level correlation: no row has a system in {args.system_field!r})")
    elif len(kept) < len(rows):
        print(f"  (system level over {len(kept)} of {len(rows)} rows: {len(rows) - len(kept)} "
              f"have no system in {args.system_field!r} or null)")
    return 0


def _items(rows: List[files.Row], args: argparse.Namespace) -> List[Any]:
    """Each row's item (the segment it translates): ``--item-field`` (a string or an integer,
    None where missing), else the row's source text when every row has one, else None."""
    if args.item_field:
        out = []
        for row in rows:
            value = files.field(row, args.item_field, args.data, default=None)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
                raise CLIError(f"{args.data}, line {row[0]}: item {value!r:.60} in {args.item_field!r} is not a "
                               "string or an integer")
            out.append(value)
        return out
    sources = [r[1].get(args.src_field) for r in rows] if args.src_field else []
    return sources if sources and all(isinstance(x, str) for x in sources) else [None] * len(rows)


def _print_pairwise(out: Dict[str, Any]) -> None:
    """The pairwise and item-level lines of the text output."""
    pairwise, item = out["pairwise"], out["item"]
    if "pairwise_accuracy" in pairwise:
        v = pairwise["pairwise_accuracy"]
        print(f"  system   pairwise accuracy       {v['value']:.4f}  ({v['n_pairs']} system pairs)")
    if "soft_pairwise_accuracy" in pairwise:
        v = pairwise["soft_pairwise_accuracy"]
        print(f"  system   soft pairwise accuracy  {v['value']:.4f}  ({v['n_items']} items every system has, "
              f"{v['permutations']} permutations)")
    for method in stats.CORRELATIONS:
        if method in item:
            v = item[method]
            print(f"  item     {method:9s} {v['value']:+.4f}  (mean over {v['n_items']} items)")
    if "tie_calibrated_accuracy" in item:
        v = item["tie_calibrated_accuracy"]
        print(f"  item     acc*_eq   {v['value']:.4f}  (tie-calibrated pairwise accuracy, epsilon {v['epsilon']:.6g})")


def _systems(rows: List[files.Row], key: str, path: str) -> List[Any]:
    """Each row's system name (a string or an integer; a whole float such as 1.0 is the integer),
    or None where the row has none or null."""
    out = []
    for row in rows:
        value = files.field(row, key, path, default=None)
        if isinstance(value, float) and value.is_integer():  # pandas writes an integer column with gaps as floats
            value = int(value)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
            raise CLIError(f"{path}, line {row[0]}: system {value!r:.60} in {key!r} is not a string or "
                           "an integer")
        out.append(value)
    return out


def _empty_list(row: files.Row, key: str) -> bool:
    found = row[1].get(key, None)
    return isinstance(found, list) and not found


def _raise(message: str) -> Any:
    raise CLIError(message)


def cmd_demo(args: argparse.Namespace) -> int:
    """Each metric on its example with ``score``'s defaults where they run here (else the first
    offline way installed, saying so), with the ``nlgmetrics score`` command that gives the same
    numbers."""
    failures = 0
    for name in nlgmetrics.list_metrics():
        options, why = demo_plan(name)
        if options is None:
            print(f"{name}: skipped, nothing installed runs it offline ({why})")
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
        print(f"    {why}; the same with: nlgmetrics score {' '.join([name, *_flags(options)])} -p HYPS -r REFS")
        for hyp, s in zip(inputs["predictions"], result.scores):
            print(f"    {s:9.4f}  {hyp[:70]}")
    return 1 if failures else 0

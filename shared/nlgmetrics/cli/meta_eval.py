"""``nlgmetrics meta-eval``: a metric against human scores, from JSON lines or an
mt-metrics-eval EvalSet (``--mtme DIR --lp de-en``), optionally against a second metric
(``--against NAME`` with ``--against-option``, or an mt-metrics-eval ``.seg.score`` file)."""
from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from nlgmetrics.cli.common import CLI_SYNTAX, CLIError, config_from_args, dumps, extra_paths, load_scorer, read_extra_file, scorer_class
from nlgmetrics.cli.options import parse_key_values
from nlgmetrics.core import files, stats
from nlgmetrics.core.inputs import check_seed
from nlgmetrics.core.language import LanguageError
from nlgmetrics.meta import mtme
from nlgmetrics.meta.meta_eval import meta_evaluate
from nlgmetrics.meta.meta_system import SystemScores, mean_systems, score_systems


@dataclass
class Data:
    """The rows to meta-evaluate, whichever way they came."""

    label: str
    hyps: List[str]
    refs: Optional[List[Any]]
    srcs: Optional[List[str]]
    human: List[Optional[float]]
    systems: List[Any]
    items: List[Any]
    human_name: str
    notes: List[str]
    human_systems: Optional[Dict[str, float]] = None
    #: the metric's per-segment inputs, one value per row (``--base-scores FILE``)
    extras: Dict[str, List[float]] = field(default_factory=dict)


def _human(row: files.Row, key: str, path: str) -> Optional[float]:
    """The row's human score: a finite number, or None for ``null`` (missing: the row is still
    scored, as part of its system's corpus, and left out of the statistics). A row without
    the field is an error (a misspelt --human would otherwise leave every row out)."""
    value = files.field(row, key, path)
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise CLIError(f"{path}, line {row[0]}: human score {value!r:.40} is not a number")
    try:
        number = float(value)  # an integer beyond the float range overflows
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise CLIError(f"{path}, line {row[0]}: human score {value!r:.40} is not a finite number")
    return number


def _check_args(cls: Any, config: Any, args: argparse.Namespace) -> None:
    """Usage errors of meta-eval, before anything loads."""
    extras = extra_paths(args)
    if extras and args.mtme is not None:
        raise CLIError(f"{', '.join('--' + n.replace('_', '-') for n in extras)} gives one number per row of a "
                       "JSON-lines file; an EvalSet (--mtme) has none: meta-evaluate its rows as a JSON-lines file")
    try:  # e.g. SAM's base='given' needs per-segment base scores (--base-scores FILE)
        cls.check_extra_names(config, extras, CLI_SYNTAX)
    except ValueError as err:
        raise CLIError(str(err)) from None
    if (args.data is None) == (args.mtme is None):
        raise CLIError("give either a JSON-lines file or --mtme DIR (an mt-metrics-eval test-set folder), not both"
                       if args.data else "give a JSON-lines file, or --mtme DIR --lp SRC-TGT")
    if args.data is not None and os.path.isdir(args.data):
        raise CLIError(f"{args.data} is a folder: for an mt-metrics-eval EvalSet give --mtme {args.data} --lp SRC-TGT")
    if args.mtme is not None and not args.lp:
        raise CLIError("--mtme needs --lp, the language pair of the EvalSet (e.g. de-en)")
    if args.data is not None and not args.human:
        raise CLIError("--human is needed: the field with the human score (dots for nesting: human.quality)")
    if args.data is not None and cls.references_mode == "required" and not args.ref_field:
        raise CLIError(f"--ref-field is empty, but {args.metric} needs references: name the field that holds them "
                       "(default: ref)")
    if args.bootstrap < 0:
        raise CLIError(f"--bootstrap must be a number of resamples, or 0 for no confidence intervals; got {args.bootstrap}")
    if args.one_sided and not args.against:
        raise CLIError("--one-sided needs --against (it sets the sides of the metric-vs-metric p-values)")
    if args.against_option and not args.against:
        raise CLIError("--against-option sets an option of the second metric: it needs --against NAME "
                       f"(one of {', '.join(scorer_names())})")
    if args.against_option and args.against not in scorer_names():
        raise CLIError("--against-option needs --against to name a metric, not a score file")
    try:
        check_seed(args.seed, "--seed")
    except ValueError as err:
        raise CLIError(str(err)) from None
    if args.permutations < 1:
        raise CLIError(f"--permutations must be a positive number, got {args.permutations}")
    if args.limit is not None and args.limit < 1:
        raise CLIError(f"--limit must be a positive number of rows, got {args.limit} (leave it out to score every row)")
    if not args.darr_threshold > 0:
        raise CLIError(f"--darr-threshold must be > 0 (in the human score's units), got {args.darr_threshold}")


def _from_mtme(cls: Any, args: argparse.Namespace) -> Data:
    try:
        es = mtme.read_evalset(args.mtme, args.lp)
        rows = mtme.evalset_rows(es, args.ref, args.human, args.mtme_items)
    except ValueError as err:  # files.InputFileError included
        raise CLIError(str(err)) from None
    if cls.references_mode == "required" and rows.references is None:
        raise CLIError(f"{args.mtme}: no references/{args.lp}.NAME.txt, but {args.metric} needs references")
    notes = [f"EvalSet {args.mtme} {args.lp}, reference {rows.ref}, human scores {rows.human_name}"]
    if rows.left_out:
        notes.append(f"left out (no {rows.human_name} score): {', '.join(rows.left_out)}")
    refs = rows.references if cls.references_mode != "none" else None
    srcs = rows.sources if cls.sources_mode != "none" else None
    if rows.human_systems is not None:
        missing = sorted(set(rows.systems) - set(rows.human_systems))
        notes.append(f"system level against human-scores/{args.lp}.{rows.human_name}.sys.score, not the mean of "
                     "the segment scores" + (f"; left out there (no system score): {', '.join(missing)}" if missing
                                             else ""))
    return Data(f"{args.mtme} ({args.lp})", rows.predictions, refs, srcs, rows.human, list(rows.systems),
                list(rows.items), rows.human_name, notes, rows.human_systems)


def _from_jsonl(cls: Any, args: argparse.Namespace) -> Data:
    path = args.data
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
    notes = []
    nulls = sum(h is None for h in human)
    if nulls:
        notes.append(f"{nulls} row(s) with a null {args.human!r}: scored (their system's corpus score counts them), "
                     "left out of every statistic")
    kept = [s for s in systems if s is not None]
    if not args.system_field:
        notes.append("no system-level correlation: --system-field is empty")
    elif not kept:
        notes.append(f"no system-level correlation: no row has a system in {args.system_field!r}")
    elif len(kept) < len(rows):
        notes.append(f"system level over {len(kept)} of {len(rows)} rows: {len(rows) - len(kept)} "
                     f"have no system in {args.system_field!r} or null")
    return Data(path, hyps, refs, srcs, human, systems, items, args.human, notes)


def _score(name: str, config: Any, data: Data, quiet: bool) -> tuple[List[float], SystemScores, str]:
    scorer = load_scorer(name, config, quiet=quiet)
    try:
        scores, systems = score_systems(scorer, data.systems, data.hyps, data.refs, data.srcs, data.extras)
    except LanguageError as err:  # --language and text in another: an input error, as in score
        raise CLIError(str(err)) from None
    except ValueError as err:
        raise CLIError(str(err), code=1) from None
    return scores, systems, systems.signature


def _against(args: argparse.Namespace, data: Data) -> Optional[tuple[str, List[float], SystemScores]]:
    """The second metric's scores: a metric name (scored with --against-option), or an
    mt-metrics-eval segment score file (its .sys.score beside it, when there, for the system level)."""
    target = args.against
    if target is None:
        return None
    if target in scorer_names():
        from nlgmetrics import registry

        cls = scorer_class(target)
        try:  # the second metric's call, resolved once by the front door
            config = registry.resolve(target, parse_key_values(args.against_option or [], cls.Config)).config
        except ValueError as err:
            raise CLIError(f"--against-option: {err}") from None
        scores, systems, _ = _score(target, config, _for(cls, data), args.quiet)
        label = f"{target}[{','.join(args.against_option)}]" if args.against_option else target
        return label, scores, systems
    path = target
    if args.mtme and not os.path.exists(path):
        path = os.path.join(args.mtme, "metric-scores", args.lp, f"{target}.seg.score")
    if not os.path.isfile(path) or not path.endswith(".seg.score"):
        raise CLIError(f"--against {target!r}: neither a metric ({', '.join(scorer_names())}) nor a "
                       "METRIC-REF.seg.score file (with --mtme: a name in metric-scores/LP/)")
    try:
        seg = mtme.read_score_file(path, "seg", human=False)
        sys_path = path[:-len(".seg.score")] + ".sys.score"
        sys_file = mtme.read_score_file(sys_path, "sys", human=False) if os.path.exists(sys_path) else None
    except ValueError as err:
        raise CLIError(str(err)) from None
    return os.path.basename(path)[:-len(".seg.score")], *_file_scores(path, seg, sys_file, data)


def _file_scores(path: str, seg: mtme.Scores, sys_file: Optional[mtme.Scores], data: Data
                 ) -> tuple[List[float], SystemScores]:
    """The rows' scores from a segment score file: exactly one score per segment of each system
    the rows hold, in order (the k-th row of a system takes its k-th score); a system with
    more or fewer scores than segments is an error naming the file, the system and the counts."""
    rows: Dict[str, int] = {}
    for system in data.systems:
        rows[str(system)] = rows.get(str(system), 0) + 1
    for key, count in rows.items():
        found = len(seg.get(key) or [])
        if found != count:
            raise CLIError(f"{path}: {found} segment score(s) for system {key!r}, but {data.label} has {count} "
                           f"segment(s) of it; a score file for --against needs exactly one score per segment and "
                           "system")
    seen: Dict[str, int] = {}
    scores = []
    for system in data.systems:
        key = str(system)
        k = seen.get(key, 0)
        scores.append(float(seg[key][k]))  # type: ignore[arg-type]
        seen[key] = k + 1
    systems = mean_systems(scores, data.systems)
    if sys_file is not None:
        for name in systems.names:
            if name in sys_file and sys_file[name]:
                systems.corpus[name] = float(sys_file[name][0])  # type: ignore[arg-type]
    return scores, systems


def _for(cls: Any, data: Data) -> Data:
    """The rows as another metric takes them (no references or sources where it takes none)."""
    return Data(data.label, data.hyps, data.refs if cls.references_mode != "none" else None,
                data.srcs if cls.sources_mode != "none" else None, data.human, data.systems, data.items,
                data.human_name, data.notes, data.human_systems)


def scorer_names() -> List[str]:
    from nlgmetrics import registry

    return registry.metric_names()


def cmd_meta_eval(args: argparse.Namespace) -> int:
    cls = scorer_class(args.metric)
    config = config_from_args(cls, args)
    _check_args(cls, config, args)
    data = _from_mtme(cls, args) if args.mtme else _from_jsonl(cls, args)
    for name, path in extra_paths(args).items():
        values = read_extra_file(cls, config, name, path)
        if len(values) < len(data.hyps) or (args.limit is None and len(values) != len(data.hyps)):
            raise CLIError(f"{path} has {len(values)} lines but {data.label} has {len(data.hyps)} rows")
        data.extras[name] = values[:len(data.hyps)]
    if all(h is None for h in data.human):
        raise CLIError(f"{data.label}: no row has a human score")
    scores, systems, signature = _score(args.metric, config, data, args.quiet)
    options = dict(bootstrap=args.bootstrap, seed=args.seed, permutations=args.permutations)
    out: Dict[str, Any] = {"metric": args.metric, "signature": signature, "human": data.human_name,
                           **meta_evaluate(scores, data.human, data.systems, data.items, system_scores=systems,
                                           darr_threshold=args.darr_threshold, human_systems=data.human_systems,
                                           **options)}
    other = _against(args, data)
    if other is not None:
        from nlgmetrics.meta.metric_vs_metric import compare_metrics

        out["against"] = {"metric": other[0], **compare_metrics(
            scores, other[1], data.human, data.systems, data.items, systems, other[2], **options,
            alternative="greater" if args.one_sided else "two-sided", human_systems=data.human_systems)}
    out["notes"] = data.notes
    if args.json:
        print(dumps(out))
        return 0
    _print(args.metric, data, out)
    return 0


def _print(metric: str, data: Data, out: Dict[str, Any]) -> None:
    print(f"{metric} vs {data.human_name} on {out['n']} segments of {data.label}  ({out['signature']})")
    for level in ("segment", "system"):
        for method, v in out[level].items():
            ci = f"  95% CI [{v['ci95'][0]:+.4f}, {v['ci95'][1]:+.4f}]" if v["ci95"] is not None else ""
            value = f"{v['value']:+.4f}" if v["value"] == v["value"] else "  -    (undefined: a constant side)"
            print(f"  {level:8s} {method:9s} {value}{ci}")
    _print_pairwise(out)
    if out["system"]:
        print(f"  system level over {out['n_systems']} systems ({out['n_system_rows']} rows), each system's score "
              f"the metric's own corpus score, its human score {out['system_human']}")
    if out["n_unrated"]:
        print(f"  ({out['n_unrated']} rows without a human score left out)")
    for line in data.notes + out["warnings"]:
        print(f"  ({line})")
    print(f"  seed {out['seed']}, {out['bootstrap']} bootstrap resamples, {out['permutations']} permutations; "
          f"systems keyed by their {out['systems_keyed_by']}")
    if "against" in out:
        from nlgmetrics.meta.metric_vs_metric import format_comparison

        print(format_comparison(metric, out["against"]))


def _print_pairwise(out: Dict[str, Any]) -> None:
    """The pairwise and item-level lines of the text output."""
    pairwise, item = out["pairwise"], out["item"]
    if "pairwise_accuracy" in pairwise:
        v = pairwise["pairwise_accuracy"]
        print(f"  system   pairwise accuracy       {v['value']:.4f}  ({v['n_pairs']} system pairs)")
    if "soft_pairwise_accuracy" in pairwise:
        v = pairwise["soft_pairwise_accuracy"]
        if v["value"] is None:
            print(f"  system   soft pairwise accuracy  -       ({v['note']})")
        else:
            print(f"  system   soft pairwise accuracy  {v['value']:.4f}  ({v['n_items']} items every system has, "
                  f"{v['permutations']} permutations)")
    for method in stats.CORRELATIONS:
        if method in item:
            v = item[method]
            value = f"{v['value']:+.4f}" if v["value"] == v["value"] else "  -    "
            print(f"  item     {method:9s} {value}  (mean over {v['n_items']} items)")
    if "tie_calibrated_accuracy" in item:
        v = item["tie_calibrated_accuracy"]
        print(f"  item     acc*_eq   {v['value']:.4f}  (tie-calibrated pairwise accuracy over {v['n_items']} items, "
              f"epsilon {v['epsilon']:.6g})")
    if "darr" in item:
        v = item["darr"]
        value = "-" if v["value"] is None else f"{v['value']:+.4f}"
        print(f"  item     DARR      {value}  ({v['n_pairs']} pairs whose human scores differ by >= {v['threshold']:g})")


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

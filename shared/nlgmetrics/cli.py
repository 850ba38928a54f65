"""Command line: ``nlgmetrics list | score | meta-eval | demo``.

    nlgmetrics score sam -p hyp.txt -r ref.txt --json
    nlgmetrics meta-eval rome data.jsonl.gz --human human.quality --ref-field refs
    nlgmetrics demo
    nlgmetrics score rome -p hyp.txt -r ref.txt --shard 2/4 --records part2.jsonl
    nlgmetrics reduce part*.jsonl
    torchrun --nproc_per_node 2 -m nlgmetrics.cli score rome -p hyp.txt -r ref.txt --distributed
"""
from __future__ import annotations

import argparse
import gzip
import inspect
import json
import sys
from typing import Any, Dict, List, Optional, Sequence

import nlgmetrics
import nlgmetrics.core.models
from nlgmetrics import distributed
from nlgmetrics.core import stats


def _read_lines(path: str) -> List[str]:
    """One item per ``\n``-terminated line (a stray ``\r`` inside a line stays in it)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        text = fh.read()
    if text.endswith("\n"):
        text = text[:-1]
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")] if text else []


def _read_jsonl(path: str) -> List[Dict[str, Any]]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def scorer_options(name: str, args: argparse.Namespace) -> Dict[str, Any]:
    """Options for the scorer from the common flags and ``-o key=value``; a flag the metric
    does not take is an error naming the options it does take."""
    cls = nlgmetrics.scorer_class(name)
    params = inspect.signature(cls.__init__).parameters
    accepts_any = any(p.kind == p.VAR_KEYWORD for p in params.values())
    opts: Dict[str, Any] = {}
    for flag in ("profile", "batch_size", "device", "dtype"):
        value = getattr(args, flag, None)
        if value is not None:
            opts[flag] = value
    for item in getattr(args, "option", None) or []:
        if "=" not in item:
            raise SystemExit(f"-o expects key=value, got {item!r}")
        key, value = item.split("=", 1)
        opts[key.strip().replace("-", "_")] = _parse_value(value)
    if getattr(args, "quiet", False) and "quiet" in params:
        opts["quiet"] = True
    unknown = [k for k in opts if k not in params and not accepts_any]
    if unknown:
        known = ", ".join(p for p in params if p not in ("self", "args", "kwargs"))
        raise SystemExit(f"{name} does not take option(s) {', '.join(unknown)}; it takes: {known}")
    return opts


def _references_from_files(cls: Any, paths: Sequence[str], n: int) -> Optional[List[Any]]:
    if not paths:
        return None
    columns = [_read_lines(p) for p in paths]
    for p, col in zip(paths, columns):
        if len(col) != n:
            raise SystemExit(f"{p} has {len(col)} lines but the hypothesis file has {n}")
    if len(columns) == 1 and not cls.multi_reference:
        return columns[0]
    if not cls.multi_reference:
        raise SystemExit(f"{cls.name} takes one reference per segment; got {len(columns)} reference files")
    return [list(row) for row in zip(*columns)]


def cmd_list(args: argparse.Namespace) -> int:
    for name in nlgmetrics.list_metrics():
        cls = nlgmetrics.scorer_class(name)
        doc = (inspect.getdoc(cls) or "").splitlines()[0] if inspect.getdoc(cls) else ""
        offline = "offline" if cls.demo_options is not None else "needs a hub model"
        print(f"{name:10s} {doc}  [{offline}]")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    cls = nlgmetrics.scorer_class(args.metric)
    hyps = _read_lines(args.predictions)
    refs = _references_from_files(cls, args.references or [], len(hyps))
    srcs = _read_lines(args.sources) if args.sources else None
    if srcs is not None and len(srcs) != len(hyps):
        raise SystemExit(f"{args.sources} has {len(srcs)} lines but the hypothesis file has {len(hyps)}")
    options = scorer_options(args.metric, args)
    score_kwargs = _base_scores(args, len(hyps))
    try:
        scorer = nlgmetrics.load(args.metric, **options)
        if score_kwargs and (args.shard or args.records or args.distributed):
            raise SystemExit("--base-scores cannot be combined with --shard/--records/--distributed")
        if args.shard or args.records:
            if not (args.shard and args.records):
                raise SystemExit("--shard and --records go together")
            shard = distributed.parse_shard(args.shard)
            records = distributed.score_shard(scorer, hyps, refs, srcs, shard=shard)
            path = distributed.write_records(args.records, args.metric, options, scorer, records,
                                             n_segments=len(hyps), shard=shard)
            print(f"wrote {len(records)} records of shard {args.shard} to {path}", file=sys.stderr)
            return 0
        if args.distributed:
            distributed.init_distributed()
            result = distributed.score_distributed(scorer, hyps, refs, srcs, all_ranks=False)
            if result is None:  # not rank 0
                return 0
        else:
            result = scorer.score(hyps, refs, srcs, **score_kwargs)
    except (ValueError, FileNotFoundError, nlgmetrics.core.models.ModelUnavailableError) as err:
        raise SystemExit(f"error: {err}")
    _print_result(result, args.json)
    return 0


def _base_scores(args: argparse.Namespace, n: int) -> Dict[str, Any]:
    """``--base-scores FILE`` (one number per line) for metrics that adjust given scores."""
    if not getattr(args, "base_scores", None):
        return {}
    cls = nlgmetrics.scorer_class(args.metric)
    if "base_scores" not in inspect.signature(cls.score).parameters:
        raise SystemExit(f"{args.metric} takes no base scores")
    lines = _read_lines(args.base_scores)
    if len(lines) != n:
        raise SystemExit(f"{args.base_scores} has {len(lines)} lines but the hypothesis file has {n}")
    try:
        return {"base_scores": [float(x) for x in lines]}
    except ValueError as err:
        raise SystemExit(f"{args.base_scores}: {err}")


def _print_result(result: Any, as_json: bool) -> None:
    if as_json:
        print(result.to_json(segments=True))
    else:
        print(f"{result.score:.4f}\t{result.signature}")


def cmd_reduce(args: argparse.Namespace) -> int:
    try:
        result = distributed.reduce_files(args.records)
    except ValueError as err:
        raise SystemExit(f"error: {err}")
    _print_result(result, args.json)
    return 0


def _field(row: Dict[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            raise SystemExit(f"field {path!r} not found in row {row.get('id', '?')}")
        value = value[part]
    return value


def cmd_meta_eval(args: argparse.Namespace) -> int:
    rows = _read_jsonl(args.data)
    if args.limit:
        rows = rows[: args.limit]
    cls = nlgmetrics.scorer_class(args.metric)
    hyps = [_field(r, args.hyp_field) for r in rows]
    refs = None
    if cls.references_mode != "none" and args.ref_field:
        refs = [_field(r, args.ref_field) for r in rows]
        if not cls.multi_reference:
            for r, x in zip(rows, refs):
                if not isinstance(x, str) and not x:
                    raise SystemExit(f"row {r.get('id', '?')} has an empty reference list")
            refs = [x if isinstance(x, str) else x[0] for x in refs]
    use_sources = args.src_field and (cls.sources_mode == "required" or (
        cls.sources_mode == "optional" and all(r.get(args.src_field) is not None for r in rows)))
    srcs = [_field(r, args.src_field) for r in rows] if use_sources else None
    human = []
    for r in rows:
        value = _field(r, args.human)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise SystemExit(f"row {r.get('id', '?')}: human score {value!r} is not a number")
        human.append(float(value))
    try:
        scorer = nlgmetrics.load(args.metric, **scorer_options(args.metric, args))
        result = scorer.score(hyps, refs, srcs)
    except (ValueError, FileNotFoundError, nlgmetrics.core.models.ModelUnavailableError) as err:
        raise SystemExit(f"error: {err}")
    out: Dict[str, Any] = {"metric": args.metric, "signature": result.signature, "n": len(rows),
                           "human": args.human, "segment": {}, "system": {}}
    for method, fn in stats.CORRELATIONS.items():
        value = fn(result.scores, human)
        lo, hi = stats.bootstrap_ci(fn, result.scores, human, n_resamples=args.bootstrap, seed=args.seed)
        out["segment"][method] = {"value": value, "ci95": [lo, hi]}
    if args.system_field and all(args.system_field in r and r[args.system_field] is not None for r in rows):
        systems = [r[args.system_field] for r in rows]
        for method, fn in stats.CORRELATIONS.items():
            def sys_corr(m, h, s, _method=method):
                return stats.system_correlation(m, h, s, _method)
            value = sys_corr(result.scores, human, systems)
            lo, hi = stats.bootstrap_ci(sys_corr, result.scores, human, systems,
                                        n_resamples=args.bootstrap, seed=args.seed)
            out["system"][method] = {"value": value, "ci95": [lo, hi]}
        out["n_systems"] = len(set(systems))
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{args.metric} vs {args.human} on {len(rows)} segments  ({result.signature})")
    for level in ("segment", "system"):
        for method, v in out[level].items():
            print(f"  {level:8s} {method:9s} {v['value']:+.4f}  95% CI [{v['ci95'][0]:+.4f}, {v['ci95'][1]:+.4f}]")
    if not out["system"]:
        print("  (no system-level correlation: rows have no system field)")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    failures = 0
    for name in nlgmetrics.list_metrics():
        cls = nlgmetrics.scorer_class(name)
        if cls.demo_options is None:
            print(f"{name}: skipped (needs a hub checkpoint; pass a local model path to run it offline)")
            continue
        example = cls.demo_inputs
        options = dict(cls.demo_options)
        if "quiet" in inspect.signature(cls.__init__).parameters:
            options["quiet"] = args.quiet
        try:
            result = nlgmetrics.load(name, **options).score(
                example["predictions"], example.get("references"), example.get("sources"))
        except Exception as err:  # noqa: BLE001 - report and go on with the next metric
            failures += 1
            print(f"{name}: FAILED ({type(err).__name__}: {err})")
            continue
        print(f"{name}: {result.score:.4f}  {result.signature}")
        for hyp, s in zip(example["predictions"], result.scores):
            print(f"    {s:9.4f}  {hyp[:70]}")
    return 1 if failures else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nlgmetrics", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"nlgmetrics {nlgmetrics.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="list the metrics").set_defaults(func=cmd_list)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("metric", choices=sorted(nlgmetrics.REGISTRY))
        p.add_argument("--profile", help="lite (offline) or paper, for metrics with profiles")
        p.add_argument("--batch-size", dest="batch_size", type=int)
        p.add_argument("--device", help="auto, cpu, cuda, cuda:1, mps")
        p.add_argument("--dtype", choices=["fp32", "bf16", "fp16"])
        p.add_argument("-o", "--option", action="append", metavar="KEY=VALUE",
                       help="any other scorer option (value parsed as JSON when it can be)")
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")

    p = sub.add_parser("score", help="score a hypothesis file")
    common(p)
    p.add_argument("-p", "--predictions", required=True, help="one hypothesis per line")
    p.add_argument("-r", "--references", action="append", help="one reference per line (repeat for several)")
    p.add_argument("-s", "--sources", help="one source per line")
    p.add_argument("--base-scores", dest="base_scores", metavar="FILE",
                   help="one base score per line, for SAM with -o base=given")
    p.add_argument("--shard", metavar="K/N", help="score only shard K of N (round-robin segments)")
    p.add_argument("--records", metavar="OUT.jsonl", help="write the shard's per-segment records here")
    p.add_argument("--distributed", action="store_true",
                   help="data-parallel over torch.distributed ranks (launch with torchrun)")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("reduce", help="merge shard records and print the corpus result")
    p.add_argument("records", nargs="+", help="records files written by score --shard")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_reduce)

    p = sub.add_parser("meta-eval", help="correlate a metric with human judgements in a JSONL file")
    common(p)
    p.add_argument("data", help="JSON lines (.gz ok), one segment a row")
    p.add_argument("--human", required=True, help="field with the human score (dots for nesting: human.quality)")
    p.add_argument("--hyp-field", default="hyp")
    p.add_argument("--ref-field", default="ref")
    p.add_argument("--src-field", default="src")
    p.add_argument("--system-field", default="system")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the 95%% CIs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--limit", type=int, help="score only the first N rows")
    p.set_defaults(func=cmd_meta_eval)

    p = sub.add_parser("demo", help="score a small bundled example with every metric that runs offline")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

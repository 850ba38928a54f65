"""``nlgmetrics rank --mtme EVALSET --lp LP METRIC[:option=value,...] ...``: the metrics-task
table of several metrics on an EvalSet (:func:`nlgmetrics.workbench.rank`): published metrics
read from its ``metric-scores/``, this package's metrics (and the bleu, chrf and bertscore
baselines) scored first where not yet; per metric and level the correlations, pairwise
accuracy, acc*_eq and SPA, and per ranked statistic the rank clusters from pairwise Perm-Both
tests (mt-metrics-eval's ComputeSigMatrix and AssignRanks). ``--json``, ``--csv`` and
``--figure`` write through the package's one writer."""
from __future__ import annotations

import argparse
import csv
import io
import sys
from typing import Any, List

from nlgmetrics.cli.common import CLIError

LEVELS = ("seg", "sys", "item")


def add_rank_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("metrics", nargs="+", metavar="METRIC[:option=value,...]",
                   help="metrics to rank: a published metric's name in the EvalSet's metric-scores/ (BLEU, COMET-22), "
                        "or a metric of this package with its options (sam:base=chrf, rome:profile=lite, bleu, chrf, "
                        "bertscore:profile=lite), scored first where its files do not hold every system")
    p.add_argument("--mtme", metavar="EVALSET", required=True, help="an mt-metrics-eval test-set folder")
    p.add_argument("--lp", required=True, help="the language pair SRC-TGT (e.g. de-en)")
    p.add_argument("--ref", help="the reference the metrics use (default: the only one); it is no system")
    p.add_argument("--human", help="the human score name (mqm, wmt-z ...; default: the only one with a seg file)")
    p.add_argument("--level", action="append", choices=LEVELS, metavar="seg|sys|item",
                   help="rank by the statistics of this level (repeat; default: WMT23-25's: sys SPA, sys pairwise "
                        "accuracy, sys and seg Pearson, item acc*_eq)")
    p.add_argument("--statistic", action="append", metavar="LEVEL.NAME",
                   help="rank by this statistic (repeat; e.g. seg.kendall, item.tie_calibrated_accuracy)")
    p.add_argument("--resamples", type=int, default=1000, help="Perm-Both draws per pair of metrics (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the permutation draws and the bootstrap (default 0)")
    p.add_argument("--pval", type=float, default=0.05, help="the p-value that separates rank clusters (default 0.05)")
    p.add_argument("--bootstrap", type=int, default=0,
                   help="bootstrap resamples for 95%% intervals of segment-level statistics (default 0: none)")
    p.add_argument("--mtme-out", metavar="DIR", help="where this package's metrics' score files go (default: the "
                   "EvalSet folder, beside the published ones)")
    p.add_argument("--json", metavar="FILE", help="write the whole result as JSON")
    p.add_argument("--csv", metavar="FILE", help="write one row per metric and statistic")
    p.add_argument("--figure", metavar="FILE.png|FILE.svg", help="draw the first ranked statistic (needs matplotlib)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")


def _ranked(args: argparse.Namespace) -> Any:
    from nlgmetrics.meta.rank import DEFAULT_RANKED
    from nlgmetrics.meta.rank_sig import STATISTICS

    keys: List[str] = list(args.statistic or [])
    unknown = [k for k in keys if k not in STATISTICS]
    if unknown:
        raise CLIError(f"--statistic {unknown[0]!r}: choose from {', '.join(STATISTICS)}")
    for level in args.level or []:  # the level's statistics among WMT's ranked ones
        keys += [k for k in DEFAULT_RANKED if k.startswith(level + ".") and k not in keys]
    return tuple(keys) if keys else DEFAULT_RANKED


def _csv_text(result: Any) -> str:
    from nlgmetrics.meta.rank_report import csv_rows

    columns, rows = csv_rows(result)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def cmd_rank(args: argparse.Namespace) -> int:
    from nlgmetrics import workbench
    from nlgmetrics.core import atomic, files
    from nlgmetrics.meta.rank_report import format_table, to_json

    if args.resamples < 0 or args.bootstrap < 0 or not 0 < args.pval < 1:
        raise CLIError("--resamples and --bootstrap must be >= 0 and --pval in (0, 1)")
    if args.figure and not args.figure.lower().endswith((".png", ".svg")):
        raise CLIError(f"--figure {args.figure!r}: name a .png or .svg file")
    ranked = _ranked(args)
    try:
        result = workbench.rank(args.mtme, args.lp, args.metrics, ref=args.ref, human=args.human, out=args.mtme_out,
                                quiet=args.quiet, ranked=ranked, k=args.resamples, seed=args.seed, pval=args.pval,
                                bootstrap=args.bootstrap)
    except files.InputFileError as err:
        raise CLIError(str(err)) from None
    except ValueError as err:
        raise CLIError(str(err), code=2) from None
    outputs = []
    if args.json:
        outputs.append((args.json, to_json(result).encode("utf-8"), "--json"))
    if args.csv:
        outputs.append((args.csv, _csv_text(result).encode("utf-8"), "--csv"))
    if args.figure:
        from nlgmetrics.meta.rank_figure import rank_figure

        try:
            picture = rank_figure(result, ranked[0], args.figure.rsplit(".", 1)[1].lower())
        except ImportError as err:
            raise CLIError(str(err), code=1) from None
        outputs.append((args.figure, picture, "--figure"))
    for path, data, flag in outputs:
        try:
            atomic.write_file(path, data, flag)
        except (ValueError, OSError) as err:
            raise CLIError(f"{flag}: {err}", code=1) from None
        print(f"wrote {path}", file=sys.stderr)
    print(format_table(result))
    return 0

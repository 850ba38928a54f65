"""The metrics-task workflow end to end (issue 46): an EvalSet built from ../shared/data's WMT21
to-English rows in mt-metrics-eval's exact layout (4 systems x 120 segments, de-en, one
reference, DA z-scores as the human scores, documents of 10 segments), every metric scored into
it with ``nlgmetrics score METRIC --mtme`` (as :func:`nlgmetrics.workbench.score_evalset`), then
``nlgmetrics rank`` over the five metrics and three baselines, with the figure. Time per metric
and in total (aim: under 5 minutes on 2 cores).

    python benchmarks/workbench.py [--segments 120] [--keep DIR]

DATScore runs a random tiny M2M-100 (tests/tiny_models.py): the paper's m2m100_418M is not
available offline, so its row is timing only, not quality. Writes results/workbench.json and
results/workbench.png (the figure the README shows)."""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from common import RESULTS, SHARED_DATA, table, write_results  # noqa: E402
from wmt21_evalset import FILE, SYSTEMS, read_rows, write_evalset  # noqa: E402

LP = "de-en"


def build_evalset(root: Path, n: int) -> None:
    """The first ``n`` de-en segments (single-line sources) that every system of SYSTEMS has, in
    documents of 10 segments."""
    rows = read_rows(SHARED_DATA / FILE, LP, n)
    write_evalset(root, rows, LP, documents=[f"news doc{k // 10}" for k in range(len(rows))], ref_as_output=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=120)
    parser.add_argument("--keep", metavar="DIR", help="build the EvalSet here and keep it")
    args = parser.parse_args()
    from tiny_models import build_tiny_m2m100

    from nlgmetrics import workbench
    from nlgmetrics.meta.rank_figure import rank_figure
    from nlgmetrics.meta.rank_report import format_table

    work = Path(args.keep or tempfile.mkdtemp(prefix="workbench-"))
    root = work / "wmt21sub"
    if root.exists():
        shutil.rmtree(root)
    build_evalset(root, args.segments)
    tiny = build_tiny_m2m100(work / "tiny-m2m100")
    specs = [f"datscore:model={tiny},source_lang=de,target_lang=en", "rome:profile=lite", "discotk:variant=party", "texteval", "sam:base=chrf",
             "bleu", "chrf", "bertscore:profile=lite"]
    shown = {specs[0]: "datscore:model=<tiny random M2M-100>"}
    rows, total = [], 0.0
    for spec in specs:
        call = workbench.resolve_spec(spec)
        start = time.perf_counter()
        done = workbench.score_evalset(call, str(root), LP, str(root), name=workbench.file_name(workbench.spec_of(call)),
                                       quiet=True)
        seconds = time.perf_counter() - start
        total += seconds
        rows.append([shown.get(spec, spec), len(done.scored), round(seconds, 1)])
        print(f"{spec}: {seconds:.1f} s", flush=True)
    start = time.perf_counter()  # every metric is scored: rank reads their files (each system skipped)
    result = workbench.rank(str(root), LP, specs, k=1000, seed=0, quiet=True)
    rank_seconds = time.perf_counter() - start
    total += rank_seconds
    rows.append(["rank (8 metrics, 1,000 Perm-Both draws per pair)", "", round(rank_seconds, 1)])
    rows.append(["total", "", round(total, 1)])
    for ranking in result["rankings"].values():  # the tiny model's path is no name for a figure
        ranking["metrics"] = [shown.get(m, m) for m in ranking["metrics"]]
    result["metrics"] = {shown.get(m, m): v for m, v in result["metrics"].items()}
    (RESULTS / "workbench.png").write_bytes(rank_figure(result, "seg.pearson", "png"))
    print(format_table(result))
    ranking = result["rankings"]["seg.pearson"]
    write_results("workbench", [
        table(f"The workflow on {len(SYSTEMS)} systems x {args.segments} segments ({LP}, WMT21, 2 cores)",
              ["step", "systems scored", "seconds"], rows,
              "each metric: `score METRIC --mtme` into the EvalSet; then `rank` over all eight"),
        table("Segment-level Pearson ranking (rank = significance cluster, p < 0.05)", ["metric", "value", "rank"],
              [[m, round(v, 4), r] for m, v, r in zip(ranking["metrics"], ranking["values"], ranking["ranks"])]),
    ], notes=["DATScore ran a random tiny M2M-100 (timing only; its correlation means nothing)",
              "figure: results/workbench.png"])
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

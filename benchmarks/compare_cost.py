"""What comparing systems costs next to scoring them: 3 systems x 1,000 into-English WMT21
segments (../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz), for the cheap metrics (TextEval
with tags, document rating and scaling against the two references, ref and HUMAN; SAM on chrF;
DiscoTK-light with per-test-set normalisation).

The 1,000 segments: the rows, in file order, that have a reference, a second human reference
(system HUMAN, reference B) and outputs of all three systems Online-A, Online-W and Online-Y
(the anonymised online systems, the same three in every language pair): all 959 such de-en
rows, then the first 41 cs-en rows (de-en alone has only 976 rows with HUMAN). The result's
"Segments" table says how many rows of each pair.

For each metric, in one process: (1) scoring, each system's segments scored once
(``score_segments``, the work ``compare`` does, and the only time a segment is scored), then
(2) the paired bootstrap (1,000 resamples, every resample re-running the metric's own corpus
reduction on the records) and (3) paired approximate randomisation (10,000 trials per system
against the baseline), each timed apart (CPU time of the process, building the resamplers
included; an untimed full garbage collection before each), then ``compare_records`` with the bootstrap only, whose resampled scores must equal
(2)'s. The metric is loaded and warmed on 8 segments first, untimed. The result: seconds and
each test's cost as a percentage of scoring, the systems' corpus scores, and the machine's
1-minute load average before and after (the machine is shared: compare ratios within a run).

    nice python benchmarks/compare_cost.py [--segments 1000 --resamples 1000 --trials 10000]
"""
from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

import nlgmetrics  # noqa: E402
from nlgmetrics.core.significance import compare_records, paired_bootstrap, paired_randomization  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import RESULTS, SHARED_DATA, machine, markdown_table, table  # noqa: E402

DATA = SHARED_DATA / "wmt21_da_seg_toen_grouped.jsonl.gz"
SYSTEMS = ("Online-A", "Online-W", "Online-Y")
#: language pairs in the order their rows are taken
PAIRS = ("de-en", "cs-en", "ru-en")
METRICS: Dict[str, Dict[str, Any]] = {
    "texteval": {"approach": "scaling"},
    "sam": {"base": "chrf"},
    "discotk": {"variant": "light"},
}


def corpus(n: int) -> Tuple[List[str], List[str], List[List[str]], Dict[str, int]]:
    """The first ``n`` rows (de-en, then cs-en, then ru-en; file order within a pair) with a
    reference, a second reference (system HUMAN) and the outputs of :data:`SYSTEMS`:
    references, second references (TextEval's standard set is both), outputs, rows per pair."""
    rows: Dict[str, List[Dict[str, Any]]] = {lp: [] for lp in PAIRS}
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row.get("lp") in rows and row.get("ref") and all(s in row["hyps"] for s in (*SYSTEMS, "HUMAN")):
                rows[row["lp"]].append(row)
    chosen = [row for lp in PAIRS for row in rows[lp]][:n]
    per_pair = {lp: sum(row["lp"] == lp for row in chosen) for lp in PAIRS}
    outputs = [[row["hyps"][s]["hyp"] for row in chosen] for s in SYSTEMS]
    return ([row["ref"] for row in chosen], [row["hyps"]["HUMAN"]["hyp"] for row in chosen], outputs,
            {lp: k for lp, k in per_pair.items() if k})


def cpu() -> float:
    """CPU seconds of this process, all its threads (finer than ``os.times``' clock ticks)."""
    return time.process_time()


def start_clock() -> float:
    """:func:`cpu` after an untimed full garbage collection, so that no timed block pays for
    the heap the ones before it left (scoring three metrics leaves a large one)."""
    gc.collect()
    return cpu()


def measure(name: str, options: Dict[str, Any], refs: List[str], second: List[str], outputs: List[List[str]],
            resamples: int, trials: int) -> Dict[str, Any]:
    scorer = nlgmetrics.load(name, quiet=True, **options)
    refs_in: Any = [list(pair) for pair in zip(refs, second)] if name == "texteval" else refs
    scorer.score(outputs[0][:8], refs_in[:8])  # load and warm
    start = start_clock()
    records = [scorer.score_segments(scorer.validate(out, refs_in)) for out in outputs]
    scoring = cpu() - start
    n = len(refs)
    start = start_clock()
    samples = paired_bootstrap([scorer.resampler(r) for r in records], n, resamples)
    bootstrap = cpu() - start
    start = start_clock()
    for k in range(1, len(records)):
        paired_randomization(scorer.resampler(records[0] + records[k]), n, trials)
    randomization = cpu() - start
    start = start_clock()
    result = compare_records(scorer, records, resamples=resamples, trials=0)
    compare_bs = cpu() - start
    assert np.allclose(result.samples, samples, equal_nan=True)
    return {"options": options, "signature": result.signature, "scoring_s": scoring, "bootstrap_s": bootstrap,
            "randomization_s": randomization, "compare_records_bootstrap_s": compare_bs,
            "scores": [s.score for s in result.systems]}


def tables(results: Dict[str, Dict[str, Any]], per_pair: Dict[str, int], resamples: int, trials: int) -> List[Any]:
    cost = table(
        f"Cost of compare next to scoring (CPU seconds; {resamples} resamples, {trials} trials per pair)",
        ["metric", "options", "scoring s", "bootstrap s", "bootstrap / scoring %", "randomisation s",
         "randomisation / scoring %", "compare_records bootstrap s"],
        [[name, ", ".join(f"{k}={v}" for k, v in r["options"].items()), round(r["scoring_s"], 2),
          round(r["bootstrap_s"], 3), round(100 * r["bootstrap_s"] / r["scoring_s"], 2), round(r["randomization_s"], 3),
          round(100 * r["randomization_s"] / r["scoring_s"], 2), round(r["compare_records_bootstrap_s"], 3)]
         for name, r in results.items()],
        "Scoring: each system's segments scored once. Randomisation: the two pairs (Online-W and Online-Y "
        "against the baseline Online-A) together.")
    scores = table("Corpus scores of the systems", ["metric", *SYSTEMS],
                   [[name, *(round(float(v), 4) for v in r["scores"])] for name, r in results.items()])
    segments = table("Segments (WMT21 into English, rows with ref, HUMAN and the three systems)",
                     ["language pair", "segments"], [[lp, k] for lp, k in per_pair.items()] + [["all", sum(per_pair.values())]])
    return [cost, scores, segments]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=10000)
    parser.add_argument("--out", default=str(RESULTS / "compare_cost.json"))
    args = parser.parse_args()
    refs, second, outputs, per_pair = corpus(args.segments)
    load_before = os.getloadavg()[0]
    results = {}
    for name, options in METRICS.items():
        results[name] = measure(name, options, refs, second, outputs, args.resamples, args.trials)
        print(name, results[name], flush=True)
    load_after = os.getloadavg()[0]
    percent = {name: 100 * r["bootstrap_s"] / r["scoring_s"] for name, r in results.items()}
    notes = ["Target (issue 34): the bootstrap adds < 10 % to scoring: " + ", ".join(
                 f"{name} {p:.1f} %" for name, p in percent.items()) + ".",
             f"Machine load (1-minute average): {load_before:.1f} before, {load_after:.1f} after, on "
             f"{os.cpu_count()} CPUs shared with other jobs; CPU time of this process (its BLAS threads included).",
             "Signatures: " + "; ".join(r["signature"] for r in results.values()) + "."]
    payload = {"benchmark": "compare_cost", "created": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "machine": machine(), "command": " ".join(["compare_cost.py"] + sys.argv[1:]),
               "tables": tables(results, per_pair, args.resamples, args.trials), "notes": notes}
    Path(args.out).write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    for t in payload["tables"]:
        print(markdown_table(t), end="\n\n")


if __name__ == "__main__":
    main()

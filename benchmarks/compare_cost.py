"""What comparing systems costs next to scoring them: 3 systems x 1,000 segments of WMT21 de-en
(../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz: the first 1,000 sources with a reference
and three systems' outputs), for the cheap metrics (TextEval with tags, document rating and
scaling against the two references, ref and HUMAN; SAM on chrF; DiscoTK-light with per-test-set normalisation).

For each metric, in one process: (1) scoring, each system's segments scored once
(``score_segments``, the work ``compare`` does, and the only time a segment is scored), then
(2) the paired bootstrap (1,000 resamples, every resample re-running the metric's own corpus
reduction on the records) and (3) paired approximate randomisation (10,000 trials per system
against the baseline), each timed apart (CPU time of the process). The metric is loaded and
warmed on 8 segments first, untimed. The result: seconds and the ratio of each test to scoring.

    nice python benchmarks/compare_cost.py [--segments 1000 --resamples 1000 --trials 10000]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

import nlgmetrics  # noqa: E402
from nlgmetrics.core.significance import compare_records, paired_bootstrap, paired_randomization  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "wmt21_da_seg_toen_grouped.jsonl.gz"
METRICS: Dict[str, Dict[str, Any]] = {
    "texteval": {"approach": "scaling"},
    "sam": {"base": "chrf"},
    "discotk": {"variant": "light"},
}


def corpus(n: int) -> Tuple[List[str], List[str], List[List[str]]]:
    """The first ``n`` de-en sources with a second reference (system HUMAN) and three systems'
    outputs: references, second references (TextEval's standard set is both), outputs."""
    refs: List[str] = []
    second: List[str] = []
    outputs: List[List[str]] = [[], [], []]
    systems: List[str] = []
    with gzip.open(DATA, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row.get("lp") != "de-en" or not row.get("ref"):
                continue
            names = sorted(s for s in row["hyps"] if s != "HUMAN")
            systems = systems or names[:3]
            if not all(s in row["hyps"] for s in systems) or "HUMAN" not in row["hyps"]:
                continue
            refs.append(row["ref"])
            second.append(row["hyps"]["HUMAN"]["hyp"])
            for k, s in enumerate(systems):
                outputs[k].append(row["hyps"][s]["hyp"])
            if len(refs) == n:
                break
    return refs, second, outputs


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def measure(name: str, options: Dict[str, Any], refs: List[str], second: List[str], outputs: List[List[str]],
            resamples: int, trials: int) -> Dict[str, Any]:
    scorer = nlgmetrics.load(name, quiet=True, **options)
    refs_in: Any = [list(pair) for pair in zip(refs, second)] if name == "texteval" else refs
    scorer.score(outputs[0][:8], refs_in[:8])  # load and warm
    start = cpu()
    records = [scorer.score_segments(scorer.validate(out, refs_in)) for out in outputs]
    scoring = cpu() - start
    n = len(refs)
    start = cpu()
    samples = paired_bootstrap([scorer.resampler(r) for r in records], n, resamples)
    bootstrap = cpu() - start
    start = cpu()
    for k in (1, 2):
        paired_randomization(scorer.resampler(records[0] + records[k]), n, trials)
    randomization = cpu() - start
    start = cpu()
    result = compare_records(scorer, records, resamples=resamples, trials=0)
    compare_bs = cpu() - start
    assert np.allclose(result.samples, samples, equal_nan=True)
    return {"options": options, "signature": result.signature, "scoring_s": round(scoring, 3),
            "bootstrap_s": round(bootstrap, 3), "randomization_s": round(randomization, 3),
            "compare_records_bootstrap_s": round(compare_bs, 3),
            "bootstrap_over_scoring": round(bootstrap / scoring, 4),
            "randomization_over_scoring": round(randomization / scoring, 4),
            "scores": [round(s.score, 4) for s in result.systems]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=10000)
    parser.add_argument("--out", default=str(HERE / "results" / "compare_cost.json"))
    args = parser.parse_args()
    refs, second, outputs = corpus(args.segments)
    results = {}
    for name, options in METRICS.items():
        results[name] = measure(name, options, refs, second, outputs, args.resamples, args.trials)
        print(name, results[name], flush=True)
    payload = {"script": "benchmarks/compare_cost.py", "segments": len(refs), "systems": 3,
               "resamples": args.resamples, "trials_per_pair": args.trials, "pairs": 2,
               "machine": f"{platform.machine()} {os.cpu_count()} cpus, shared", "time": "process CPU seconds",
               "date": time.strftime("%Y-%m-%d"), "metrics": results}
    Path(args.out).write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

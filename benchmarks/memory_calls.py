"""Memory over repeated calls on new texts, as in a training loop (issue 37): each metric that
runs offline is called ``--calls`` times (default 4,000) on 8 fresh sentence pairs per call, in
a process of its own; the resident memory (RSS) after a warm-up of 20 calls and at each quarter
is recorded, with the bytes its caches account for (core.cache.live_caches) and the strings
spaCy's vocabulary learnt. Before issue 37 DiscoTK-light grew +2.1 GB over 4,000 calls, linear
(its analyses cache counted a quarter of what they hold); a bounded process levels off.

    python benchmarks/memory_calls.py                       # 4,000 calls per metric (long)
    python benchmarks/memory_calls.py --calls 600 --metrics discotk-light texteval
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import table, write_results  # noqa: E402

#: metric label -> (metric, options); every one runs offline
METRICS: Dict[str, Any] = {
    "discotk-light": ("discotk", {"variant": "light"}),
    "discotk-party": ("discotk", {"variant": "party"}),
    "texteval": ("texteval", {}),
    "sam": ("sam", {}),  # METEOR: no model, so no profile
    "rome": ("rome", {"profile": "lite"}),
}
WARMUP = 20
SEGMENTS = 8
WORDS = ("the a cat dog sat ran on over mat house river rain people read report new measure small business "
         "near morning while past city council vote plan school child teacher market price rise fall week "
         "year government minister said would could after before during under between team game win lose").split()


def sentences(rng: random.Random, n: int) -> List[str]:
    """``n`` new sentences: common words in a random order plus new word forms (a number and an
    invented word), as a model's outputs keep bringing strings never seen before."""
    out = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
        invented = "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))
        words.insert(rng.randrange(len(words)), invented)
        out.append(" ".join(words) + f" {rng.randint(0, 10**7)}.")
    return out


def rss_mib() -> float:
    import psutil

    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


def run_one(label: str, calls: int) -> Dict[str, Any]:
    """In this process: ``calls`` calls of one metric; RSS growth at each quarter."""
    import torch

    import nlgmetrics
    from nlgmetrics.core.cache import live_caches
    from nlgmetrics.core.linguistic import live_analyzers

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    metric, options = METRICS[label]
    scorer = nlgmetrics.load(metric, quiet=True, **options)
    rng = random.Random(37)
    for _ in range(WARMUP):
        scorer.score(sentences(rng, SEGMENTS), sentences(rng, SEGMENTS))
    base = rss_mib()
    start = time.perf_counter()
    points = []
    marks = {max(1, calls * k // 4) for k in range(1, 5)}
    for i in range(1, calls + 1):
        scorer.score(sentences(rng, SEGMENTS), sentences(rng, SEGMENTS))
        if i in marks:
            points.append([i, round(rss_mib() - base, 1)])
    caches = sum(c.nbytes for c in live_caches()) / 2**20
    renewals = sum(getattr(a._impl, "renewals", 0) for a in live_analyzers())
    return {"metric": label, "calls": calls, "rss_after_warmup_mib": round(base, 1), "growth_mib": points,
            "cache_mib": round(caches, 1), "vocabulary_renewals": renewals,
            "seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=4000, help="calls per metric (default 4,000)")
    parser.add_argument("--metrics", nargs="+", choices=sorted(METRICS), default=list(METRICS))
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one metric, JSON out
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.calls)))
        return
    results = []
    for label in args.metrics:
        proc = subprocess.run([sys.executable, __file__, "--one", label, "--calls", str(args.calls)],
                              capture_output=True, text=True, env=os.environ)
        if proc.returncode != 0:
            raise SystemExit(f"{label}: {proc.stderr[-2000:]}")
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(results[-1], flush=True)
    rows = [[r["metric"], r["calls"], r["rss_after_warmup_mib"],
             ", ".join(f"{c}: {g:+.1f}" for c, g in r["growth_mib"]), r["cache_mib"], r["vocabulary_renewals"],
             r["seconds"]] for r in results]
    write_results("memory_calls", [table(
        f"RSS growth over repeated calls of {SEGMENTS} new sentence pairs (after {WARMUP} warm-up calls)",
        ["metric", "calls", "RSS after warm-up (MiB)", "growth by call (MiB)", "caches' bytes at the end (MiB)",
         "spaCy vocabulary renewals", "seconds"], rows,
        note="one process per metric; growth = RSS at the call minus RSS after the warm-up; the caches' "
             "bytes are what core.cache accounts for (every LRU cache alive); a bounded process levels off")])


if __name__ == "__main__":
    main()

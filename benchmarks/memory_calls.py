"""Memory over repeated calls on new texts, as in a training loop (issues 37 and 44): each metric
that runs offline is called again and again on ``--segments`` new short sentence pairs per call
(an eval step's worth), in a process of its own, for the largest of ``--calls`` calls; the
resident memory (RSS) after a warm-up of 20 calls is the base, and the growth over it is
recorded at each count of ``--calls`` and at each quarter, with the bytes the caches account
for (core.cache.live_caches) and the spaCy pipeline's renewals. A metric stops early, saying so,
once it has run ``--max-minutes``. ``--baseline CHECKOUT`` also runs each metric with another
checkout's package (its ``shared/`` first on PYTHONPATH) for the first count of ``--calls``,
right after ours, so the two times per call come from one run on the same machine load.

Before issue 37 DiscoTK-light grew +2.1 GB over 4,000 calls, linear; before issue 44 it levelled
off near +300 MiB (its analyses cache held 256 MiB). Target (issue 44): under 150 MiB.

    python benchmarks/memory_calls.py                                  # 300 and 4,000 calls (long)
    python benchmarks/memory_calls.py --calls 300 --metrics discotk-light rome
    python benchmarks/memory_calls.py --baseline ../main --max-minutes 20
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
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import table, write_results  # noqa: E402

#: metric label -> (metric, options); every one runs offline
METRICS: Dict[str, Any] = {
    "discotk-light": ("discotk", {"variant": "light"}),
    "discotk-party": ("discotk", {"variant": "party"}),
    "rome-lite": ("rome", {"profile": "lite"}),
    "sam-chrf": ("sam", {"base": "chrf"}),
    "texteval": ("texteval", {}),
}
WARMUP = 20
WORDS = ("the a cat dog sat ran on over mat house river rain people read report new measure small business "
         "near morning while past city council vote plan school child teacher market price rise fall week "
         "year government minister said would could after before during under between team game win lose").split()


def wordnet_words() -> List[str]:
    """Single-word lemmas of WordNet's index files (some 70,000 real English words, most of
    them rare), read from the files directly (not through the reader, whose caches are measured)."""
    from nlgmetrics.core.resources import ensure_wordnet

    folder = ensure_wordnet() / "corpora" / "wordnet"
    words = set()
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"index.{pos}").read_text(encoding="utf-8").splitlines():
            word = line.split(" ", 1)[0]
            if not line.startswith(" ") and word.isalpha() and 3 <= len(word) <= 12:
                words.add(word)
    return sorted(words)


def sentences(rng: random.Random, n: int, rare: List[str]) -> List[str]:
    """``n`` new short sentences (8 to 14 words): common words in a random order, two real
    words drawn from ``rare`` (WordNet's lemmas: METEOR's synonyms and RoMe's antonyms look them
    up) and new word forms (a number and an invented word), as a model's outputs keep bringing
    strings never seen before."""
    out = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(4, 10))] + [rng.choice(rare), rng.choice(rare)]
        rng.shuffle(words)
        invented = "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))
        words.insert(rng.randrange(len(words)), invented)
        out.append(" ".join(words) + f" {rng.randint(0, 10**7)}.")
    return out


def rss_mib() -> float:
    import psutil

    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


def run_one(label: str, counts: List[int], segments: int, max_seconds: float) -> Dict[str, Any]:
    """In this process: up to ``max(counts)`` calls of one metric on new texts; the RSS growth
    over the warm-up's at each count and quarter, the seconds of the first ``counts[0]`` calls."""
    import torch

    import nlgmetrics
    from nlgmetrics.core import cache, linguistic

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    metric, options = METRICS[label]
    scorer = nlgmetrics.load(metric, quiet=True, **options)
    rng = random.Random(44)
    rare = wordnet_words()
    for _ in range(WARMUP):
        scorer.score(sentences(rng, segments, rare), sentences(rng, segments, rare))
    base = rss_mib()
    calls = max(counts)
    marks = set(counts) | {max(1, calls * k // 4) for k in range(1, 5)}
    growth: Dict[int, float] = {}
    first: Optional[float] = None
    start = time.perf_counter()
    busy = 0.0  # seconds in the calls themselves (not in the measurements between them)
    done = 0
    for done in range(1, calls + 1):
        hyps, refs = sentences(rng, segments, rare), sentences(rng, segments, rare)
        t = time.perf_counter()
        scorer.score(hyps, refs)
        busy += time.perf_counter() - t
        if done == counts[0]:
            first = busy
        if done in marks:
            growth[done] = round(rss_mib() - base, 1)
        if time.perf_counter() - start > max_seconds:
            break
    growth.setdefault(done, round(rss_mib() - base, 1))
    seconds = time.perf_counter() - start
    analyzers = getattr(linguistic, "live_analyzers", lambda: [])()
    return {"metric": label, "package": os.path.dirname(os.path.dirname(nlgmetrics.__file__)), "calls": done,
            "rss_after_warmup_mib": round(base, 1), "growth_mib": sorted(growth.items()),
            "cache_mib": round(sum(c.nbytes for c in cache.live_caches()) / 2**20, 1),
            "vocabulary_renewals": sum(getattr(a._impl, "renewals", 0) for a in analyzers),
            "ms_per_call_first": None if first is None else round(1000 * first / counts[0], 1),
            "seconds": round(seconds, 1)}


def run_child(label: str, counts: List[int], segments: int, minutes: float, package: str = "") -> Dict[str, Any]:
    env = dict(os.environ)
    if package:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package, env.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, __file__, "--one", label, "--calls", *map(str, counts), "--segments",
                           str(segments), "--max-minutes", str(minutes)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{label}: {proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    print(result, flush=True)
    return result


def _at(result: Dict[str, Any], count: int) -> str:
    """The growth at ``count`` calls, as a cell ("—" when the metric stopped before)."""
    growth = dict(result["growth_mib"]).get(count)
    return "—" if growth is None else f"{growth:+.1f}"


def _number(value: Any) -> str:
    return "—" if value is None else f"{value:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, nargs="+", default=[300, 4000],
                        help="counts of calls at which the growth is reported; the largest is run (default 300 4000)")
    parser.add_argument("--metrics", nargs="+", choices=list(METRICS), default=list(METRICS))
    parser.add_argument("--segments", type=int, default=4, help="new sentence pairs per call (default 4)")
    parser.add_argument("--max-minutes", type=float, default=20.0, help="stop a metric after this long (default 20)")
    parser.add_argument("--baseline", metavar="CHECKOUT",
                        help="also run each metric for the first --calls count with this checkout's package")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one metric, JSON out
    args = parser.parse_args()
    counts = sorted(set(args.calls))
    if args.one:
        print(json.dumps(run_one(args.one, counts, args.segments, 60 * args.max_minutes)))
        return
    baseline = ""
    if args.baseline:
        baseline = subprocess.run(["git", "-C", args.baseline, "rev-parse", "--short", "HEAD"], capture_output=True,
                                  text=True).stdout.strip() or Path(args.baseline).name
    ours, theirs = [], []
    for label in args.metrics:
        ours.append(run_child(label, counts, args.segments, args.max_minutes))
        if args.baseline:
            theirs.append(run_child(label, counts[:1], args.segments, args.max_minutes,
                                    str(Path(args.baseline).resolve() / "shared")))
    rows = [[r["metric"], _number(r["rss_after_warmup_mib"]), *(_at(r, c) for c in counts),
             ", ".join(f"{c}: {g:+.1f}" for c, g in r["growth_mib"]), _number(r["cache_mib"]), r["vocabulary_renewals"],
             _number(r["ms_per_call_first"]), r["calls"], round(r["seconds"])] for r in ours]
    words = f"{args.segments} new sentence pairs of 8 to 14 words per call, two of them rare"
    tables = [table(
        f"RSS growth over repeated calls on new texts ({words}, after {WARMUP} warm-up calls)",
        ["metric", "RSS after warm-up (MiB)", *(f"growth over {c:,} calls (MiB)" for c in counts),
         "growth by call (MiB)", "caches' bytes at the end (MiB)", "spaCy pipeline renewals",
         f"ms per call (first {counts[0]:,})", "calls run", "seconds"], rows,
        note="one process per metric; growth = RSS at the call minus RSS after the warm-up (— where the metric "
             f"stopped before that count, after --max-minutes {args.max_minutes:g}); the caches' bytes are what "
             "core.cache accounts for (every LRU cache alive); a bounded process levels off")]
    if theirs:
        rows = [[a["metric"], f"{_at(b, counts[0])} -> {_at(a, counts[0])}",
                 f"{_number(b['ms_per_call_first'])} -> {_number(a['ms_per_call_first'])}",
                 f"{a['ms_per_call_first'] / b['ms_per_call_first']:.2f}" if a["ms_per_call_first"] and
                 b["ms_per_call_first"] else "—"] for a, b in zip(ours, theirs)]
        tables.append(table(
            f"Before ({baseline}) and after, over the first {counts[0]:,} calls in the same run",
            ["metric", f"growth over {counts[0]:,} calls (MiB)", f"ms per call (first {counts[0]:,})", "time ratio"],
            rows, note=f"each metric ran with {baseline}'s package right after ours, in the same run"))
    write_results("memory_calls", tables)


if __name__ == "__main__":
    main()

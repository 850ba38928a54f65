"""SAM throughput: pairs per second of the base metric alone and of SAM on top of it (chrF and
BERTScore-lite), measured in one run on the same pairs, the runs interleaved.

Inputs: the first ``--pairs`` rows of WMT17 DA (hypothesis, reference). SAM runs with its
defaults (lexicon, matching) and starts every timed run with an empty parse cache (cleared,
untimed), so the timings include tagging; one-time loads (spaCy model, encoder, lexicon) happen
before the clock starts. The per-word stem and WordNet-synonym caches of METEOR-style matching
are warm after the first repeat: the first repeat's seconds (all word lookups cold) are shown
beside the medians. Every timed run (base metrics too) starts after an untimed
``gc.collect()``: a collection of the oldest generation walks the process's whole heap (WordNet,
spaCy, the encoder: 0.3-0.5 s here), and without it one lands inside whichever run pushes the
heap over Python's threshold, about one run in eight, adding that to a 1 s run. The seconds the
collector spends inside each timed run, and how many full collections still land there, are
recorded with the times. Each repeat times chrF, SAM + chrF,
BERTScore, SAM + BERTScore in turn, so a load change on the shared machine hits base and SAM
runs alike; reported are the medians over repeats and the median of the per-repeat ratios
(SAM + base) / base. The issue's targets: SAM + chrF >= 500 pairs/s and SAM + BERTScore
<= 1.3x BERTScore alone.

SAM runs under each tagger backend of ``--backends`` (default: spacy, i.e. the light spaCy
pipeline, and lookup, the table tagger), all in the same interleaved repeats.

    python benchmarks/sam_speed.py [--pairs N] [--repeats R] [--threads T] [--backends spacy,lookup]
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
from pathlib import Path
from typing import Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch  # noqa: E402
from common import peak_rss_mb, read_jsonl, table, timer, write_results  # noqa: E402

from nlgmetrics.core.embeddings import bertscore  # noqa: E402
from nlgmetrics.core.lexical import corpus_sentence_scores, sentence_chrf  # noqa: E402
from nlgmetrics.sam import SAM  # noqa: E402


def seconds(fn: Callable[[], object], before: Callable[[], None]) -> Dict[str, float]:
    """One timed run of ``fn`` after ``before()`` and a full garbage collection, both untimed."""
    before()
    gc.collect()
    with timer() as t:
        fn()
    return t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (BERTScore)")
    parser.add_argument("--backends", default="spacy,lookup", help="SAM tagger backends to time")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = read_jsonl("wmt17_da_seg.jsonl.gz", args.pairs)
    hyps, refs = [r["hyp"] for r in rows], [r["ref"] for r in rows]
    n = len(hyps)
    backends = args.backends.split(",")
    sam_chrf = {b: SAM(base="chrf", linguistic_backend=b, quiet=True) for b in backends}
    sam_bert = {b: SAM(base="bertscore", profile="lite", linguistic_backend=b, quiet=True) for b in backends}
    encoder = sam_bert[backends[0]].encoder
    warm = (hyps[:8], refs[:8])
    for b in backends:
        sam_chrf[b].score(*warm)
        sam_bert[b].score(*warm)  # loads, first-call overheads

    def cold(b: str) -> Callable[[], None]:
        return lambda: (sam_chrf[b].analyzer.clear(), sam_bert[b].analyzer.clear()) and None

    nothing = lambda: None  # noqa: E731
    runs: Dict[str, Callable[[], object]] = {"chrF alone": lambda: corpus_sentence_scores(sentence_chrf, hyps, refs)}
    before: Dict[str, Callable[[], None]] = {"chrF alone": nothing, "BERTScore-lite alone": nothing}
    base_of = {}
    for b in backends:
        runs[f"SAM + chrF [{b}]"] = lambda b=b: sam_chrf[b].score(hyps, refs)
        runs[f"SAM part alone (tag, items, match) [{b}]"] = lambda b=b: sam_chrf[b].mismatches(hyps, refs)
        base_of[f"SAM + chrF [{b}]"] = "chrF alone"
    runs["BERTScore-lite alone"] = lambda: bertscore(hyps, refs, encoder)
    for b in backends:
        runs[f"SAM + BERTScore-lite [{b}]"] = lambda b=b: sam_bert[b].score(hyps, refs)
        base_of[f"SAM + BERTScore-lite [{b}]"] = "BERTScore-lite alone"
    for name in runs:
        before.setdefault(name, cold(name.rsplit("[", 1)[1].rstrip("]")) if "[" in name else nothing)
    times: Dict[str, List[float]] = {name: [] for name in runs}
    gc_times: Dict[str, List[float]] = {name: [] for name in runs}
    full_gc = 0
    for _ in range(args.repeats):
        for name, fn in runs.items():
            t = seconds(fn, before[name])
            times[name].append(t["seconds"])
            gc_times[name].append(t["gc_seconds"])
            full_gc += int(t["full_gc"])
    ratios = {name: statistics.median(s / b for s, b in zip(times[name], times[base]))
              for name, base in base_of.items()}
    result_rows = []
    for name, ts in times.items():
        med = statistics.median(ts)
        result_rows.append([name, med, n / med, ratios.get(name, "n/a"), ts[0], statistics.median(gc_times[name])])
    cfg = sam_chrf[backends[0]].config
    taggers = "; ".join(f"{b}: {sam_chrf[b].analyzer.backend}" for b in backends)
    speed = table(f"SAM throughput on {n} WMT17 pairs (cold parse cache for every SAM run)",
                  ["run", "seconds (median)", "pairs/s", "time / base alone (median of per-repeat ratios)",
                   "seconds, first repeat", "garbage collection seconds in the run (median)"], result_rows,
                  f"{args.repeats} interleaved repeats; torch threads {args.threads}; taggers {taggers}; SAM "
                  f"defaults lexicon={cfg.lexicon}, matching={cfg.matching}; encoder "
                  f"{encoder.describe() if encoder else 'n/a'}.")
    notes = ["Targets: SAM + chrF >= 500 pairs/s (measured " + ", ".join(
        f"{b} {n / statistics.median(times[f'SAM + chrF [{b}]']):.0f}" for b in backends)
        + "); SAM + BERTScore <= 1.3x BERTScore alone (measured " + ", ".join(
        f"{b} {ratios[f'SAM + BERTScore-lite [{b}]']:.2f}x" for b in backends) + ").",
        f"Full garbage collections inside timed runs: {full_gc} of {args.repeats * len(runs)} runs "
        "(each run starts after an untimed gc.collect()).",
        f"Machine load (1-minute average) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
        "(shared with other jobs).", f"Peak RSS {peak_rss_mb():.0f} MiB."]
    write_results("sam_speed", [speed], notes)


if __name__ == "__main__":
    main()

"""SAM throughput: pairs per second of the base metric alone and of SAM on top of it (chrF and
BERTScore-lite), measured in one run on the same pairs, the runs interleaved.

Inputs: the first ``--pairs`` rows of WMT17 DA (hypothesis, reference). SAM runs with its
defaults (lexicon, matching) and starts every timed run from cold per-text and per-word caches
(the analyzer's parse cache and core.lexical's stem and WordNet-synonym caches are cleared,
untimed), so the timings include tagging and matching; one-time loads (spaCy model, encoder,
lexicon, WordNet) happen before the clock starts. Each repeat times chrF, SAM + chrF,
BERTScore, SAM + BERTScore in turn, so a load change on the shared machine hits base and SAM
runs alike; reported are the medians over repeats and the median of the per-repeat ratios
(SAM + base) / base. The issue's targets: SAM + chrF >= 500 pairs/s and SAM + BERTScore
<= 1.3x BERTScore alone.

    python benchmarks/sam_speed.py [--pairs N] [--repeats R] [--threads T]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch  # noqa: E402
from common import peak_rss_mb, read_jsonl, table, timer, write_results  # noqa: E402

from nlgmetrics.core import lexical  # noqa: E402
from nlgmetrics.core.embeddings import bertscore  # noqa: E402
from nlgmetrics.core.lexical import corpus_sentence_scores, sentence_chrf  # noqa: E402
from nlgmetrics.sam import SAM  # noqa: E402


def seconds(fn: Callable[[], object], before: Callable[[], None]) -> float:
    before()
    with timer() as t:
        fn()
    return t["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (BERTScore)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = read_jsonl("wmt17_da_seg.jsonl.gz", args.pairs)
    hyps, refs = [r["hyp"] for r in rows], [r["ref"] for r in rows]
    n = len(hyps)
    sam_chrf = SAM(base="chrf", quiet=True)
    sam_bert = SAM(base="bertscore", profile="lite", quiet=True)
    encoder = sam_bert.encoder
    warm = (hyps[:8], refs[:8])
    sam_chrf.score(*warm)
    sam_bert.score(*warm)  # loads, first-call overheads

    def cold() -> None:
        sam_chrf.analyzer.clear()
        lexical.STEMS.clear()
        lexical.SYNONYMS.clear()

    nothing = lambda: None  # noqa: E731
    runs: Dict[str, Callable[[], object]] = {
        "chrF alone": lambda: corpus_sentence_scores(sentence_chrf, hyps, refs),
        "SAM + chrF": lambda: sam_chrf.score(hyps, refs),
        "SAM part alone (tag, items, match)": lambda: sam_chrf.mismatches(hyps, refs),
        "BERTScore-lite alone": lambda: bertscore(hyps, refs, encoder),
        "SAM + BERTScore-lite": lambda: sam_bert.score(hyps, refs),
    }
    times: Dict[str, List[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, fn in runs.items():
            times[name].append(seconds(fn, nothing if name.endswith("alone") and "SAM" not in name else cold))
    base_of = {"SAM + chrF": "chrF alone", "SAM + BERTScore-lite": "BERTScore-lite alone"}
    ratios = {name: statistics.median(s / b for s, b in zip(times[name], times[base]))
              for name, base in base_of.items()}
    result_rows = []
    for name, ts in times.items():
        med = statistics.median(ts)
        result_rows.append([name, med, n / med, ratios.get(name, "n/a"), ts[0]])
    cfg = sam_chrf.config
    speed = table(f"SAM throughput on {n} WMT17 pairs (cold per-text and per-word caches for every SAM run)",
                  ["run", "seconds (median)", "pairs/s", "time / base alone (median of per-repeat ratios)",
                   "seconds, first repeat"], result_rows,
                  f"{args.repeats} interleaved repeats; torch threads {args.threads}; tagger "
                  f"{sam_chrf.analyzer.backend}; SAM defaults lexicon={cfg.lexicon}, matching={cfg.matching}; "
                  f"encoder {encoder.describe() if encoder else 'n/a'}.")
    sam_chrf_rate = n / statistics.median(times["SAM + chrF"])
    notes = [f"Targets: SAM + chrF >= 500 pairs/s (measured {sam_chrf_rate:.0f}); SAM + BERTScore <= 1.3x "
             f"BERTScore alone (measured {ratios['SAM + BERTScore-lite']:.2f}x).",
             f"Machine load (1-minute average) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
             "(shared with other jobs).", f"Peak RSS {peak_rss_mb():.0f} MiB."]
    write_results("sam_speed", [speed], notes)


if __name__ == "__main__":
    main()

"""SAM throughput: pairs per second of the base metric alone and of SAM on top of it (chrF and
BERTScore-lite), measured in one run on the same pairs.

Inputs: the first ``--pairs`` rows of WMT17 DA (hypothesis, reference). Each SAM run starts
with an empty parse cache (the analyzer's cache is cleared, untimed), so the timings include
tagging; one-time loads (spaCy model, encoder, lexicon) happen before the clock starts. Ratios
(SAM + base) / base are the issue's targets: SAM + chrF >= 500 pairs/s and SAM + BERTScore
<= 1.3x BERTScore alone.

    python benchmarks/sam_speed.py [--pairs N] [--repeats R] [--threads T]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Callable, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch  # noqa: E402
from common import peak_rss_mb, read_jsonl, table, timer, write_results  # noqa: E402

from nlgmetrics.core.embeddings import bertscore  # noqa: E402
from nlgmetrics.core.lexical import corpus_sentence_scores, sentence_chrf  # noqa: E402
from nlgmetrics.sam import SAM  # noqa: E402


def best_of(fn: Callable[[], object], repeats: int, before: Callable[[], None]) -> float:
    """Median seconds of ``repeats`` runs, ``before`` run untimed ahead of each."""
    times: List[float] = []
    for _ in range(repeats):
        before()
        with timer() as t:
            fn()
        times.append(t["seconds"])
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
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
    cold = sam_chrf.analyzer.clear
    nothing = lambda: None  # noqa: E731
    t_chrf = best_of(lambda: corpus_sentence_scores(sentence_chrf, hyps, refs), args.repeats, nothing)
    t_sam_chrf = best_of(lambda: sam_chrf.score(hyps, refs), args.repeats, cold)
    t_tag = best_of(lambda: sam_chrf.mismatches(hyps, refs), args.repeats, cold)
    bert_repeats = max(1, args.repeats // 2)
    t_bert = best_of(lambda: bertscore(hyps, refs, encoder), bert_repeats, nothing)
    t_sam_bert = best_of(lambda: sam_bert.score(hyps, refs), bert_repeats, cold)
    result_rows = [
        ["chrF alone", t_chrf, n / t_chrf, "n/a"],
        ["SAM + chrF", t_sam_chrf, n / t_sam_chrf, t_sam_chrf / t_chrf],
        ["SAM part alone (tag, items, match)", t_tag, n / t_tag, "n/a"],
        ["BERTScore-lite alone", t_bert, n / t_bert, "n/a"],
        ["SAM + BERTScore-lite", t_sam_bert, n / t_sam_bert, t_sam_bert / t_bert],
    ]
    speed = table(f"SAM throughput on {n} WMT17 pairs (cold parse cache for every SAM run)",
                  ["run", "seconds", "pairs/s", "time / base alone"], result_rows,
                  f"Median of {args.repeats} runs ({bert_repeats} for BERTScore); torch threads {args.threads}; "
                  f"tagger {sam_chrf.analyzer.backend}; encoder {encoder.describe() if encoder else 'n/a'}.")
    notes = [f"Targets: SAM + chrF >= 500 pairs/s (measured {n / t_sam_chrf:.0f}); SAM + BERTScore <= 1.3x "
             f"BERTScore alone (measured {t_sam_bert / t_bert:.2f}x).", f"Peak RSS {peak_rss_mb():.0f} MiB."]
    write_results("sam_speed", [speed], notes)


if __name__ == "__main__":
    main()

"""Pairs per second of RoMe-lite on 2 CPU threads, and the ratio to BERTScore with the same
all-MiniLM-L6-v2 encoder, measured in one run on the same pairs.

    python benchmarks/rome_speed.py [--pairs 400]

Pairs: data-to-text system outputs with their first reference (../shared/data/
d2t_bagel_sfhot_sfres.jsonl.gz), unique outputs only. Models are loaded and warmed up on other
pairs first; the timed pairs have never been parsed in this process (RoMe caches parses per
text), so the RoMe timing includes parsing, both encodings, the grammar head, TED and EMD.
The metrics run interleaved, chunk by chunk, and their times are summed.
"""
from __future__ import annotations

import argparse
import time

import torch
from common import peak_rss_mb, read_jsonl, table, timer, write_results

import nlgmetrics
from nlgmetrics.core.embeddings import bertscore

WARMUP = 40
CHUNK = 100


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=400)
    args = ap.parse_args()
    torch.set_num_threads(2)
    seen, pairs = set(), []
    for row in read_jsonl("d2t_bagel_sfhot_sfres.jsonl.gz"):
        if row["hyp"] not in seen and row["refs"][0] not in seen:
            seen.update([row["hyp"], row["refs"][0]])
            pairs.append((row["hyp"], row["refs"][0]))
    warm, timed = pairs[:WARMUP], pairs[WARMUP:WARMUP + args.pairs]
    hyps, refs = [h for h, _ in timed], [r for _, r in timed]

    rome = nlgmetrics.load("rome", profile="lite", device="cpu", quiet=True)
    emd_only = nlgmetrics.load("rome", profile="lite", component="emd", device="cpu", quiet=True)
    rome.score([h for h, _ in warm], [r for _, r in warm])
    bertscore([h for h, _ in warm], [r for _, r in warm], rome.encoder)

    # the machine is shared: interleave the three metrics chunk by chunk (rotating their
    # order) so that a change of load falls on all of them alike
    runs = {"BERTScore-MiniLM F1": lambda h, r: bertscore(h, r, rome.encoder),
            "RoMe-lite F_EMD only": emd_only.score, "RoMe-lite (all features + network)": rome.score}
    wall, cpu = dict.fromkeys(runs, 0.0), dict.fromkeys(runs, 0.0)
    for k, start in enumerate(range(0, len(timed), CHUNK)):
        h, r = hyps[start:start + CHUNK], refs[start:start + CHUNK]
        names = list(runs)
        for name in names[k % 3:] + names[:k % 3]:
            cpu_start = time.process_time()
            with timer() as t:
                runs[name](h, r)
            wall[name] += t["seconds"]
            cpu[name] += time.process_time() - cpu_start
    n = len(timed)
    base = "BERTScore-MiniLM F1"
    rows = [[name, n, round(wall[name], 2), round(n / wall[name], 1), round(wall[base] / wall[name], 3),
             round(cpu[name], 2), round(cpu[base] / cpu[name], 3)] for name in runs]
    write_results("rome_speed", [table(
        "Speed on 2 CPU threads (same pairs, same encoder, one run)",
        ["metric", "pairs", "wall s", "pairs/s", "speed vs BERTScore (wall)", "CPU s",
         "speed vs BERTScore (CPU)"], rows,
        note=(f"torch threads {torch.get_num_threads()}. The machine is shared with other jobs, so "
              "wall times vary with load; CPU time (both threads) is the steadier measure. "
              f"Ratios from this one run. peak RSS {peak_rss_mb():.0f} MiB. {rome.signature}"))])


if __name__ == "__main__":
    main()

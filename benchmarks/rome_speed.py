"""Pairs per second of RoMe-lite on 2 CPU threads, and the ratio to BERTScore with the same
all-MiniLM-L6-v2 encoder, measured in one run on the same pairs.

    python benchmarks/rome_speed.py [--pairs 400]

Pairs: data-to-text system outputs with their first reference (../shared/data/
d2t_bagel_sfhot_sfres.jsonl.gz), unique outputs only. Models are loaded and warmed up on other
pairs first; the timed pairs have never been parsed in this process (RoMe caches parses per
text), so the RoMe timing includes parsing, both encodings, the grammar head, TED and EMD.
"""
from __future__ import annotations

import argparse

import torch
from common import peak_rss_mb, read_jsonl, table, timer, write_results

import nlgmetrics
from nlgmetrics.core.embeddings import bertscore

WARMUP = 40


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

    with timer() as t_bert:
        bertscore(hyps, refs, rome.encoder)
    with timer() as t_emd:
        emd_only.score(hyps, refs)
    with timer() as t_rome:
        rome.score(hyps, refs)
    n = len(timed)
    rows = [["BERTScore-MiniLM F1", n, round(t_bert["seconds"], 2), round(n / t_bert["seconds"], 1), 1.0],
            ["RoMe-lite F_EMD only", n, round(t_emd["seconds"], 2), round(n / t_emd["seconds"], 1),
             round(t_bert["seconds"] / t_emd["seconds"], 3)],
            ["RoMe-lite (all features + network)", n, round(t_rome["seconds"], 2),
             round(n / t_rome["seconds"], 1), round(t_bert["seconds"] / t_rome["seconds"], 3)]]
    write_results("rome_speed", [table(
        "Speed on 2 CPU threads (same pairs, same encoder, one run)",
        ["metric", "pairs", "seconds", "pairs/s", "speed relative to BERTScore"], rows,
        note=(f"torch threads {torch.get_num_threads()}; shared machine, so absolute numbers vary "
              f"with load; the ratio is from one run. peak RSS {peak_rss_mb():.0f} MiB. {rome.signature}"))])


if __name__ == "__main__":
    main()

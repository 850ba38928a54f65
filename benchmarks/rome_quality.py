"""RoMe-lite and its components against human ratings of data-to-text output, beside sentence
BLEU, chrF and BERTScore computed with the same MiniLM encoder in the same run.

    python benchmarks/rome_quality.py [--limit N] [--option key=value ... --name rome_quality_x]

Data: ../shared/data/d2t_bagel_sfhot_sfres.jsonl.gz (BAGEL 404, SFHOT 875, SFRES 1,181 system
outputs; human informativeness, naturalness, quality). Each output has several references
(duplicates removed); every metric takes its best reference (highest score; lowest F_TED).
Spearman correlation per dataset and aspect, and the mean of the nine cells.
"""
from __future__ import annotations

import argparse
from typing import Dict, List

import numpy as np
import torch
from common import parse_options, peak_rss_mb, read_jsonl, table, timer, write_results

import nlgmetrics
from nlgmetrics.core.embeddings import bertscore
from nlgmetrics.core.lexical import sentence_bleu, sentence_chrf
from nlgmetrics.core.stats import spearman

DATASETS = ("BAGEL", "SFHOT", "SFRES")
ASPECTS = ("informativeness", "naturalness", "quality")


def best_over(values: np.ndarray, groups: List[int], lower_is_better: bool = False) -> np.ndarray:
    """Per output, the best of its references' values (groups: references per output)."""
    out, start = [], 0
    for n in groups:
        chunk = values[start:start + n]
        out.append(chunk.min() if lower_is_better else chunk.max())
        start += n
    return np.array(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="first N rows only (smoke runs)")
    ap.add_argument("--option", action="append", default=[], help="RoMe option key=value (JSON value)")
    ap.add_argument("--name", default="rome_quality", help="results file name")
    args = ap.parse_args()
    options = parse_options(args.option)
    torch.set_num_threads(2)
    rows = read_jsonl("d2t_bagel_sfhot_sfres.jsonl.gz", limit=args.limit)
    hyps = [r["hyp"] for r in rows]
    refs = [list(dict.fromkeys(r["refs"])) for r in rows]
    groups = [len(g) for g in refs]
    flat_h = [h for h, g in zip(hyps, refs) for _ in g]
    flat_r = [x for g in refs for x in g]

    rome = nlgmetrics.load("rome", profile="lite", device="cpu", quiet=True, **options)
    timings: Dict[str, float] = {}
    with timer() as t:
        feats = rome.features(flat_h, flat_r)
    timings["RoMe-lite (all features + network)"] = t["seconds"]
    metrics: Dict[str, np.ndarray] = {
        "RoMe-lite": best_over(feats["rome"], groups),
        "F_EMD": best_over(feats["f_emd"], groups),
        "1 - F_TED": 1.0 - best_over(feats["f_ted"], groups, lower_is_better=True),
        "F_grammar": best_over(feats["f_grammar"], groups),
    }
    with timer() as t:
        metrics["BERTScore-MiniLM F1"] = np.array(bertscore(hyps, refs, rome.encoder)["f1"])
    timings["BERTScore-MiniLM"] = t["seconds"]
    with timer() as t:
        metrics["sentence BLEU"] = best_over(np.array([sentence_bleu(h, r) for h, r in zip(flat_h, flat_r)]), groups)
    timings["sentence BLEU"] = t["seconds"]
    with timer() as t:
        metrics["chrF"] = best_over(np.array([sentence_chrf(h, r) for h, r in zip(flat_h, flat_r)]), groups)
    timings["chrF"] = t["seconds"]

    columns = ["metric"] + [f"{d} {a[:3]}." for d in DATASETS for a in ASPECTS] + ["mean of 9"]
    result_rows = []
    for name, values in metrics.items():
        cells = []
        for d in DATASETS:
            idx = [i for i, r in enumerate(rows) if r["dataset"] == d]
            for a in ASPECTS:
                cells.append(spearman(values[idx], [rows[i]["human"][a] for i in idx]) if len(idx) > 2 else float("nan"))
        result_rows.append([name] + [round(c, 4) for c in cells] + [round(float(np.nanmean(cells)), 4)])
    counts = {d: sum(r["dataset"] == d for r in rows) for d in DATASETS}
    quality = table(
        "Spearman correlation with human ratings (BAGEL, SFHOT, SFRES; best over references)",
        columns, result_rows,
        note=(f"outputs: {counts}; {len(flat_r)} (output, reference) pairs after removing duplicate "
              f"references. inf./nat./qua. = informativeness, naturalness, quality. RoMe-lite: "
              f"{rome.signature}. BERTScore: F1 of the same all-MiniLM-L6-v2 encoder (last layer, "
              "no idf, no baseline rescaling). BLEU/chrF: sacrebleu sentence scores."))
    speed = table("Wall time of this run (2 CPU threads, shared machine)", ["metric", "seconds"],
                  [[k, round(v, 1)] for k, v in timings.items()],
                  note=f"peak RSS {peak_rss_mb():.0f} MiB")
    write_results(args.name, [quality, speed])


if __name__ == "__main__":
    main()

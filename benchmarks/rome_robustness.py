"""RoMe's robustness analysis (paper section 4.7) as ranking cases: per family, the share of
hand-written cases (benchmarks/rome_robustness_cases.py) in which a metric scores the better
hypothesis above the worse one, for RoMe-lite, each of its features and BERTScore-MiniLM (the
same encoder object).

    python benchmarks/rome_robustness.py [--option key=value ...]

Ties count as wrong. F_TED is a distance: lower ranks higher.
"""
from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import torch
from common import parse_options, table, timer, write_results
from rome_robustness_cases import FAMILIES

import nlgmetrics
from nlgmetrics.core.embeddings import bertscore


def share_right(better: np.ndarray, worse: np.ndarray, lower_is_better: bool = False) -> float:
    right = worse > better if lower_is_better else better > worse
    return float(np.mean(right))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--option", action="append", default=[], help="RoMe option key=value (JSON value)")
    ap.add_argument("--name", default="rome_robustness", help="results file name")
    args = ap.parse_args()
    torch.set_num_threads(2)
    options = parse_options(args.option)
    rome = nlgmetrics.load("rome", profile="lite", device="cpu", quiet=True, **options)
    refs, hyps = [], []
    for cases in FAMILIES.values():
        for ref, better, worse in cases:
            refs += [ref, ref]
            hyps += [better, worse]
    with timer() as t:
        feats = rome.features(hyps, refs)
    rome_seconds = t["seconds"]
    with timer() as t:
        bert = np.array(bertscore(hyps, refs, rome.encoder)["f1"])
    columns = {"RoMe-lite": feats["rome"], "F_EMD": feats["f_emd"], "F_TED (lower is better)": feats["f_ted"],
               "F_grammar": feats["f_grammar"], "BERTScore-MiniLM F1": bert}
    rows: list[list[Any]] = []
    start = 0
    for family, cases in FAMILIES.items():
        span = slice(start, start + 2 * len(cases))
        row: list[Any] = [family, len(cases)]
        for name, values in columns.items():
            v = values[span]
            row.append(round(share_right(v[0::2], v[1::2], lower_is_better=name.startswith("F_TED")), 3))
        rows.append(row)
        start += 2 * len(cases)
    rows.append(["all families", sum(len(c) for c in FAMILIES.values())]
                + [round(float(np.mean([r[k] for r in rows])), 3) for k in range(2, 2 + len(columns))])
    result = table("Share of cases ranked right (better hypothesis scored above the worse one)",
                   ["family", "cases"] + list(columns), rows,
                   note=f"RoMe-lite: {rome.signature}; BERTScore: F1 of the same all-MiniLM-L6-v2 encoder "
                        f"(last layer, no idf, no rescaling). Wall time: RoMe-lite {rome_seconds:.1f} s, "
                        f"BERTScore {t['seconds']:.1f} s for {len(hyps)} pairs.")
    # every case's scores, so that a statement about one case can be checked against the file
    per_case, k = [], 0
    for family, cases in FAMILIES.items():
        for i, (ref, better, worse) in enumerate(cases):
            per_case.append({"family": family, "case": i, "reference": ref, "better": better, "worse": worse,
                             "scores": {name: [round(float(values[k]), 4), round(float(values[k + 1]), 4)]
                                        for name, values in columns.items()}})
            k += 2
    write_results(args.name, [result], extra={"cases": per_case})


if __name__ == "__main__":
    main()

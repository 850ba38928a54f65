"""DiscoTK quality beside chrF, sentence BLEU and sentence BERTScore (MiniLM), with an ablation
of what the discourse kernels add to the lexical members.

    python benchmarks/discotk_quality.py [--per-lp 10] [--wmt17-per-lp 60] [--train-per-lp 10]

- WMT21 to-English (cs, de, ha, is, ja, ru, zh): segment-level DARR Kendall tau (WMT
  formulation, metric ties count as discordant) on source segments *held out* from tuning
  (nlgmetrics.training.discotk_weights.split_of: split by source segment id, never by pair);
  ``--per-lp`` held-out segments per language pair, fixed seed.
- WMT17 to-English (wmt17_da_seg, one output per segment): segment-level Pearson with DA
  z-scores per language pair on ``--wmt17-per-lp`` segments per lp (fixed seed), averaged.
  WMT17 is never trained on.
- Per-test-set normalisation (light, party-uniform) is done per language pair, as in the paper.
- Tuned rows use the shipped weights (nlgmetrics/data/discotk_weights.json, trained on the
  WMT21 *training* split by nlgmetrics.training.discotk_weights); ablation rows are fitted the
  same way, on the same training features, here.
- All metrics come from one feature matrix per data set (DiscoTK-party with
  members="asiya+extra": its chrF / BLEU / BERTScore columns are the baselines), computed once
  and cached (see training.discotk_weights.cached_features).
"""
from __future__ import annotations

import argparse
import random
from typing import Dict, List, Sequence, Tuple

import numpy as np
from common import read_jsonl, table, write_results

from nlgmetrics.core.stats import darr_tau, pearson
from nlgmetrics.discotk import PARTY_MEMBERS, REPRESENTATIONS, asiya_normalize, feature_names, shipped_model
from nlgmetrics.discotk.combine import sigmoid
from nlgmetrics.training.discotk_weights import (SEED, WMT21, ablation_columns, cached_features, fit_columns,
                                                 flatten, sample_segments, training_data)

NAMES = feature_names("party", "asiya+extra")


def wmt17_sample(per_lp: int) -> List[dict]:
    rows = read_jsonl("wmt17_da_seg.jsonl.gz")
    rng = random.Random(SEED)
    out: List[dict] = []
    for lp in sorted({r["lp"] for r in rows}):
        group = [r for r in rows if r["lp"] == lp]
        rng.shuffle(group)
        out += group[:per_lp]
    return out


def columns(matrix: np.ndarray, cols: Sequence[str]) -> np.ndarray:
    return matrix[:, [NAMES.index(c) for c in cols]]


def uniform(matrix: np.ndarray, cols: Sequence[str], lps: Sequence[str]) -> np.ndarray:
    """Asiya's per-test-set normalisation per language pair, then the mean."""
    sub = columns(matrix, cols)
    out = np.zeros(len(sub))
    for lp in sorted(set(lps)):
        idx = [i for i, x in enumerate(lps) if x == lp]
        norm = np.column_stack([asiya_normalize(col) for col in sub[idx].T])
        out[idx] = norm.mean(axis=1)
    return out


def tuned(matrix: np.ndarray, model) -> np.ndarray:
    return sigmoid(columns(matrix, model.features) @ np.asarray(model.weights) + model.bias)


def evaluate(s21: np.ndarray, s17: np.ndarray, pairs: List[Tuple[int, int]], lp21: List[str],
             lp17: List[str], human17: List[float]) -> Tuple[float, float, float, Dict[str, float], Dict[str, float]]:
    taus = {}
    for lp in sorted(set(lp21)):
        sel = [(b, w) for b, w in pairs if lp21[b] == lp]
        taus[lp] = darr_tau(s21[[b for b, _ in sel]], s21[[w for _, w in sel]])
    pooled = darr_tau(s21[[b for b, _ in pairs]], s21[[w for _, w in pairs]])
    rs = {lp: pearson([s17[i] for i in range(len(lp17)) if lp17[i] == lp],
                      [human17[i] for i in range(len(lp17)) if lp17[i] == lp]) for lp in sorted(set(lp17))}
    return float(np.mean(list(taus.values()))), pooled, float(np.nanmean(list(rs.values()))), taus, rs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-lp", type=int, default=10, help="held-out WMT21 source segments per lp")
    ap.add_argument("--wmt17-per-lp", type=int, default=60, help="WMT17 segments per lp")
    ap.add_argument("--train-per-lp", type=int, default=10, help="WMT21 training segments per lp (ablation fits)")
    args = ap.parse_args()

    segments = sample_segments(read_jsonl(WMT21), "heldout", args.per_lp)
    h21, r21, pairs21 = flatten(segments)
    lp21 = [row["lp"] for row in segments for _ in row["hyps"]]
    f21 = cached_features(f"wmt21-heldout-{args.per_lp}", h21, r21)
    wmt17 = wmt17_sample(args.wmt17_per_lp)
    f17 = cached_features(f"wmt17-{args.wmt17_per_lp}", [r["hyp"] for r in wmt17], [r["ref"] for r in wmt17])
    lp17, human17 = [r["lp"] for r in wmt17], [r["human"] for r in wmt17]
    train, train_pairs, facts = training_data(args.train_per_lp)
    facts.pop("lps")

    party_default = shipped_model("party", "flat", "asiya+extra")
    metrics: Dict[str, Tuple[np.ndarray, np.ndarray]] = {
        "chrF": (columns(f21, ["chrf"])[:, 0], columns(f17, ["chrf"])[:, 0]),
        "sentence BLEU": (columns(f21, ["bleu"])[:, 0], columns(f17, ["bleu"])[:, 0]),
        "sentence BERTScore F1 (MiniLM)": (columns(f21, ["bertscore"])[:, 0], columns(f17, ["bertscore"])[:, 0]),
        "DiscoTK-light (uniform)": (uniform(f21, REPRESENTATIONS, lp21), uniform(f17, REPRESENTATIONS, lp17)),
        "DiscoTK-party uniform (asiya)": (uniform(f21, REPRESENTATIONS + PARTY_MEMBERS, lp21),
                                          uniform(f17, REPRESENTATIONS + PARTY_MEMBERS, lp17)),
        "DiscoTK-party tuned (asiya)": (tuned(f21, shipped_model("party")), tuned(f17, shipped_model("party"))),
        "DiscoTK-party tuned (asiya+extra)": (tuned(f21, party_default), tuned(f17, party_default)),
    }
    ablation: Dict[str, Tuple[np.ndarray, np.ndarray]] = {}
    for name, cols in ablation_columns().items():
        model = fit_columns(train, train_pairs, cols)
        ablation[name] = (tuned(f21, model), tuned(f17, model))
    single = {f"  feature {f}": (columns(f21, [f])[:, 0], columns(f17, [f])[:, 0]) for f in NAMES}

    def rows_of(group: Dict[str, Tuple[np.ndarray, np.ndarray]]) -> Tuple[list, list, list]:
        rows, per21, per17 = [], [], []
        for name, (s21, s17) in group.items():
            mean_tau, pooled, mean_r, taus, rs = evaluate(s21, s17, pairs21, lp21, lp17, human17)
            rows.append([name, round(mean_tau, 4), round(pooled, 4), round(mean_r, 4)])
            per21.append([name] + [round(v, 4) for v in taus.values()])
            per17.append([name] + [round(v, 4) for v in rs.values()])
        return rows, per21, per17

    main_rows, per21, per17 = rows_of({**metrics, **single})
    ab_rows, _, _ = rows_of(ablation)
    head = ["metric", "WMT21 DARR tau (mean over lps)", "WMT21 DARR tau (pooled)", "WMT17 Pearson (mean over lps)"]
    note = (f"WMT21: {len(segments)} held-out source segments ({args.per_lp} per lp), {len(h21)} outputs, "
            f"{len(pairs21)} DARR pairs (raw DA difference >= 25). WMT17: {len(wmt17)} segments "
            f"({args.wmt17_per_lp} per lp). Training split for the tuned rows: {facts}.")
    tables = [
        table("DiscoTK vs chrF, sentence BLEU and BERTScore (to-English, segment level)", head, main_rows, note=note),
        table("Ablation: pairwise models fitted on the WMT21 training split (same-source DARR pairs)", head, ab_rows,
              note="'kernels' = the five discourse kernels; 'asiya members' = TER, METEOR, HWCM_c, HWCM_r, "
                   "DP-Or; 'extra members' = chrF, BLEU, BERTScore (MiniLM)."),
        table("WMT21 DARR tau per language pair (held-out segments)", ["metric"] + sorted(set(lp21)), per21),
        table("WMT17 Pearson per language pair", ["metric"] + sorted(set(lp17)), per17),
    ]
    write_results("discotk_quality", tables, notes=[
        "Tuned weights: nlgmetrics/data/discotk_weights.json, trained by python -m nlgmetrics.training.discotk_weights "
        "on same-source DARR pairs of WMT21 training-split segments only; the WMT21 segments here are held out; "
        "WMT17 is never trained on.",
        "Sample sizes are limited by parsing time on 2 shared CPU cores; speed is not measured in this run.",
    ])


if __name__ == "__main__":
    main()

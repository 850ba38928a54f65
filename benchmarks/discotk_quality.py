"""DiscoTK quality and speed, beside sentence BLEU and chrF in the same run.

    python benchmarks/discotk_quality.py [--per-lp 50] [--speed-segments 400]

- WMT21 to-English (cs, de, ha, is, ja, ru, zh): segment-level DARR Kendall tau (WMT
  formulation, metric ties count as discordant) on source segments *held out* from tuning
  (nlgmetrics.training.discotk_weights.split_of: split by source segment id, never by pair);
  ``--per-lp`` held-out segments per language pair, fixed seed.
- WMT17 to-English (wmt17_da_seg, one output per segment, 560 per lp): segment-level Pearson
  with DA z-scores, per language pair, then averaged.
- Per-test-set normalisation (light, party-uniform) is done per language pair, as in the
  paper, by reducing each language pair's records separately.
- Speed: segments per second from cold (empty parse cache) on WMT17 segments.
"""
from __future__ import annotations

import argparse
from typing import Callable, Dict, List, Sequence

import numpy as np
from common import peak_rss_mb, read_jsonl, table, timer, write_results

from nlgmetrics.core.lexical import sentence_bleu, sentence_chrf
from nlgmetrics.core.linguistic import get_analyzer
from nlgmetrics.core.stats import darr_tau, pearson
from nlgmetrics.discotk import PARTY_MEMBERS, REPRESENTATIONS, DiscoTK
from nlgmetrics.training.discotk_weights import WMT21, flatten, sample_segments


def clear_parse_cache() -> None:
    """Empty the shared dependency-parse cache so that a timing includes parsing."""
    get_analyzer().clear()


def scores_by_lp(scorer: DiscoTK, records: List[dict], lps: Sequence[str]) -> np.ndarray:
    """Reduce each language pair's records separately (per-test-set normalisation per lp)."""
    out = np.zeros(len(records))
    for lp in sorted(set(lps)):
        idx = [i for i, l in enumerate(lps) if l == lp]
        result = scorer.reduce([records[i] for i in idx])
        out[idx] = result.scores  # records carry ids 0..n-1 in input order
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-lp", type=int, default=50, help="held-out WMT21 source segments per lp")
    ap.add_argument("--speed-segments", type=int, default=400)
    args = ap.parse_args()

    segments = sample_segments(read_jsonl(WMT21), "heldout", args.per_lp)
    h21, r21, pairs21 = flatten(segments)
    lp21 = [row["lp"] for row in segments for _ in row["hyps"]]
    wmt17 = read_jsonl("wmt17_da_seg.jsonl.gz")
    h17, r17 = [r["hyp"] for r in wmt17], [r["ref"] for r in wmt17]
    lp17, human17 = [r["lp"] for r in wmt17], [r["human"] for r in wmt17]

    light = DiscoTK(variant="light", quiet=True)
    chain = DiscoTK(variant="light", lexical_layer="chain", quiet=True)
    party_uniform = DiscoTK(variant="party", weights="uniform", quiet=True)
    #: name -> (scorer whose reduce gives the variant's scores, scorer whose records it reduces)
    variants: Dict[str, tuple] = {
        "DiscoTK-light": (light, party_uniform),
        "DiscoTK-light (chain layer)": (chain, chain),
        "DiscoTK-light tuned": (DiscoTK(variant="light", weights="tuned", quiet=True), party_uniform),
        "DiscoTK-party uniform": (party_uniform, party_uniform),
        "DiscoTK-party tuned": (DiscoTK(variant="party", quiet=True), party_uniform),
    }

    # speed from cold (empty caches), on the first WMT17 segments
    n_speed = min(args.speed_segments, len(h17))
    hs, rs_ = h17[:n_speed], r17[:n_speed]
    speed_rows = []
    for name, fn in (("DiscoTK-light", lambda: light.score(hs, rs_)),
                     ("DiscoTK-party", lambda: party_uniform.score(hs, rs_)),
                     ("sentence BLEU", lambda: [sentence_bleu(h, r) for h, r in zip(hs, rs_)]),
                     ("chrF", lambda: [sentence_chrf(h, r) for h, r in zip(hs, rs_)])):
        clear_parse_cache()
        light.clear_cache()
        party_uniform.clear_cache()
        with timer() as t:
            fn()
        speed_rows.append([name, n_speed, round(t["seconds"], 2), round(n_speed / t["seconds"], 1)])

    # raw features once per dataset (party's records hold the flat kernels too); each variant
    # only reduces them its own way
    with timer() as t_features:
        records = {scorer: (scorer.score_segments(scorer.validate(h21, r21)),
                            scorer.score_segments(scorer.validate(h17, r17))) for scorer in (party_uniform, chain)}
    metrics: Dict[str, Callable[[], tuple]] = {
        "sentence BLEU": lambda: (np.array([sentence_bleu(h, r) for h, r in zip(h21, r21)]),
                                  np.array([sentence_bleu(h, r) for h, r in zip(h17, r17)])),
        "chrF": lambda: (np.array([sentence_chrf(h, r) for h, r in zip(h21, r21)]),
                         np.array([sentence_chrf(h, r) for h, r in zip(h17, r17)])),
    }
    for name, (reducer, producer) in variants.items():
        rec21, rec17 = records[producer]
        metrics[name] = (lambda s=reducer, a=rec21, b=rec17: (scores_by_lp(s, a, lp21), scores_by_lp(s, b, lp17)))

    # single features (raw), for the card
    for feature in REPRESENTATIONS + PARTY_MEMBERS:
        rec21, rec17 = records[party_uniform]
        metrics[f"  feature {feature}"] = (lambda f=feature, a=rec21, b=rec17: (
            np.array([r["features"][f] for r in a]), np.array([r["features"][f] for r in b])))

    lps21, lps17 = sorted(set(lp21)), sorted(set(lp17))
    rows, per_lp21, per_lp17 = [], [], []
    for name, fn in metrics.items():
        s21, s17 = fn()
        taus = {}
        for lp in lps21:
            sel = [(b, w) for b, w in pairs21 if lp21[b] == lp]
            taus[lp] = darr_tau(s21[[b for b, _ in sel]], s21[[w for _, w in sel]])
        pooled_tau = darr_tau(s21[[b for b, _ in pairs21]], s21[[w for _, w in pairs21]])
        rs = {lp: pearson([s17[i] for i in range(len(lp17)) if lp17[i] == lp],
                          [human17[i] for i in range(len(lp17)) if lp17[i] == lp]) for lp in lps17}
        rows.append([name, round(float(np.mean(list(taus.values()))), 4), round(pooled_tau, 4),
                     round(float(np.nanmean(list(rs.values()))), 4)])
        per_lp21.append([name] + [round(taus[lp], 4) for lp in lps21])
        per_lp17.append([name] + [round(rs[lp], 4) for lp in lps17])

    n_pairs = len(pairs21)
    tables = [
        table("DiscoTK vs sentence BLEU and chrF (to-English, segment level)",
              ["metric", "WMT21 DARR tau (mean over lps)", "WMT21 DARR tau (pooled)", "WMT17 Pearson (mean over lps)"],
              rows,
              note=f"WMT21: {len(segments)} held-out source segments ({args.per_lp} per lp), {len(h21)} outputs, "
                   f"{n_pairs} DARR pairs (raw DA difference >= 25). WMT17: {len(h17)} segments, one output each. "
                   "Rows '  feature x' are single raw features of DiscoTK-party."),
        table("WMT21 DARR tau per language pair (held-out segments)", ["metric"] + lps21, per_lp21),
        table("WMT17 Pearson per language pair", ["metric"] + lps17, per_lp17),
        table("Speed (cold: parsing included; 2 shared CPU cores)", ["metric", "segments", "seconds", "segments/s"],
              speed_rows, note=f"peak RSS {peak_rss_mb():.0f} MiB; all variants' features for both test sets "
                               f"took {t_features['seconds']:.0f} s (party features, then chain kernels on cached parses)"),
    ]
    write_results("discotk_quality", tables, notes=[
        "Tuned weights: nlgmetrics/data/discotk_weights.json, trained by python -m "
        "nlgmetrics.training.discotk_weights on WMT21 training-split segments and WMT15/16; "
        "the WMT21 segments here are from the held-out split; WMT17 is never trained on.",
        "Light and party-uniform are normalised per test set (= per language pair) in reduce().",
    ])


if __name__ == "__main__":
    main()

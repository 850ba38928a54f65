"""TextEval against WMT21 DA (to-English): system level and segment groups, beside sentence BLEU
and chrF against the reference, in one run.

Data: ../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz, one line per source segment with the
rated outputs of every system (DA z-scores and raw 0-100 scores). A random sample of
``--groups`` source segments per language pair (seeded) is used for every metric alike.

What is computed, per language pair:
- system level: every system's outputs in the sample are concatenated (counts summed) and the
  systems rated as a set with ``TextEval.rank_documents`` (pairs of systems compared on the
  segments both have; each system's composite is the other systems' outputs of its own
  segments). Gold = each system's mean DA z-score over *all* its rated segments in the file.
  BLEU and chrF: sacrebleu corpus scores of the system's sampled outputs against the
  reference. Spearman and Pearson over systems.
- segment groups: for each sampled source with >= 3 rated outputs, its outputs form the set;
  each is rated against the rest (``TextEval.rank_counts``). Kendall tau-b between metric and
  human z within the group, averaged over groups (groups where tau is undefined are skipped);
  and the WMT DARR tau-like over all pairs of outputs of one source whose raw DA scores differ
  by >= 25 (``core.stats.darr_pairs``), where a metric tie counts as discordant.
- "+ref" rows add the reference translation to every standard set (it is not rated itself).
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import read_jsonl, table, timer, write_results  # noqa: E402

from nlgmetrics.core import stats  # noqa: E402
from nlgmetrics.core.lexical import sentence_bleu, sentence_chrf  # noqa: E402
from nlgmetrics.texteval import FEATURES, TextEval  # noqa: E402

DATA = "wmt21_da_seg_toen_grouped.jsonl.gz"


def nanmean(values: List[float]) -> float:
    v = [x for x in values if x == x]
    return float(np.mean(v)) if v else float("nan")


def corpus_lexical(outputs: Dict[str, List[Any]], refs: List[str]) -> Dict[str, Dict[str, float]]:
    """sacrebleu corpus BLEU and chrF of each system's sampled outputs against the reference."""
    from sacrebleu.metrics import BLEU, CHRF

    out: Dict[str, Dict[str, float]] = {"BLEU": {}, "chrF": {}}
    for system, col in outputs.items():
        pairs = [(h, r) for h, r in zip(col, refs) if h is not None]
        hyps, rs = [h for h, _ in pairs], [[r for _, r in pairs]]
        out["BLEU"][system] = BLEU().corpus_score(hyps, rs).score
        out["chrF"][system] = CHRF().corpus_score(hyps, rs).score
    return out


def evaluate_lp(lp: str, groups: List[Dict[str, Any]], gold: Dict[str, float],
                scorers: Dict[str, TextEval]) -> Dict[str, Any]:
    systems = sorted({s for g in groups for s in g["hyps"]})
    outputs = {s: [g["hyps"].get(s, {}).get("hyp") for g in groups] for s in systems}
    refs = [g["ref"] for g in groups]
    texts = list(dict.fromkeys([t for col in outputs.values() for t in col if t is not None] + refs))
    sys_scores: Dict[str, Dict[str, float]] = {}   # metric row -> system -> score
    sys_r2: Dict[str, float] = {}
    seg: Dict[str, List[List[tuple]]] = defaultdict(list)  # metric row -> groups of (z, raw, metric)
    seg_r2: Dict[str, List[float]] = defaultdict(list)
    for key, scorer in scorers.items():
        table_ = dict(zip(texts, scorer.counts(texts)))
        seg_counts = [[None if t is None else table_[t] for t in outputs[s]] for s in systems]
        for with_ref in (False, True):
            docs = seg_counts + ([[table_[r] for r in refs]] if with_ref else [])
            ranking = scorer.rank_documents(docs, names=systems + (["REF"] if with_ref else []))
            suffix = " +ref" if with_ref else ""
            sys_r2[f"{key}{suffix}"] = ranking.r2
            for approach in ("direct", "scaling"):
                sys_scores[f"{key} {approach}{suffix}"] = dict(zip(systems, getattr(ranking, approach)))
            for g in groups:
                members = [s for s in systems if s in g["hyps"]]
                if len(members) < 3:
                    continue
                counts = [table_[g["hyps"][s]["hyp"]] for s in members] + ([table_[g["ref"]]] if with_ref else [])
                r = scorer.rank_counts(counts)
                seg_r2[f"{key}{suffix}"].append(r.r2)
                for approach in ("direct", "scaling"):
                    values = getattr(r, approach)
                    seg[f"{key} {approach}{suffix}"].append(
                        [(g["hyps"][s]["human"], g["hyps"][s]["human_raw"], values[i]) for i, s in enumerate(members)])
    lexical = corpus_lexical(outputs, refs)
    for name, fn in (("BLEU", sentence_bleu), ("chrF", sentence_chrf)):
        sys_scores[name] = lexical[name]
        for g in groups:
            members = [s for s in systems if s in g["hyps"]]
            if len(members) >= 3:
                seg[name].append([(g["hyps"][s]["human"], g["hyps"][s]["human_raw"], fn(g["hyps"][s]["hyp"], g["ref"]))
                                  for s in members])
    result: Dict[str, Any] = {"systems": len(systems), "groups": len(groups),
                              "outputs": sum(len(g["hyps"]) for g in groups), "rows": {}}
    human = [gold[s] for s in systems]
    for row, scores in sys_scores.items():
        metric = [scores[s] for s in systems]
        taus = [stats.kendall_tau_b([m for _, _, m in grp], [z for z, _, _ in grp]) for grp in seg[row]]
        better, worse = stats.darr_pairs([[(raw, m) for _, raw, m in grp] for grp in seg[row]])
        result["rows"][row] = {"sys_spearman": stats.spearman(metric, human),
                               "sys_pearson": stats.pearson(metric, human),
                               "seg_kendall": nanmean(taus), "seg_groups": sum(1 for t in taus if t == t),
                               "darr": stats.darr_tau(better, worse), "darr_pairs": len(better)}
    result["sys_r2"] = sys_r2
    result["seg_r2"] = {k: nanmean(v) for k, v in seg_r2.items()}
    result["seg_r2_below_0.1"] = {k: float(np.mean([x < 0.1 for x in v if x == x])) for k, v in seg_r2.items()}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=250, help="source segments sampled per language pair")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--distance", default="g2", choices=["g2", "neg_log_p"])
    parser.add_argument("--lps", default="", help="comma-separated language pairs (default: all)")
    args = parser.parse_args()

    rows = read_jsonl(DATA)
    by_lp: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_lp[r["lp"]].append(r)
    lps = [lp for lp in sorted(by_lp) if not args.lps or lp in args.lps.split(",")]
    scorers = {m: TextEval(features=m, distance=args.distance, quiet=True) for m in FEATURES}
    results: Dict[str, Any] = {}
    with timer() as t:
        for lp in lps:
            sums: Dict[str, List[float]] = defaultdict(list)
            for g in by_lp[lp]:
                for s, h in g["hyps"].items():
                    sums[s].append(h["human"])
            gold = {s: float(np.mean(v)) for s, v in sums.items()}
            rng = random.Random(f"{args.seed}-{lp}")
            groups = rng.sample(by_lp[lp], min(args.groups, len(by_lp[lp])))
            with timer() as t_lp:
                results[lp] = evaluate_lp(lp, groups, gold, scorers)
            print(f"{lp}: {results[lp]['groups']} groups, {results[lp]['outputs']} outputs, "
                  f"{t_lp['seconds']:.0f}s", file=sys.stderr)
    row_names = list(next(iter(results.values()))["rows"])
    tables = []
    for key, title in (("sys_spearman", "System-level Spearman with mean DA z"),
                       ("sys_pearson", "System-level Pearson with mean DA z"),
                       ("seg_kendall", "Segment groups: mean Kendall tau-b within each source's outputs"),
                       ("darr", "Segment groups: WMT DARR tau-like (raw DA difference >= 25)")):
        body = [[row] + [results[lp]["rows"][row][key] for lp in lps]
                + [nanmean([results[lp]["rows"][row][key] for lp in lps])] for row in row_names]
        tables.append(table(title, ["metric"] + lps + ["avg"], body,
                            note=f"TextEval distance={args.distance}; {args.groups} sampled sources per pair "
                                 f"(seed {args.seed}); BLEU/chrF against the reference."))
    r2_rows = []
    for key in results[lps[0]]["sys_r2"]:
        r2_rows.append([f"{key}: system scale r2"] + [results[lp]["sys_r2"][key] for lp in lps]
                       + [nanmean([results[lp]["sys_r2"][key] for lp in lps])])
        r2_rows.append([f"{key}: mean segment-group r2"] + [results[lp]["seg_r2"][key] for lp in lps]
                       + [nanmean([results[lp]["seg_r2"][key] for lp in lps])])
        r2_rows.append([f"{key}: share of groups r2 < 0.1"] + [results[lp]["seg_r2_below_0.1"][key] for lp in lps]
                       + [nanmean([results[lp]["seg_r2_below_0.1"][key] for lp in lps])])
    tables.append(table("Share of pairwise-distance variance explained by the 1-D scale (r2)",
                        ["scale"] + lps + ["avg"],
                        r2_rows, note="the paper discards scales with r2 below about 0.1"))
    size_rows = [[lp, results[lp]["systems"], results[lp]["groups"], results[lp]["outputs"],
                  results[lp]["rows"]["BLEU"]["seg_groups"], results[lp]["rows"]["BLEU"]["darr_pairs"]] for lp in lps]
    tables.append(table("Data used", ["lp", "systems", "sources", "rated outputs", "groups with tau", "DARR pairs"],
                        size_rows))
    name = "texteval_quality" if args.distance == "g2" else f"texteval_quality_{args.distance}"
    write_results(name, tables,
                  notes=[f"total {t['seconds']:.0f}s", __doc__.split("\n\n", 1)[1].strip()],
                  extra={"settings": vars(args), "per_lp": results})


if __name__ == "__main__":
    main()

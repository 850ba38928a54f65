"""Reference values for ``nlgmetrics.meta.rank`` from google-research/mt-metrics-eval's OWN
code, on a small EvalSet built from the WMT21 cs-en rows of ``$NLGMETRICS_SHARED/data``::

    python shared/tools/mtme_reference/rank_reference.py --mtme /path/to/mt-metrics-eval [--build]

``--mtme`` is a local copy of https://github.com/google-research/mt-metrics-eval (the folder
holding ``mt_metrics_eval/``; nothing of it is copied here; the PyPI package named
``mt-metrics-eval`` is someone else's and is not used). Last run against commit
68a481aea1a787392d55af8f76ac8ef40c5f4664 (2026-04-23), Python 3.11, numpy 2.4.6, scipy 1.17.1.

``--build`` (re)writes the EvalSet ``tests/meta/data/mtme_rank/wmt21sub`` in mt-metrics-eval's
layout: the 6 systems of cs-en rated on the most segments, the first 100 segments (by sid) where
all 6 are rated; documents are the segments in runs of 10 (the grouped file has no document
ids); human scores ``wmt-raw`` (seg: the rows' raw 0-100 DA scores, which tie often, as
acc*_eq's epsilon search needs; sys: each system's mean of them); metrics, each with a ``seg`` and a ``sys`` file: ``BLEU-refA`` and ``chrF-refA``
(sacrebleu's sentence and corpus scores), ``noisyA-refA`` / ``noisyB-refA`` (the rows' DA z-score plus
Gaussian noise, sd 0.6 / 1.2), ``coarse-src`` (z plus noise of sd 0.8, rounded to halves, so
that it has ties), ``rawnoise-refA`` (the raw score plus noise of sd 10, the same for the
outputs of a segment with the same raw score, plus a jitter of sd 0.02: its acc*_eq's best
epsilon is not 0, where the others' is, raw scores tying in 4 % of the pairs only); the
synthetic ones' sys score is the mean of their seg scores.

Then it reads the EvalSet with mt-metrics-eval's ``data.EvalSet`` and writes
``tests/meta/data/rank_reference.json``: every statistic from their code (``stats.Correlation``
Pearson / Spearman / Kendall at seg level, item-averaged and at sys level, ``KendallWithTiesOpt``
acc23, ``Agreement`` pairwise accuracy, ``PairwiseConfidenceError`` (SPA)), and per ranked
statistic their ``CompareMetrics*`` output: metrics in order, ``ComputeSigMatrix``'s p-value
matrix and draws used per pair (Perm-Both, ``numpy.random.seed(SEED)`` before each), and the
ranks of ``AssignRanks``. Systems are passed in name order (``stats.Correlation`` built as
``EvalSet.Correlation`` builds it, which iterates a ``set``: its order, and so which system each
random draw swaps, changes with Python's hash seed); the values through their own
``GetCorrelations`` are checked equal first. Their modules import ``apache_beam`` and ``dacite``
for paths not taken here (parallel runs, rating files): empty stand-ins when they are absent.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any, Callable, Dict, List

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
DATA_DIR = ROOT / "tests" / "meta" / "data"
TESTSET, LP, REF, HUMAN = "wmt21sub", "cs-en", "refA", "wmt-raw"
N_SYSTEMS, N_SEGMENTS, DOC_SIZE = 6, 100, 10
#: k = 100 draws per pair (WMT runs 1,000; the test reruns every table, and the draws are the
#: same ones, so parity needs no more); early stopping checked every 50 draws so that it is
#: exercised (tasks.Task checks every 100 with early_min 0.02, early_max 0.5)
SEED, K, PVAL = 1234, 100, 0.05
BLOCK_SIZE, EARLY_MIN, EARLY_MAX = 50, 0.02, 0.50
NOISY = {"noisyA-refA": 0.6, "noisyB-refA": 1.2}
#: modules mt-metrics-eval imports for paths not taken here: apache_beam (ComputeSigMatrix's
#: parallel_file), dacite (ratings files); empty stand-ins when they are not installed
STAND_INS = ("apache_beam", "dacite")


def build(shared: Path, out: Path) -> None:
    """Write the EvalSet of the module docstring under ``out`` (the test-set folder)."""
    import sacrebleu

    from nlgmetrics.meta.mtme import format_score_lines

    with gzip.open(shared / "data" / "wmt21_da_seg_toen_grouped.jsonl.gz", "rt", encoding="utf-8") as fh:
        rows = sorted((r for r in map(json.loads, fh) if r["lp"] == LP), key=lambda r: r["sid"])
    counts: Dict[str, int] = {}
    for r in rows:
        for s, h in r["hyps"].items():
            if s != "HUMAN" and h.get("human") is not None:
                counts[s] = counts.get(s, 0) + 1
    systems = sorted(sorted(counts, key=lambda s: (-counts[s], s))[:N_SYSTEMS])
    chosen = [r for r in rows if all(r["hyps"].get(s, {}).get("human") is not None for s in systems)][:N_SEGMENTS]
    for sub in ("sources", "references", f"system-outputs/{LP}", "documents", "human-scores", f"metric-scores/{LP}"):
        (out / sub).mkdir(parents=True, exist_ok=True)

    def lines(path: Path, texts: List[str]) -> None:
        path.write_text("".join(" ".join(t.split()) + "\n" for t in texts), encoding="utf-8")

    refs = [r["ref"] for r in chosen]
    lines(out / "sources" / f"{LP}.txt", [r["src"] for r in chosen])
    lines(out / "references" / f"{LP}.{REF}.txt", refs)
    lines(out / "documents" / f"{LP}.docs", [f"news doc{k // DOC_SIZE}" for k in range(len(chosen))])
    hyps = {s: [" ".join(r["hyps"][s]["hyp"].split()) for r in chosen] for s in systems}
    for s in systems:
        lines(out / "system-outputs" / LP / f"{s}.txt", hyps[s])
    human = {s: [float(r["hyps"][s]["human"]) for r in chosen] for s in systems}  # z-scores
    raw = {s: [float(r["hyps"][s]["human_raw"]) for r in chosen] for s in systems}  # 0-100: ties

    def write(name: str, level: str, scores: Dict[str, List[float]], folder: str = f"metric-scores/{LP}") -> None:
        path = out / folder / (f"{LP}.{name}.{level}.score" if folder == "human-scores" else f"{name}.{level}.score")
        path.write_text("".join(line + "\n" for line in format_score_lines(scores)), encoding="utf-8")

    write(HUMAN, "seg", raw, "human-scores")
    write(HUMAN, "sys", {s: [float(np.mean(v))] for s, v in raw.items()}, "human-scores")
    write("BLEU-refA", "seg", {s: [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps[s], refs)] for s in systems})
    write("BLEU-refA", "sys", {s: [sacrebleu.corpus_bleu(hyps[s], [refs]).score] for s in systems})
    write("chrF-refA", "seg", {s: [sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(hyps[s], refs)] for s in systems})
    write("chrF-refA", "sys", {s: [sacrebleu.corpus_chrf(hyps[s], [refs]).score] for s in systems})
    rng = np.random.default_rng(2021)
    noisy = {name: {s: [round(v + float(rng.normal(0, sd)), 6) for v in human[s]] for s in systems}
             for name, sd in NOISY.items()}
    noisy["coarse-src"] = {s: [round(2 * (v + float(rng.normal(0, 0.8)))) / 2 for v in human[s]] for s in systems}
    same: Dict[tuple, float] = {}  # (segment, raw score) -> noise: equal raw scores stay near-equal
    noisy["rawnoise-refA"] = {s: [round(v + same.setdefault((k, v), float(rng.normal(0, 10)))
                                        + float(rng.normal(0, 0.02)), 3) for k, v in enumerate(raw[s])]
                              for s in systems}
    for name, seg in noisy.items():
        write(name, "seg", seg)
        write(name, "sys", {s: [float(np.mean(v))] for s, v in seg.items()})


def _import_mtme(path: Path) -> types.SimpleNamespace:
    sys.path.insert(0, str(path))
    for name in STAND_INS:
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
    from mt_metrics_eval import data, meta_info, stats

    return types.SimpleNamespace(data=data, meta_info=meta_info, stats=stats)


def reference(mtme_path: Path, root: Path, k: int = K) -> Dict[str, Any]:
    """Run mt-metrics-eval's functions on the EvalSet under ``root/TESTSET`` (module docstring)."""
    import scipy.stats

    m = _import_mtme(mtme_path)
    info = m.meta_info.MetaInfo(REF, {"seg": HUMAN, "sys": HUMAN}, set(), set())
    evs = m.data.EvalSet(TESTSET, LP, read_stored_metric_scores=True, info=info, path=str(root), strict=True)
    metrics = sorted(evs.metric_names)
    systems = sorted(evs.sys_names - {REF})

    def corr(level: str, name: str) -> Any:
        gold, scores = evs.Scores(level, HUMAN), evs.Scores(level, name)
        return m.stats.Correlation(len(systems), [g for s in systems for g in gold[s]],
                                   [x for s in systems for x in scores[s]])

    seg = {name: corr("seg", name) for name in metrics}
    sys_ = {name: corr("sys", name) for name in metrics}
    # the same values through their own GetCorrelations (systems in set order)
    for level, mine in (("seg", seg), ("sys", sys_)):
        theirs = m.data.GetCorrelations(evs, level, {REF}, set(), True, True, HUMAN, False)
        for name in metrics:
            for avg in (("none", "item") if level == "seg" else ("none",)):
                a, b = mine[name].Pearson(avg)[0], theirs[name].Pearson(avg)[0]
                assert abs(a - b) < 1e-12, (level, name, avg, a, b)

    def acc(gold: List[float], metric: List[float]) -> tuple:  # CompareMetricsWithGlobalAccuracy's, one EvalSet
        agree, pairs = m.stats.Agreement(gold, metric)
        return agree / pairs, pairs

    values: Dict[str, Dict[str, Any]] = {}
    for name in metrics:
        kwto = seg[name].KendallWithTiesOpt("item", "acc23", 1.0)
        values[name] = {
            "seg": {"pearson": seg[name].Pearson()[0], "spearman": seg[name].Spearman()[0],
                    "kendall": seg[name].Kendall()[0]},
            "item": {"pearson": seg[name].Pearson("item")[0], "spearman": seg[name].Spearman("item")[0],
                     "kendall": seg[name].Kendall("item")[0], "tie_calibrated_accuracy": kwto[0]},
            "sys": {"pearson": sys_[name].Pearson()[0], "spearman": sys_[name].Spearman()[0],
                    "kendall": sys_[name].Kendall()[0], "pairwise_accuracy": acc(sys_[name].gold_scores,
                                                                                 sys_[name].metric_scores)[0],
                    "soft_pairwise_accuracy": seg[name].PairwiseConfidenceError()[0]},
            "epsilon": m.stats.KendallWithTiesOpt(seg[name].gold_scores, seg[name].metric_scores, "acc23",
                                                  len(systems), "item", 1.0)[1],
        }
    psd = m.stats.PermutationSigDiffParams(BLOCK_SIZE, EARLY_MIN, EARLY_MAX)

    def table(fn: Callable[[], tuple]) -> Dict[str, Any]:
        np.random.seed(SEED)
        start = time.perf_counter()
        ranked, sig, index, _draws = fn()
        print(f"  {time.perf_counter() - start:.0f} s: {list(ranked)}", flush=True)
        n = len(ranked)
        used = [[int(index[j, i] - index[i, j]) if j > i else 0 for j in range(n)] for i in range(n)]
        return {"order": list(ranked), "values": [float(v[0]) for v in ranked.values()],
                "ranks": [int(v[1]) for v in ranked.values()], "p_matrix": np.asarray(sig, float).tolist(),
                "k_used": used}

    tables = {
        "sys.pearson": table(lambda: m.data.CompareMetrics(sys_, scipy.stats.pearsonr, "none", k, psd, PVAL)),
        "sys.pairwise_accuracy": table(lambda: _accuracy_table(m, sys_, acc, psd, k)),
        "sys.soft_pairwise_accuracy": table(lambda: m.data.CompareMetricsWithPairwiseConfidenceError(
            seg, k, psd, PVAL)),
        "seg.pearson": table(lambda: m.data.CompareMetrics(seg, scipy.stats.pearsonr, "none", k, psd, PVAL)),
        "seg.kendall": table(lambda: m.data.CompareMetrics(seg, scipy.stats.kendalltau, "none", k, psd, PVAL)),
        "item.pearson": table(lambda: m.data.CompareMetrics(seg, scipy.stats.pearsonr, "item", k, psd, PVAL)),
        "item.tie_calibrated_accuracy": table(lambda: m.data.CompareMetrics(
            seg, m.stats.KendallWithTiesOpt, "item", k, psd, PVAL, variant="acc23", sample_rate=1.0)),
    }
    return {"mt_metrics_eval_commit": _commit(mtme_path), "evalset": f"mtme_rank/{TESTSET}", "lp": LP,
            "human": HUMAN, "ref": REF, "systems": systems, "seed": SEED, "k": k, "pval": PVAL,
            "block_size": BLOCK_SIZE, "early_min": EARLY_MIN, "early_max": EARLY_MAX,
            "spa_permutations": 1000, "spa_seed": 4, "values": values, "tables": tables}


def _accuracy_table(m: types.SimpleNamespace, corrs: Dict[str, Any], acc: Callable[..., tuple], psd: Any,
                    k: int) -> tuple:
    """CompareMetricsWithGlobalAccuracy's steps on one EvalSet's correlations (systems in name order)."""
    ranked = {name: [acc(c.gold_scores, c.metric_scores)[0], 0] for name, c in corrs.items()}
    ranked = dict(sorted(ranked.items(), key=lambda x: (-x[1][0], x[0])))
    sig, index, draws = m.data.ComputeSigMatrix(corrs, ranked, acc, "none", k, psd, False, "scores")
    for i, rank in enumerate(m.data.AssignRanks(sig, PVAL)):
        ranked[list(ranked)[i]][1] = rank
    return ranked, sig, index, draws


def _commit(path: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def main(argv: List[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mtme", type=Path, required=True, help="local copy of google-research/mt-metrics-eval")
    parser.add_argument("--build", action="store_true", help="rebuild the EvalSet from the WMT21 rows first")
    parser.add_argument("--k", type=int, default=K, help=f"draws per pair (default {K})")
    parser.add_argument("--out", type=Path, default=DATA_DIR / "rank_reference.json")
    parser.add_argument("--shared", type=Path, default=Path(os.environ.get("NLGMETRICS_SHARED", ROOT.parent / "shared")))
    args = parser.parse_args(argv)
    root = DATA_DIR / "mtme_rank"
    if args.build or not (root / TESTSET).exists():
        build(args.shared, root / TESTSET)
    out = reference(args.mtme, root, args.k)
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    for key, t in out["tables"].items():
        print(f"{key}: ranks {dict(zip(t['order'], t['ranks']))}")


if __name__ == "__main__":
    main()

"""Compare training objectives for RoMe's monotone scorer network on held-out synthetic pairs
only (never on a benchmark): binary cross-entropy on the labelled pairs (what ships), a
pairwise ranking loss on same-reference (meaning-preserving variant, perturbed variant)
triples, and both together.

    python shared/tools/training/rome_ranking.py [--cache /tmp/rome_ranking.npz] [--output X.json]

The labelled pairs are :func:`.rome_scorer.make_pairs` (2,500 + 2,500 train, 500 + 500
held out); the triples come from the same generator with seed ``SEED + 1`` (2,500 train, 500
held out). Criterion, fixed before looking: the mean of held-out classification accuracy and
held-out same-reference ranking accuracy (share of triples whose positive scores higher).

``--confirm N`` also scores the three networks on a fresh confirmation set drawn after the
comparison above had been run several times: N pairs per class (seed ``SEED + 2``) and N
triples (seed ``SEED + 3``), never used for anything else. Rule, declared before its first
run: the cross-entropy + ranking objective replaces plain cross-entropy only if, on the
confirmation set, its criterion is higher by more than 0.002, it gets significantly more
triples right (exact McNemar p < 0.05) and it does not get significantly fewer pairs right.
"""
from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from nlgmetrics.core.resources import data_path
from nlgmetrics.rome import FEATURE_ORDER, RoMe
from nlgmetrics.rome.fit import accuracy_by_kind, train_network
from nlgmetrics.rome.pairs import SEED, PairBuilder, make_pairs

N_TRIPLES = 2500
N_TRIPLES_TEST = 500
OBJECTIVES: dict[str, tuple[float, float]] = {  # name -> (classification weight, ranking weight)
    "classification": (1.0, 0.0), "ranking": (0.0, 1.0), "classification+ranking": (1.0, 1.0)}


def make_triples(seed: int = SEED + 1, n_train: int = N_TRIPLES, n_test: int = N_TRIPLES_TEST
                 ) -> dict[str, list[tuple[str, str, str, str, str]]]:
    builder = PairBuilder(json.loads(data_path("rome_scorer_facts.json").read_text()), random.Random(seed))
    return {"train": builder.triples(n_train), "test": builder.triples(n_test)}


def _features(scorer: RoMe, hyps: list[str], refs: list[str]) -> np.ndarray:
    feats = scorer.features(hyps, refs, final=False)
    return np.column_stack([feats[k] for k in FEATURE_ORDER])


def ranking_by_kind(pos: np.ndarray, neg: np.ndarray, triples: Sequence[Any]) -> dict[str, float]:
    """Share of triples whose positive scores strictly higher, per negative kind and overall."""
    out: dict[str, list[bool]] = {}
    for p, n, t in zip(pos, neg, triples):
        out.setdefault(t[4], []).append(bool(p > n))
        out.setdefault("all", []).append(bool(p > n))
    return {k: round(float(np.mean(v)), 4) for k, v in sorted(out.items())}


def discordant(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Items right by ``a`` only and by ``b`` only, and the exact two-sided McNemar p-value."""
    from scipy.stats import binomtest

    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    p = binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
    return {"only_this": only_a, "only_classification": only_b, "mcnemar_p": round(float(p), 4)}


def evaluate(net: torch.nn.Module, x_pairs: np.ndarray, pair_rows: Sequence[Any], x_pos: np.ndarray,
             x_neg: np.ndarray, triple_rows: Sequence[Any]) -> dict[str, Any]:
    """Accuracy by kind on labelled pairs, ranking accuracy on triples, their mean (the
    criterion) and, under ``right``, which pairs and triples the network gets right."""
    with torch.no_grad():
        prob, pos, neg = (torch.sigmoid(net(torch.tensor(x, dtype=torch.float32))).numpy()
                          for x in (x_pairs, x_pos, x_neg))
    acc = accuracy_by_kind(prob, pair_rows)
    rank = ranking_by_kind(pos, neg, triple_rows)
    labels = np.array([r[3] for r in pair_rows])
    return {"accuracy": acc, "ranking": rank, "criterion": round((acc["all"] + rank["all"]) / 2, 4),
            "right": ((prob > 0.5) == (labels == 1), pos > neg)}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=None, help="an .npz of computed features (reused when present)")
    parser.add_argument("--output", type=Path, default=None, help="write the results as JSON")
    parser.add_argument("--confirm", type=int, default=0, metavar="N",
                        help="also score a fresh confirmation set of N pairs per class and N triples (see above)")
    args = parser.parse_args(argv)
    pairs, triples = make_pairs(), make_triples()
    fresh: dict[str, list[Any]] | None = None
    if args.confirm:
        fresh = {"pairs": make_pairs(SEED + 2, 0, args.confirm)["test"],
                 "triples": make_triples(SEED + 3, 0, args.confirm)["test"]}
    cached: dict[str, np.ndarray] = {}
    if args.cache and args.cache.exists():
        with np.load(args.cache) as data:
            cached = {k: data[k] for k in data.files}
    scorer = None
    everything: dict[str, list[Any]] = {"pairs": pairs["train"] + pairs["test"],
                                        "triples": triples["train"] + triples["test"]}
    for prefix, sets in (("", everything), (f"confirm{args.confirm}_", fresh)):
        if sets is None or f"{prefix}pairs" in cached:
            continue
        scorer = scorer or RoMe(profile="lite", quiet=True, device="cpu")
        rows, trip = sets["pairs"], sets["triples"]
        cached.update({f"{prefix}pairs": _features(scorer, [r[1] for r in rows], [r[0] for r in rows]),
                       f"{prefix}pos": _features(scorer, [t[1] for t in trip], [t[0] for t in trip]),
                       f"{prefix}neg": _features(scorer, [t[3] for t in trip], [t[0] for t in trip])})
        if args.cache:
            np.savez(args.cache, **cached)  # type: ignore[arg-type]
    n, m = len(pairs["train"]), len(triples["train"])
    y = np.array([r[3] for r in pairs["train"]], dtype=np.float32)
    results: list[dict[str, Any]] = []
    right: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # per objective: held-out pairs, triples right
    confirm_right: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, (w_class, w_rank) in OBJECTIVES.items():
        net = train_network(cached["pairs"][:n], y, SEED, ranked=(cached["pos"][:m], cached["neg"][:m]),
                            rank_weight=w_rank, class_weight=w_class)
        held = evaluate(net, cached["pairs"][n:], pairs["test"], cached["pos"][m:], cached["neg"][m:], triples["test"])
        right[name] = held.pop("right")
        train = evaluate(net, cached["pairs"][:n], pairs["train"], cached["pos"][:m], cached["neg"][:m],
                         triples["train"])
        rank = held["ranking"]
        results.append({"objective": name, "weights": {"classification": w_class, "ranking": w_rank},
                        "held_out_accuracy": held["accuracy"], "held_out_ranking": rank,
                        "train_ranking": train["ranking"]["all"], "criterion": held["criterion"]})
        print(f"{name:24s} held-out accuracy {held['accuracy']['all']:.4f} ranking {rank['all']:.4f} "
              f"(role reversal {rank.get('role_reversal', float('nan')):.4f}, antonym "
              f"{rank.get('antonym', float('nan')):.4f}, entity swap {rank.get('entity_swap', float('nan')):.4f}) "
              f"criterion {results[-1]['criterion']:.4f}", flush=True)
        if fresh is not None:
            p = f"confirm{args.confirm}_"
            conf = evaluate(net, cached[f"{p}pairs"], fresh["pairs"], cached[f"{p}pos"], cached[f"{p}neg"],
                            fresh["triples"])
            confirm_right[name] = conf.pop("right")
            results[-1]["confirmation"] = conf
            print(f"{'':24s} confirmation accuracy {conf['accuracy']['all']:.4f} ranking "
                  f"{conf['ranking']['all']:.4f} criterion {conf['criterion']:.4f}", flush=True)
    for r in results:  # paired comparison with the shipped objective: exact McNemar tests
        r["vs_classification"] = {part: discordant(right[r["objective"]][k], right["classification"][k])
                                  for k, part in enumerate(("held_out_pairs", "held_out_triples"))}
        if fresh is not None:
            r["confirmation"]["vs_classification"] = {
                part: discordant(confirm_right[r["objective"]][k], confirm_right["classification"][k])
                for k, part in enumerate(("pairs", "triples"))}
    best = max(results, key=lambda r: r["criterion"])
    print("best:", best["objective"], json.dumps(best["vs_classification"]))
    adopt = None
    if fresh is not None:
        conf_of = {r["objective"]: r["confirmation"] for r in results}
        vs = conf_of["classification+ranking"]["vs_classification"]
        adopt = (conf_of["classification+ranking"]["criterion"] - conf_of["classification"]["criterion"] > 0.002
                 and vs["triples"]["only_this"] > vs["triples"]["only_classification"]
                 and vs["triples"]["mcnemar_p"] < 0.05
                 and not (vs["pairs"]["only_this"] < vs["pairs"]["only_classification"]
                          and vs["pairs"]["mcnemar_p"] < 0.05))
        print("confirmation:", json.dumps(vs), "-> adopt classification+ranking" if adopt else "-> keep classification")
    kinds = {k: sum(t[4] == k for t in triples["train"]) for k in sorted({t[4] for t in triples["train"]})}
    payload = {"results": results, "best": best["objective"], "train_triples_by_negative_kind": kinds,
               **({"confirmation": {"pairs_per_class": args.confirm, "triples": args.confirm,
                                    "adopt_classification_plus_ranking": adopt}} if fresh is not None else {}),
               "train_pairs_by_kind": {k: sum(r[2] == k for r in pairs["train"])
                                       for k in sorted({r[2] for r in pairs["train"]})}}
    if args.output:
        args.output.write_text(json.dumps(payload, indent=1) + "\n")
    return payload


if __name__ == "__main__":
    main()

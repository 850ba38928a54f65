"""Rebuild DiscoTK's shipped tuned weights (``nlgmetrics/data/discotk_weights.json``).

    python -m nlgmetrics.training.discotk_weights [--per-lp 180] [--c 1.0]

Data: WMT21 to-English grouped DA (``../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz``;
cs, de, ha, is, ja, ru, zh -> en). Pairs are WMT DARR pairs: two outputs of the same source
segment whose raw DA scores differ by at least 25 points (better, worse).

Split, by source segment, never by pair: a segment ``(lp, sid)`` is a *training* segment when
the first 8 hex digits of sha1("lp:sid") / 16**8 < 0.5, otherwise it is *held out* (for
benchmarks/discotk_quality.py). From the training segments, ``--per-lp`` segments per
language pair are drawn with a fixed seed (parsing time on a small CPU is the limit).
WMT17 (used by the benchmark for Pearson with DA) is not trained on; WMT15/16 has no
system groups, so it yields no DARR pairs.

Both variants are fitted on the same pairs: party on its ten features, light on the five
kernel features (pairwise logistic regression, ``DiscoTK.fit``).
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

SEED = 2014
TRAIN_FRACTION = 0.5
DARR_THRESHOLD = 25.0
WMT21 = "wmt21_da_seg_toen_grouped.jsonl.gz"
ROOT = Path(__file__).resolve().parents[3]


def shared_data_dir() -> Path:
    """``$NLGMETRICS_SHARED/data`` or ``../shared/data`` beside the checkout."""
    return Path(os.environ.get("NLGMETRICS_SHARED", ROOT.parent / "shared")) / "data"


def read_jsonl_gz(name: str) -> List[Dict[str, Any]]:
    path = shared_data_dir() / name
    if not path.exists():
        sys.exit(f"{path} not found: ../shared/data must sit beside the checkout")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def split_of(lp: str, sid: Any) -> str:
    """"train" or "heldout" for a source segment, by a hash of its id (stable, seed-free)."""
    bucket = int(hashlib.sha1(f"{lp}:{sid}".encode()).hexdigest()[:8], 16) / 16 ** 8
    return "train" if bucket < TRAIN_FRACTION else "heldout"


def sample_segments(rows: Sequence[Dict[str, Any]], split: str, per_lp: int, seed: int = SEED
                    ) -> List[Dict[str, Any]]:
    """Up to ``per_lp`` source segments per language pair from one split (fixed seed), keeping
    only segments with at least one DARR pair."""
    by_lp: Dict[str, List[Dict[str, Any]]] = {}
    for row in rows:
        if split_of(row["lp"], row["sid"]) == split and darr_index_pairs(row):
            by_lp.setdefault(row["lp"], []).append(row)
    rng = random.Random(seed)
    out: List[Dict[str, Any]] = []
    for lp in sorted(by_lp):
        group = sorted(by_lp[lp], key=lambda r: r["sid"])
        rng.shuffle(group)
        out.extend(sorted(group[:per_lp], key=lambda r: r["sid"]))
    return out


def darr_index_pairs(row: Dict[str, Any], threshold: float = DARR_THRESHOLD) -> List[Tuple[str, str]]:
    """(better system, worse system) pairs of one grouped segment by the DARR rule."""
    systems = sorted(row["hyps"])
    out = []
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            ha, hb = row["hyps"][a]["human_raw"], row["hyps"][b]["human_raw"]
            if abs(ha - hb) >= threshold:
                out.append((a, b) if ha > hb else (b, a))
    return out


def flatten(rows: Sequence[Dict[str, Any]]) -> Tuple[List[str], List[str], List[Tuple[int, int]]]:
    """All (hypothesis, reference) segments of the grouped rows and the DARR pairs as indices
    into them (better, worse)."""
    hyps, refs, pairs = [], [], []
    for row in rows:
        index = {}
        for system in sorted(row["hyps"]):
            index[system] = len(hyps)
            hyps.append(row["hyps"][system]["hyp"])
            refs.append(row["ref"])
        pairs.extend((index[a], index[b]) for a, b in darr_index_pairs(row))
    return hyps, refs, pairs


def main(argv: Optional[Sequence[str]] = None) -> None:
    from ..core.resources import DATA_DIR
    from ..discotk import REPRESENTATIONS, WEIGHTS_FILE, DiscoTK, fit_pairwise

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-lp", type=int, default=180, help="training source segments per language pair")
    ap.add_argument("--c", type=float, default=1.0, help="inverse L2 strength")
    ap.add_argument("--out", default=str(DATA_DIR / WEIGHTS_FILE))
    args = ap.parse_args(argv)

    rows = sample_segments(read_jsonl_gz(WMT21), "train", args.per_lp)
    hyps, refs, pairs = flatten(rows)
    print(f"{len(rows)} training segments, {len(hyps)} outputs, {len(pairs)} DARR pairs", file=sys.stderr)
    start = time.perf_counter()
    scorer = DiscoTK(variant="party", weights="uniform")
    features = scorer.features(hyps, refs)
    print(f"features in {time.perf_counter() - start:.0f}s", file=sys.stderr)
    better = features[[b for b, _ in pairs]]
    worse = features[[w for _, w in pairs]]
    meta = {"data": f"WMT21 to-English DARR pairs ({WMT21}), training split of source segments "
                    f"(sha1 bucket < {TRAIN_FRACTION}), {args.per_lp} segments per lp, seed {SEED}",
            "segments": len(rows), "outputs": len(hyps), "script": "python -m nlgmetrics.training.discotk_weights"}
    out: Dict[str, Any] = {}
    for variant, columns in (("party", scorer.features_used), ("light", REPRESENTATIONS)):
        idx = [scorer.features_used.index(c) for c in columns]
        model = fit_pairwise(better[:, idx], worse[:, idx], columns, c=args.c)
        model.meta.update(meta)
        out[variant] = model.to_dict()
        print(variant, json.dumps(out[variant]["weights"]), model.meta["train_pair_accuracy"], file=sys.stderr)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

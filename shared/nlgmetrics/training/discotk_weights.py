"""Rebuild DiscoTK's shipped tuned weights (``nlgmetrics/data/discotk_weights.json``).

    python -m nlgmetrics.training.discotk_weights [--per-lp 60] [--c 1.0]

Training pairs (human better, worse), all to-English:

1. WMT21 grouped DA (``../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz``; cs, de, ha, is,
   ja, ru, zh -> en): WMT DARR pairs, two outputs of the same source segment whose raw DA
   scores differ by at least 25 points. Split by source segment, never by pair: a segment
   ``(lp, sid)`` is a *training* segment when int(sha1("lp:sid")[:8], 16) / 16**8 < 0.5,
   otherwise it is *held out* for benchmarks/discotk_quality.py. ``--per-lp`` training
   segments per language pair are drawn with a fixed seed (parsing and TER/METEOR time on a
   small CPU is the limit).
2. WMT15/16 DA (``wmt15_16_da_seg.jsonl.gz``; cs, de, fi, ru -> en; one output per source,
   DA z averaged over many ratings): relative-ranking pairs of two outputs of the same year
   and language pair whose DA z-scores differ by at least ``--da-threshold`` (0.5), at most
   ``--da-pairs`` (40,000) drawn with a fixed seed. These are not DARR pairs (different
   sources), but they carry the signal that WMT21's crowd DA lacks (on the held-out WMT21
   segments even chrF has a negative DARR tau).

WMT17 (the benchmark's Pearson test set) is not trained on.

Fitted models (``DiscoTK.fit``'s pairwise logistic regression, L2 with ``--c``): ``party``
(ten features) and ``light`` (five kernels) with the default ``flat`` lexical layer, and
``party/chain`` and ``light/chain`` for ``lexical_layer="chain"``.
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
WMT15_16 = "wmt15_16_da_seg.jsonl.gz"
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


def da_pairs(rows: Sequence[Dict[str, Any]], threshold: float, limit: int, seed: int = SEED
             ) -> List[Tuple[int, int]]:
    """(better, worse) index pairs of rows from the same year and language pair whose DA
    z-scores differ by at least ``threshold``; at most ``limit``, drawn with ``seed``."""
    groups: Dict[Tuple[Any, str], List[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault((row.get("year"), row["lp"]), []).append(i)
    pairs = []
    for key in sorted(groups, key=str):
        idx = groups[key]
        for a_pos, a in enumerate(idx):
            for b in idx[a_pos + 1:]:
                ha, hb = rows[a]["human"], rows[b]["human"]
                if abs(ha - hb) >= threshold:
                    pairs.append((a, b) if ha > hb else (b, a))
    random.Random(seed).shuffle(pairs)
    return sorted(pairs[:limit])


def main(argv: Optional[Sequence[str]] = None) -> None:
    from ..core.resources import DATA_DIR
    from ..discotk import REPRESENTATIONS, WEIGHTS_FILE, DiscoTK, fit_pairwise

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-lp", type=int, default=60, help="WMT21 training source segments per language pair")
    ap.add_argument("--da-threshold", type=float, default=0.5, help="WMT15/16 pair threshold on DA z")
    ap.add_argument("--da-pairs", type=int, default=40_000, help="at most this many WMT15/16 pairs")
    ap.add_argument("--c", type=float, default=1.0, help="inverse L2 strength")
    ap.add_argument("--out", default=str(DATA_DIR / WEIGHTS_FILE))
    args = ap.parse_args(argv)

    segments = sample_segments(read_jsonl_gz(WMT21), "train", args.per_lp)
    hyps, refs, pairs = flatten(segments)
    da_rows = read_jsonl_gz(WMT15_16)
    offset = len(hyps)
    da = da_pairs(da_rows, args.da_threshold, args.da_pairs)
    hyps += [r["hyp"] for r in da_rows]
    refs += [r["ref"] for r in da_rows]
    all_pairs = pairs + [(offset + b, offset + w) for b, w in da]
    print(f"WMT21: {len(segments)} training segments, {offset} outputs, {len(pairs)} DARR pairs; "
          f"WMT15/16: {len(da_rows)} outputs, {len(da)} DA pairs", file=sys.stderr)
    start = time.perf_counter()
    party = DiscoTK(variant="party", weights="uniform")
    chain = DiscoTK(variant="light", weights="uniform", lexical_layer="chain")
    flat_features = party.features(hyps, refs)
    chain_features = np.hstack([chain.features(hyps, refs), flat_features[:, len(REPRESENTATIONS):]])
    print(f"features in {time.perf_counter() - start:.0f}s", file=sys.stderr)
    meta = {"data": f"WMT21 to-English DARR pairs of training-split source segments (sha1 bucket < "
                    f"{TRAIN_FRACTION}, {args.per_lp} per lp, seed {SEED}) + WMT15/16 to-English DA pairs "
                    f"(|z difference| >= {args.da_threshold}, at most {args.da_pairs}, seed {SEED})",
            "wmt21_segments": len(segments), "wmt21_pairs": len(pairs), "wmt15_16_pairs": len(da),
            "script": "python -m nlgmetrics.training.discotk_weights"}
    out: Dict[str, Any] = {}
    names = party.features_used
    for key, features in (("party", flat_features), ("party/chain", chain_features)):
        better = features[[b for b, _ in all_pairs]]
        worse = features[[w for _, w in all_pairs]]
        for variant, columns in ((key, names), (key.replace("party", "light"), REPRESENTATIONS)):
            idx = [names.index(c) for c in columns]
            model = fit_pairwise(better[:, idx], worse[:, idx], columns, c=args.c)
            model.meta.update(meta)
            out[variant] = model.to_dict()
            print(variant, [round(w, 3) for w in model.weights], model.meta["train_pair_accuracy"], file=sys.stderr)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

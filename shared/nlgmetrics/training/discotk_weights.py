"""Rebuild DiscoTK's shipped tuned weights (``nlgmetrics/data/discotk_weights.json``).

    python -m nlgmetrics.training.discotk_weights [--per-lp 10] [--c 1.0]

Training pairs: WMT21 to-English grouped DA (``../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz``;
cs, de, ha, is, ja, ru, zh -> en), WMT DARR pairs only: two outputs of the *same source
segment* whose raw DA scores differ by at least 25 points. Split by source segment, never by
pair: a segment ``(lp, sid)`` is a *training* segment when int(sha1("lp:sid")[:8], 16) / 16**8
< 0.5, otherwise it is *held out* for benchmarks/discotk_quality.py. ``--per-lp`` training
segments per language pair are drawn with a fixed seed (parsing time on a small CPU is the limit).

Pairs of outputs of *different* sources (the WMT15/16 DA rows, one output per source, used by
0.1.0) are no longer used: DARR never compares them, and they taught the combination the
sentence difficulty rather than the translation quality. WMT17 (the benchmark's Pearson test
set) is never trained on.

Raw features are computed once per data set and cached (``$NLGMETRICS_FEATURE_CACHE``, default
``~/.cache/nlgmetrics/discotk_features``), chunk by chunk, so an interrupted run resumes.

Fitted models (``DiscoTK.fit``'s pairwise logistic regression, L2 with ``--c``): ``party``
(kernels + the Asiya-like members), ``party+asiya+extra`` (also chrF, BLEU, BERTScore) and
``light`` (five kernels), flat lexical layer only (no tuned weights for ``lexical_layer="chain"``:
give ``weights="uniform"`` or your own). Each model's meta records its leave-one-language-pair-
out DARR tau on the training split: the default member set is chosen by that number.
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
    hyps: List[str] = []
    refs: List[str] = []
    pairs: List[Tuple[int, int]] = []
    for row in rows:
        index = {}
        for system in sorted(row["hyps"]):
            index[system] = len(hyps)
            hyps.append(row["hyps"][system]["hyp"])
            refs.append(row["ref"])
        pairs.extend((index[a], index[b]) for a, b in darr_index_pairs(row))
    return hyps, refs, pairs


def feature_cache_dir() -> Path:
    return Path(os.environ.get("NLGMETRICS_FEATURE_CACHE", Path.home() / ".cache" / "nlgmetrics" /
                               "discotk_features"))


def cached_features(name: str, hyps: Sequence[str], refs: Sequence[str], chunk: int = 100,
                    log: bool = True) -> np.ndarray:
    """Raw features (columns: ``feature_names("party", "asiya+extra")``) of all pairs, computed
    chunk by chunk and cached under ``name`` (a name must identify the texts: it includes the
    sample sizes)."""
    from ..discotk import DiscoTK

    directory = feature_cache_dir() / name
    directory.mkdir(parents=True, exist_ok=True)
    scorer: Optional[Any] = None
    parts = []
    for k, lo in enumerate(range(0, len(hyps), chunk)):
        path = directory / f"{k:04d}.npy"
        if not path.exists():
            if scorer is None:
                scorer = DiscoTK(variant="party", members="asiya+extra", weights="uniform", quiet=True)
            start = time.perf_counter()
            block = scorer.features(list(hyps[lo:lo + chunk]), list(refs[lo:lo + chunk]))
            np.save(path, block)
            if log:
                print(f"{name}: chunk {k} ({len(block)} pairs) in {time.perf_counter() - start:.0f}s",
                      file=sys.stderr, flush=True)
        parts.append(np.load(path))
    from ..discotk import feature_names

    width = len(feature_names("party", "asiya+extra"))
    return np.vstack(parts) if parts else np.zeros((0, width))


def training_data(per_lp: int) -> Tuple[np.ndarray, List[Tuple[int, int]], Dict[str, Any]]:
    """(features of every training-split output, DARR (better, worse) index pairs, facts incl.
    ``lps``: the language pair of each output)."""
    segments = sample_segments(read_jsonl_gz(WMT21), "train", per_lp)
    hyps, refs, pairs = flatten(segments)
    features = cached_features(f"wmt21-train-{per_lp}", hyps, refs)
    facts = {"wmt21_segments": len(segments), "wmt21_outputs": len(hyps), "wmt21_pairs": len(pairs)}
    lps = [row["lp"] for row in segments for _ in row["hyps"]]
    return features, pairs, dict(facts, lps=lps)


def leave_one_lp_out_tau(features: np.ndarray, pairs: Sequence[Tuple[int, int]], lps: Sequence[str],
                         columns: Sequence[str], c: float = 1.0) -> float:
    """Model selection on the training split only: fit on all language pairs but one, DARR tau
    on that one, averaged over the language pairs."""
    from ..core.stats import darr_tau
    from ..discotk import feature_names

    names = feature_names("party", "asiya+extra")
    idx = [names.index(col) for col in columns]
    taus = []
    for lp in sorted(set(lps)):
        fit_pairs = [(b, w) for b, w in pairs if lps[b] != lp]
        test_pairs = [(b, w) for b, w in pairs if lps[b] == lp]
        if not fit_pairs or not test_pairs:
            continue
        model = fit_columns(features, fit_pairs, columns, c=c)
        scores = features[:, idx] @ np.asarray(model.weights)
        taus.append(darr_tau(scores[[b for b, _ in test_pairs]], scores[[w for _, w in test_pairs]]))
    return float(np.mean(taus)) if taus else float("nan")


#: model name -> the features it combines (``None``: all of that variant's)
def model_columns() -> Dict[str, Tuple[str, ...]]:
    from ..discotk import EXTRA_MEMBERS, PARTY_MEMBERS, REPRESENTATIONS

    return {"light": REPRESENTATIONS, "party": REPRESENTATIONS + PARTY_MEMBERS,
            "party+asiya+extra": REPRESENTATIONS + PARTY_MEMBERS + EXTRA_MEMBERS}


def ablation_columns() -> Dict[str, Tuple[str, ...]]:
    """What the discourse kernels add: each lexical member set with and without the kernels."""
    from ..discotk import EXTRA_MEMBERS, PARTY_MEMBERS, REPRESENTATIONS

    return {"asiya members only": PARTY_MEMBERS, "asiya members + kernels": REPRESENTATIONS + PARTY_MEMBERS,
            "extra members only": EXTRA_MEMBERS, "extra members + kernels": REPRESENTATIONS + EXTRA_MEMBERS,
            "all members, no kernels": PARTY_MEMBERS + EXTRA_MEMBERS,
            "all members + kernels": REPRESENTATIONS + PARTY_MEMBERS + EXTRA_MEMBERS,
            "kernels only": REPRESENTATIONS}


def fit_columns(features: np.ndarray, pairs: Sequence[Tuple[int, int]], columns: Sequence[str],
                c: float = 1.0) -> Any:
    """A pairwise model on some columns of the cached feature matrix."""
    from ..discotk import feature_names, fit_pairwise

    names = feature_names("party", "asiya+extra")
    idx = [names.index(col) for col in columns]
    better = features[[b for b, _ in pairs]][:, idx]
    worse = features[[w for _, w in pairs]][:, idx]
    return fit_pairwise(better, worse, tuple(columns), c=c)


def main(argv: Optional[Sequence[str]] = None) -> None:
    from ..core.resources import DATA_DIR
    from ..discotk import WEIGHTS_FILE

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-lp", type=int, default=10, help="WMT21 training source segments per language pair")
    ap.add_argument("--c", type=float, default=1.0, help="inverse L2 strength")
    ap.add_argument("--out", default=str(DATA_DIR / WEIGHTS_FILE))
    args = ap.parse_args(argv)

    features, pairs, facts = training_data(args.per_lp)
    lps = facts.pop("lps")
    print(f"WMT21 training split: {facts}", file=sys.stderr)
    meta = {"data": f"WMT21 to-English DARR pairs (same source segment, raw DA difference >= {DARR_THRESHOLD}) of "
                    f"training-split source segments (sha1 bucket < {TRAIN_FRACTION}, {args.per_lp} per lp, "
                    f"seed {SEED})", **facts, "script": "python -m nlgmetrics.training.discotk_weights"}
    out: Dict[str, Any] = {}
    for key, columns in model_columns().items():
        model = fit_columns(features, pairs, columns, c=args.c)
        model.meta.update(meta)
        model.meta["train_leave_one_lp_out_tau"] = round(leave_one_lp_out_tau(features, pairs, lps, columns, args.c), 4)
        out[key] = model.to_dict()
        print(key, [round(w, 3) for w in model.weights], model.meta["train_pair_accuracy"], file=sys.stderr)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""Rebuild DiscoTK's shipped tuned weights (``nlgmetrics/data/discotk_weights.json``).

    python shared/tools/training/discotk_weights.py [--per-lp 50] [--folds 5]

Data: WMT21 to-English grouped DA (``../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz``; cs,
de, ha, is, ja, ru, zh -> en). Pairs: WMT DARR pairs only, two outputs of the *same source
segment* whose raw DA scores differ by at least 25 points, leaving out pairs of two identical
output strings (every deterministic metric ties there, so they only add rater noise).

Split, by source segment and never by pair: a segment ``(lp, sid)`` is a *training* segment when
int(sha1("lp:sid")[:8], 16) / 16**8 < 0.5, otherwise it is *held out* for
benchmarks/discotk_quality.py (no seed: the split is a function of the id). ``--per-lp``
training segments per language pair are drawn with the fixed seed 2014 (feature extraction time
on a small CPU is the limit). WMT17 (the benchmark's Pearson test set) and the held-out WMT21
segments are never read here.

Model: pairwise logistic regression (``fit_pairwise``) on feature differences of the training
pairs, features standardised, weights constrained to be >= 0 (every feature is a similarity:
a negative weight can only fit rater noise), L2 strength ``1 / C``. C is chosen per model from
``C_GRID`` by ``--folds``-fold cross-validation *inside the training split*, folds by source
segment (fixed seed): the C with the highest mean held-in-fold DARR tau (mean over language
pairs). Each model's meta records its C, its cross-validated tau and the facts of the data.

Models: ``party`` (kernels + the Asiya-like members), ``party+asiya+extra`` (also chrF, BLEU
and MiniLM BERTScore) and ``light`` (the five kernels), all on the flat lexical layer (no tuned
weights for ``lexical_layer="chain"``: it combines uniformly unless weights are given). The
config's default member set is the party model with the higher cross-validated tau (printed at
the end; asiya+extra in the shipped file).

Raw features are computed once per (hypothesis, reference) pair and cached
(``$NLGMETRICS_FEATURE_CACHE``, default ``~/.cache/nlgmetrics/discotk_features``), so runs
resume and larger samples reuse smaller ones. The output is a function of the data and the
code only: rerunning gives the same file byte for byte (weights rounded to 10 digits).
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
#: inverse L2 strengths tried by cross-validation
C_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
FOLDS = 5
DEFAULT_PER_LP = 50
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
    """(better system, worse system) pairs of one grouped segment by the DARR rule, leaving
    out pairs of two identical outputs."""
    systems = sorted(row["hyps"])
    out = []
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            ha, hb = row["hyps"][a]["human_raw"], row["hyps"][b]["human_raw"]
            if abs(ha - hb) >= threshold and row["hyps"][a]["hyp"] != row["hyps"][b]["hyp"]:
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


#: bump when a feature's computation changes: cached features of an older version are not reused
FEATURE_VERSION = "v3"  # v3: BERTScore keeps the unknown token (features of texts with one changed)


def feature_cache_dir() -> Path:
    return Path(os.environ.get("NLGMETRICS_FEATURE_CACHE", Path.home() / ".cache" / "nlgmetrics" /
                               "discotk_features")) / FEATURE_VERSION


def pair_key(hyp: str, ref: str) -> str:
    """The cache key of one (hypothesis, reference) pair."""
    return hashlib.sha1(f"{hyp}\x00{ref}".encode()).hexdigest()[:20]


def load_store(directory: Path) -> Dict[str, np.ndarray]:
    """Every cached feature row under ``directory`` (files ``*.npz`` with ``keys`` and ``values``)."""
    store: Dict[str, np.ndarray] = {}
    for path in sorted(directory.glob("*.npz")):
        with np.load(path) as data:
            store.update(zip(data["keys"].tolist(), data["values"]))
    return store


def cached_features(name: str, hyps: Sequence[str], refs: Sequence[str], chunk: int = 100,
                    log: bool = True) -> np.ndarray:
    """Raw features (columns: ``feature_names("party", "asiya+extra")``) of the (hyp, ref) pairs,
    computed chunk by chunk for the pairs not cached yet under ``name`` and cached per pair
    (keyed by a hash of the two texts), so a larger sample reuses a smaller one's rows and an
    interrupted run resumes."""
    from nlgmetrics.discotk import DiscoTK, feature_names

    width = len(feature_names("party", "asiya+extra"))
    directory = feature_cache_dir() / name
    directory.mkdir(parents=True, exist_ok=True)
    store = load_store(directory)
    keys = [pair_key(h, r) for h, r in zip(hyps, refs)]
    todo = sorted({k: i for i, k in enumerate(keys) if k not in store}.values())
    scorer: Optional[Any] = None
    for lo in range(0, len(todo), chunk):
        if scorer is None:
            scorer = DiscoTK(variant="party", members="asiya+extra", weights="uniform", quiet=True)
        part = todo[lo:lo + chunk]
        start = time.perf_counter()
        block = scorer.features([hyps[i] for i in part], [refs[i] for i in part])
        part_keys = [keys[i] for i in part]
        np.savez(directory / f"{time.time_ns()}.npz", keys=np.array(part_keys), values=block)
        store.update(zip(part_keys, block))
        if log:
            print(f"{name}: {lo + len(part)}/{len(todo)} new pairs ({time.perf_counter() - start:.0f}s for "
                  f"{len(part)})", file=sys.stderr, flush=True)
    return np.array([store[k] for k in keys], dtype=float).reshape(len(keys), width)


def training_data(per_lp: int) -> Tuple[np.ndarray, List[Tuple[int, int]], Dict[str, Any]]:
    """(features of every training-split output, DARR (better, worse) index pairs, facts incl.
    ``lps`` and ``segments``: the language pair and the source segment of each output)."""
    segments = sample_segments(read_jsonl_gz(WMT21), "train", per_lp)
    hyps, refs, pairs = flatten(segments)
    features = cached_features("wmt21", hyps, refs)
    facts = {"wmt21_segments": len(segments), "wmt21_outputs": len(hyps), "wmt21_pairs": len(pairs)}
    lps = [row["lp"] for row in segments for _ in row["hyps"]]
    ids = [f"{row['lp']}:{row['sid']}" for row in segments for _ in row["hyps"]]
    return features, pairs, dict(facts, lps=lps, segments=ids)


def mean_lp_tau(scores: np.ndarray, pairs: Sequence[Tuple[int, int]], lps: Sequence[str]) -> float:
    """DARR tau per language pair (WMT formulation), averaged over the language pairs."""
    from nlgmetrics.core.stats import darr_tau

    taus = []
    for lp in sorted({lps[b] for b, _ in pairs}):
        sel = [(b, w) for b, w in pairs if lps[b] == lp]
        taus.append(darr_tau(scores[[b for b, _ in sel]], scores[[w for _, w in sel]]))
    return float(np.mean(taus)) if taus else float("nan")


def fold_of(segments: Sequence[str], folds: int = FOLDS, seed: int = SEED) -> Dict[str, int]:
    """Source segment -> cross-validation fold (segments shuffled with a fixed seed)."""
    unique = sorted(set(segments))
    random.Random(seed).shuffle(unique)
    return {seg: k % folds for k, seg in enumerate(unique)}


def cv_tau(features: np.ndarray, pairs: Sequence[Tuple[int, int]], lps: Sequence[str], segments: Sequence[str],
           columns: Sequence[str], c: float, folds: int = FOLDS) -> float:
    """Cross-validated DARR tau inside the training split: folds by source segment, a model
    fitted on the other folds scores each fold; mean over folds of the mean-over-lp tau."""
    fold = fold_of(segments, folds)
    idx = [feature_names_all().index(col) for col in columns]
    taus = []
    for k in range(folds):
        fit_pairs = [(b, w) for b, w in pairs if fold[segments[b]] != k]
        test_pairs = [(b, w) for b, w in pairs if fold[segments[b]] == k]
        if not fit_pairs or not test_pairs:
            continue
        model = fit_columns(features, fit_pairs, columns, c=c)
        taus.append(mean_lp_tau(features[:, idx] @ np.asarray(model.weights), test_pairs, lps))
    return float(np.mean(taus)) if taus else float("nan")


def select_c(features: np.ndarray, pairs: Sequence[Tuple[int, int]], lps: Sequence[str], segments: Sequence[str],
             columns: Sequence[str], folds: int = FOLDS) -> Tuple[float, float, Dict[str, float]]:
    """(best C, its cross-validated tau, tau of every C in ``C_GRID``); ties go to the smaller C."""
    scores = {c: cv_tau(features, pairs, lps, segments, columns, c, folds) for c in C_GRID}
    best = max(C_GRID, key=lambda c: (round(scores[c], 10), -c))
    return best, scores[best], {f"{c:g}": round(v, 4) for c, v in scores.items()}


def feature_names_all() -> Tuple[str, ...]:
    """The columns of the cached feature matrix."""
    from nlgmetrics.discotk import feature_names

    return feature_names("party", "asiya+extra")


#: model name -> the features it combines
def model_columns() -> Dict[str, Tuple[str, ...]]:
    from nlgmetrics.discotk import EXTRA_MEMBERS, PARTY_MEMBERS, REPRESENTATIONS

    return {"light": REPRESENTATIONS, "party": REPRESENTATIONS + PARTY_MEMBERS,
            "party+asiya+extra": REPRESENTATIONS + PARTY_MEMBERS + EXTRA_MEMBERS}


def ablation_columns() -> Dict[str, Tuple[str, ...]]:
    """What the discourse kernels add: each lexical member set with and without the kernels."""
    from nlgmetrics.discotk import EXTRA_MEMBERS, PARTY_MEMBERS, REPRESENTATIONS

    return {"kernels only": REPRESENTATIONS,
            "asiya members only": PARTY_MEMBERS, "asiya members + kernels": REPRESENTATIONS + PARTY_MEMBERS,
            "extra members only": EXTRA_MEMBERS, "extra members + kernels": REPRESENTATIONS + EXTRA_MEMBERS,
            "all members, no kernels": PARTY_MEMBERS + EXTRA_MEMBERS,
            "all members + kernels": REPRESENTATIONS + PARTY_MEMBERS + EXTRA_MEMBERS}


def fit_columns(features: np.ndarray, pairs: Sequence[Tuple[int, int]], columns: Sequence[str],
                c: float = 1.0) -> Any:
    """A non-negative pairwise model on some columns of the cached feature matrix."""
    from nlgmetrics.discotk import fit_pairwise

    idx = [feature_names_all().index(col) for col in columns]
    better = features[[b for b, _ in pairs]][:, idx]
    worse = features[[w for _, w in pairs]][:, idx]
    return fit_pairwise(better, worse, tuple(columns), c=c, nonnegative=True)


def fit_selected(features: np.ndarray, pairs: Sequence[Tuple[int, int]], lps: Sequence[str],
                 segments: Sequence[str], columns: Sequence[str], folds: int = FOLDS) -> Any:
    """C by cross-validation on these (training) pairs, then the model on all of them."""
    c, tau, grid = select_c(features, pairs, lps, segments, columns, folds)
    model = fit_columns(features, pairs, columns, c=c)
    model.meta.update({"cv_tau": round(tau, 4), "cv_tau_by_c": grid, "cv_folds": folds})
    return model


def rounded(model: Any) -> Dict[str, Any]:
    """The model as JSON data, numbers rounded (10 significant digits) for byte-stable output."""
    data = model.to_dict()
    data["weights"] = [float(f"{w:.10g}") for w in data["weights"]]
    data["bias"] = float(f"{data['bias']:.10g}")
    return dict(data)


def main(argv: Optional[Sequence[str]] = None) -> None:
    from nlgmetrics.core.resources import DATA_DIR
    from nlgmetrics.discotk import WEIGHTS_FILE

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-lp", type=int, default=DEFAULT_PER_LP, help="WMT21 training source segments per lp")
    ap.add_argument("--folds", type=int, default=FOLDS, help="cross-validation folds (by source segment)")
    ap.add_argument("--out", default=str(DATA_DIR / WEIGHTS_FILE))
    args = ap.parse_args(argv)

    features, pairs, facts = training_data(args.per_lp)
    lps, segments = facts.pop("lps"), facts.pop("segments")
    print(f"WMT21 training split: {facts}", file=sys.stderr)
    meta = {"data": f"WMT21 to-English DARR pairs (same source segment, raw DA difference >= {DARR_THRESHOLD:g}, "
                    f"identical outputs left out) of training-split source segments (sha1 bucket < "
                    f"{TRAIN_FRACTION}, {args.per_lp} per lp, seed {SEED})", **facts,
            "model": "pairwise logistic regression, standardised features, weights >= 0, C by "
                     f"{args.folds}-fold CV by source segment inside the training split",
            "script": "python shared/tools/training/discotk_weights.py"}
    out: Dict[str, Any] = {}
    for key, columns in model_columns().items():
        model = fit_selected(features, pairs, lps, segments, columns, args.folds)
        model.meta.update(meta)
        out[key] = rounded(model)
        print(key, "C", model.meta["c"], "cv tau", model.meta["cv_tau"], [round(w, 3) for w in model.weights],
              file=sys.stderr)
    best = max(("party", "party+asiya+extra"), key=lambda k: out[k]["meta"]["cv_tau"])
    print(f"default party members by cross-validated tau: {'asiya' if best == 'party' else 'asiya+extra'}",
          file=sys.stderr)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

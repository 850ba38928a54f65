"""Train RoMe-lite's grammaticality head: L2 logistic regression on frozen all-MiniLM-L6-v2
features (per layer: masked mean and first-token vector), CoLA train split only.

    python -m nlgmetrics.training.rome_grammar [--data PATH/cola_public.jsonl.gz]

The regularisation strength is chosen on a fixed 10% of the train split (seed 0), then the
head is refitted on the whole train split; accuracy and MCC are reported on the in-domain and
out-of-domain dev splits. Writes ``nlgmetrics/data/rome_grammar_lite.npz`` (weights with the
standardisation folded in) and prints the metrics quoted in the card.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import torch

from ..core.embeddings import ContextualEncoder
from ..core.models import lite_encoder_path
from ..core.resources import DATA_DIR
from ..rome import layer_pooled_features

SEED = 0
C_GRID = (0.003, 0.01, 0.03)
SD_FLOOR = 0.25  # times the median feature standard deviation
OUTPUT = "rome_grammar_lite.npz"
ENCODER = "minilm"


def default_data() -> Path:
    shared = Path(os.environ.get("NLGMETRICS_SHARED", Path(__file__).resolve().parents[3].parent / "shared"))
    return shared / "data" / "cola_public.jsonl.gz"


def read_cola(path: Path) -> List[Dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def fit_logistic(x: np.ndarray, y: np.ndarray, c: float) -> Tuple[np.ndarray, float]:
    """sklearn-style L2 logistic regression: minimise C * sum(log-loss) + ||w||^2 / 2 (LBFGS)."""
    torch.manual_seed(SEED)
    xt = torch.tensor(x, dtype=torch.float64)
    yt = torch.tensor(y, dtype=torch.float64)
    w = torch.zeros(x.shape[1], dtype=torch.float64, requires_grad=True)
    b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], lr=1.0, max_iter=500, tolerance_grad=1e-9, tolerance_change=1e-12,
                            history_size=20, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = c * torch.nn.functional.binary_cross_entropy_with_logits(xt @ w + b, yt, reduction="sum") \
            + 0.5 * (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return w.detach().numpy(), float(b.detach())


def mcc(y: np.ndarray, pred: np.ndarray) -> float:
    """Matthews correlation coefficient of binary labels."""
    tp, tn = float(((pred == 1) & (y == 1)).sum()), float(((pred == 0) & (y == 0)).sum())
    fp, fn = float(((pred == 1) & (y == 0)).sum()), float(((pred == 0) & (y == 1)).sum())
    denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return float((tp * tn - fp * fn) / denom) if denom else 0.0


def evaluate(prob: np.ndarray, y: np.ndarray) -> Dict[str, float]:
    pred = (prob > 0.5).astype(int)
    return {"accuracy": float((pred == y).mean()), "mcc": mcc(y, pred), "n": int(len(y)),
            "majority": float(max(y.mean(), 1 - y.mean()))}


def main(argv=None) -> Dict[str, Dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--output", type=Path, default=DATA_DIR / OUTPUT)
    args = parser.parse_args(argv)
    torch.manual_seed(SEED)
    rows = read_cola(args.data)
    texts = [r["sentence"] for r in rows]
    labels = np.array([int(r["label"]) for r in rows])
    split = np.array([r["split"] for r in rows])
    encoder = ContextualEncoder(lite_encoder_path(), device="cpu", dtype="fp32", batch_size=64,
                                max_length=256, quiet=True)
    feats = layer_pooled_features(encoder, texts)

    train = np.flatnonzero(split == "in_domain_train")
    rng = np.random.default_rng(SEED)
    held = rng.permutation(train)
    tune, fit_part = held[: len(train) // 10], held[len(train) // 10:]

    def standardise(index: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        # near-constant features get a floored scale, so that their folded weights stay small
        # and float noise from batching cannot move the probability
        sd = feats[index].std(axis=0)
        return feats[index].mean(axis=0), np.maximum(sd, SD_FLOOR * np.median(sd))

    best_c, best_mcc = C_GRID[0], -2.0
    for c in C_GRID:
        mu, sd = standardise(fit_part)
        w, b = fit_logistic((feats[fit_part] - mu) / sd, labels[fit_part], c)
        score = mcc(labels[tune], (((feats[tune] - mu) / sd) @ w + b > 0).astype(int))
        print(f"C={c}: held-out train MCC {score:.3f}")
        if score > best_mcc:
            best_c, best_mcc = c, score
    mu, sd = standardise(train)
    w, b = fit_logistic((feats[train] - mu) / sd, labels[train], best_c)
    # standardisation folded in; the weights are shipped (and evaluated) in float32
    weight = (w / sd).astype(np.float32).astype(np.float64)
    bias = b - float((w * mu / sd).sum())

    prob = 1.0 / (1.0 + np.exp(-(feats @ weight + bias)))
    report = {name: evaluate(prob[split == name], labels[split == name])
              for name in ("in_domain_train", "in_domain_dev", "out_of_domain_dev")}
    report["C"] = {"value": best_c}
    print(json.dumps(report, indent=1))
    np.savez_compressed(args.output, weight=weight.astype(np.float32), bias=np.float64(bias),
                        encoder=np.str_(ENCODER), metrics=np.str_(json.dumps(report)))
    print(f"wrote {args.output}")
    return report


if __name__ == "__main__":
    main()

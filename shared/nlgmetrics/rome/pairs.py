"""RoMe's self-supervised training pairs (the paper's section 3.4) from text the project ships
(``data/rome_scorer_facts.json``): positives are meaning-preserving variants, negatives one of
six perturbations (entity swap, antonym, random word, repetition, deletion, role reversal)."""
from __future__ import annotations

import json
import random
import re

from nlgmetrics.core.resources import WORDNET_LOCK, data_path, wordnet

SEED = 0
N_TRAIN = 2500  # per class (the paper's 2,500)
N_TEST = 500  # per class
PERTURBATIONS = ("entity_swap", "antonym", "random_word", "repetition", "deletion", "role_reversal")

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

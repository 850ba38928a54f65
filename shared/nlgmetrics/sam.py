"""SAM: sentiment-aware adjustment of any hypothesis-reference metric (Saadany et al., 2021).

The words the hypothesis and the reference do not share are looked up in a prior-polarity
lexicon; the sentiment distance of the two sides lowers the base metric score::

    S_h = sum_i alpha_i s_i,  alpha_i = |s_i| / sum_k |s_k|     (hypothesis mismatches, Eqs. 1, 3)
    S_r = sum_j beta_j s_j,   beta_j = |s_j| / sum_k |s_k|      (reference mismatches, Eqs. 2, 4)
    p = |S_h - S_r| / 2 in [0, 1],    SAM = C_hr - p * |C_hr - low|

``low`` is the lower end of the base metric's scale (0 for BLEU, chrF, METEOR, BERTScore;
``base_range[0]`` for caller-given scores), so on those scales SAM is the paper's
``C_hr * (1 - p)``, and on any scale SAM never rises as p grows (a negative score is pushed
further down, not toward 0). ``damping`` (off by default: the paper's p) optionally shrinks p
to ``p * min(1, k / n)`` for a mismatch of n > k items (:func:`damped_p`; measured in the card).

>>> from nlgmetrics.sam import adjust, sentiment_adjustment
>>> sentiment_adjustment([-0.669], [0.856])  # the paper's Example 4 (anger#n vs happiness#n)
(-0.669, 0.856, 0.7625)
>>> adjust(0.92, 0.5), adjust(-0.5, 0.5, low=-1.0), adjust(-0.5, 0.5)
(0.46, -0.75, -0.75)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Collection, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .core.base import PYTHON_SPELLING, Inputs, Record, Scorer, Spelling, mean_reduce
from .core.config import MetricConfig, option
from .core.language import EnglishOnly
from .core.lexical import corpus_sentence_scores, meteor_align, sentence_bleu, sentence_chrf, sentence_meteor
from .core.linguistic import get_analyzer
from .core.result import MetricResult
from .core.significance import Resampler, mean_resampler
from .sentiment import DEFAULT_LEXICON, LEXICONS, Item, load_lexicon, lookup_analyzer, text_items

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
PROFILES = {"paper": "roberta-large", "lite": "minilm"}


@dataclass(frozen=True)
class SAMConfig(MetricConfig):
    """SAM's options (the card's options table is generated from this class)."""

    RENAMED = {"tagger": "linguistic_backend"}

    base: str = option("meteor", "base metric C_hr: sentence BLEU, chrF, METEOR, BERTScore F1, or "
                       "`given` (pass `base_scores=[...]`)", choices=BASES, signature="always")
    profile: str = option("paper", "BERTScore encoder: `paper` (roberta-large, layer 17, hub) or `lite` "
                          "(all-MiniLM-L6-v2, offline); only the BERTScore base uses a model (other bases leave it, "
                          "and dtype, out of the signature)",
                          choices=tuple(PROFILES), signature="always")
    model: Optional[str] = option(None, "BERTScore encoder override (hub id, local directory or `minilm`)")
    layer: Optional[int] = option(None, "BERTScore hidden layer override", low=0)
    lexicon: Union[str, Mapping[str, float]] = option(
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
    batch_size: int = option(32, "BERTScore batch size", low=1, signature="never")

    def check(self) -> None:
        if self.base != "bertscore" and (self.model is not None or self.layer is not None):
            raise ValueError(f"model/layer only apply to base='bertscore', not {self.base!r}")
        if not isinstance(self.lexicon, (str, Mapping)):
            raise ValueError(f"lexicon must be a name, a file path or a mapping, got {type(self.lexicon).__name__}")
        if self.base_range is not None:
            if self.base != "given":
                raise ValueError(f"base_range applies to base='given' only; {self.base!r} has its own scale "
                                 f"({BASE_SCALES[self.base]})")
            object.__setattr__(self, "base_range", parse_range(self.base_range))


    def inert(self) -> frozenset:
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


# -- the adjustment (Eqs. 1-6) --------------------------------------------------------------
def weighted_polarity(polarities: Sequence[float]) -> float:
    """S = sum_i (|s_i| / sum_k |s_k|) s_i; 0 for no items or all-zero polarities."""
    total = sum(abs(s) for s in polarities)
    if total == 0:
        return 0.0
    return sum(abs(s) * s for s in polarities) / total


def sentiment_adjustment(hyp_polarities: Sequence[float],
                         ref_polarities: Sequence[float]) -> Tuple[float, float, float]:
    """``(S_h, S_r, p)`` with ``p = |S_h - S_r| / 2`` for the mismatched items' polarities."""
    s_h, s_r = weighted_polarity(hyp_polarities), weighted_polarity(ref_polarities)
    return s_h, s_r, abs(s_h - s_r) / 2


def damp(p: float, n: int, k: float) -> float:
    """``p * min(1, k / n)``: p kept whole up to ``k`` unmatched items, shrunk as ``k / n``
    beyond (a diffuse mismatch of many paraphrased words is not one flipped sentiment word)."""
    return p if n <= k else p * k / n


def unmatched_count(hyp_polarities: Sequence[float], ref_polarities: Sequence[float], damping: str) -> int:
    """n for :func:`damp`: the unmatched items of both sides (``items``, ``same-sign``) or
    those among them with a non-zero polarity (``polar``)."""
    both = list(hyp_polarities) + list(ref_polarities)
    if damping in ("items", "same-sign"):
        return len(both)
    if damping == "polar":
        return sum(s != 0 for s in both)
    raise ValueError(f"unknown damping {damping!r}; choose one of {', '.join(DAMPING[1:])}")


def damped_p(hyp_polarities: Sequence[float], ref_polarities: Sequence[float], damping: str = "off",
             k: float = 2.0) -> float:
    """p of the mismatched items under ``damping`` (``off``: the paper's p). ``same-sign``
    damps only a difference of degree (S_h and S_r non-zero with the same sign); opposite
    signs, or sentiment on one side only, keep p whole."""
    return damp_adjustment(sentiment_adjustment(hyp_polarities, ref_polarities), hyp_polarities,
                           ref_polarities, damping, k)


def damp_adjustment(adjustment: Tuple[float, float, float], hyp_polarities: Sequence[float],
                    ref_polarities: Sequence[float], damping: str, k: float) -> float:
    """:func:`damped_p` from an already computed ``(S_h, S_r, p)`` of :func:`sentiment_adjustment`."""
    s_h, s_r, p = adjustment
    if damping == "off" or (damping == "same-sign" and not s_h * s_r > 0):
        return p
    return damp(p, unmatched_count(hyp_polarities, ref_polarities, damping), k)


def adjust(base: float, p: float, low: float = 0.0) -> float:
    """The SAM score ``base - p * |base - low|``: ``low + (base - low) * (1 - p)`` for a score
    at or above the scale's lower end (the paper's ``C_hr * (1 - p)`` when low = 0); never
    higher than ``base`` and never rising with p, whatever the sign of ``base``."""
    return base - p * abs(base - low)


# -- matching ---------------------------------------------------------------------------------
def match_items(hyp: Sequence[Item], ref: Sequence[Item],
                matching: str = "meteor") -> Tuple[List[Item], List[Item]]:
    """The unmatched hypothesis and reference items (multisets, one-to-one matching).

    ``lemma``: equal ``lemma#pos`` keys, left to right. ``meteor``: METEOR's staged alignment
    of the lowercased words (exact, Porter stem, WordNet synonym; pos ignored, as in METEOR).
    """
    if matching == "meteor":
        pairs = meteor_align([it.word.lower() for it in hyp], [it.word.lower() for it in ref])
        used_h, used_r = {i for i, _, _ in pairs}, {j for _, j, _ in pairs}
    elif matching == "lemma":
        free: Dict[str, List[int]] = {}
        for j, item in enumerate(ref):
            free.setdefault(item.key, []).append(j)
        used_h, used_r = set(), set()
        for i, item in enumerate(hyp):
            if free.get(item.key):
                used_h.add(i)
                used_r.add(free[item.key].pop(0))
    else:
        raise ValueError(f"unknown matching {matching!r}; choose one of {', '.join(MATCHING)}")
    return ([it for i, it in enumerate(hyp) if i not in used_h],
            [it for j, it in enumerate(ref) if j not in used_r])


# -- the scorer -------------------------------------------------------------------------------
def check_base_score(value: Any, where: str, base_range: Optional[Tuple[float, float]] = None,
                     spelling: Spelling = PYTHON_SPELLING) -> float:
    """One caller's base score: a finite number inside ``base_range`` (default [0, 1]);
    ``where`` names it in the error (``base_scores[3]``, ``scores.txt, line 4``), the hint is
    written in ``spelling``."""
    low, high = base_range or (0.0, 1.0)
    try:
        if isinstance(value, (bool, str, bytes)) or str(getattr(value, "dtype", "")) == "bool":
            raise TypeError  # float() would take True, np.True_ and "0.5"
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where} is not a number: {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{where} is {number}; give finite numbers")
    if not low <= number <= high:
        hint = (f"set {spelling.setting('base_range', '(low, high)')} to the scale of your metric "
                "(e.g. (-1, 1) or (0, 100))" if base_range is None else "widen base_range or check the scores")
        raise ValueError(f"{where} = {number} lies outside [{low:g}, {high:g}]; {hint}")
    return number


def check_base_scores(base_scores: Any, n: int,
                      base_range: Optional[Tuple[float, float]] = None) -> List[float]:
    """Caller's base scores: ``n`` finite numbers inside ``base_range`` (default [0, 1])."""
    if isinstance(base_scores, (str, bytes, Mapping)) or not hasattr(base_scores, "__len__"):
        raise ValueError("base_scores must be a list of numbers, one per prediction")
    values = list(base_scores)
    if len(values) != n:
        raise ValueError(f"base_scores has {len(values)} items but predictions has {n}")
    return [check_base_score(value, f"base_scores[{i}]", base_range) for i, value in enumerate(values)]


def check_given(config: SAMConfig, names: Collection[str], spelling: Spelling = PYTHON_SPELLING) -> None:
    """Base scores come from the caller exactly when ``base='given'``."""
    given = spelling.option("base", "given")
    if config.base == "given" and "base_scores" not in names:
        raise ValueError(f"{given} takes the base scores from the caller: {spelling.extra('base_scores')}")
    if config.base != "given" and "base_scores" in names:
        raise ValueError(f"{spelling.extra('base_scores')} is for {given} only; "
                         f"{spelling.option('base', config.base)} computes its own base scores")


class SAM(Scorer):
    """Sentiment-aware adjustment of BLEU, chrF, METEOR, BERTScore or caller-given scores.

    Options: see :class:`SAMConfig`. With ``base="given"``, pass the base scores per call:
    ``SAM(base="given").score(hyps, refs, base_scores=[...])``; they travel with the segments
    (shards, ``torch.distributed``) and into the records (``base``).
    """

    name = "sam"
    Config = SAMConfig
    references_mode = "required"
    sources_mode = "none"
    multi_reference = False
    extra_inputs = {"base_scores": "C_hr per segment for base='given' (finite, inside base_range; "
                                   "default [0, 1])"}
    config: SAMConfig

    def setup(self) -> None:
        cfg = self.config
        self.lexicon = load_lexicon(cfg.lexicon)
        self.analyzer: Any = (lookup_analyzer() if cfg.linguistic_backend == "lookup"
                              else get_analyzer(cfg.linguistic_backend, light=True))
        self.encoder = None
        self._english = EnglishOnly("SAM's lexicon and tagger are English: texts mostly in another script get "
                                    "p = 0 for want of known words (flagged 'non_english' in details)")
        if cfg.base == "bertscore":
            from .core.embeddings import BERTSCORE_LAYERS, ContextualEncoder

            name = cfg.model or PROFILES[cfg.profile]
            self.encoder = ContextualEncoder(
                name, device=cfg.device, dtype=cfg.dtype, batch_size=cfg.batch_size,
                layer=cfg.layer if cfg.layer is not None else BERTSCORE_LAYERS.get(name), quiet=self.quiet)

    def resolved(self) -> Dict[str, Any]:
        return {"model": self.encoder.describe() if self.encoder else None, "lex": self.lexicon.name,
                "tagger": self.analyzer.backend}

    @property
    def low(self) -> float:
        """The anchor of the penalty: the lower end of the base metric's scale."""
        if self.config.base == "given":
            return self.config.base_range[0] if self.config.base_range else 0.0
        return BASE_LOW[self.config.base]

    def check_extras(self, extras: Dict[str, Any], n: int) -> Dict[str, List[Any]]:
        check_given(self.config, extras)
        if self.config.base != "given":
            return {}
        return {"base_scores": check_base_scores(extras["base_scores"], n, self.config.base_range)}

    @classmethod
    def check_extra_names(cls, config: MetricConfig, names: Collection[str],
                          spelling: Spelling = PYTHON_SPELLING) -> None:
        assert isinstance(config, SAMConfig)
        check_given(config, names, spelling)

    @classmethod
    def check_extra_value(cls, config: MetricConfig, name: str, value: float, where: str,
                          spelling: Spelling = PYTHON_SPELLING) -> float:
        assert isinstance(config, SAMConfig)
        return check_base_score(value, where, config.base_range, spelling)

    def base_scores(self, predictions: Sequence[str], references: Sequence[str]) -> List[float]:
        """C_hr per segment from the configured base metric, on its own scale."""
        check_given(self.config, ())
        if self.encoder is not None:
            from .core.embeddings import bertscore

            return list(bertscore(predictions, references, self.encoder)["f1"])
        return corpus_sentence_scores(SENTENCE_METRICS[self.config.base], predictions, references)

    def mismatches(self, predictions: Sequence[str],
                   references: Sequence[str]) -> List[Tuple[List[Item], List[Item]]]:
        """Per segment, the unmatched hypothesis and reference items."""
        parsed = self.analyzer.analyze(list(predictions) + list(references))
        n = len(predictions)
        out = []
        for hyp_doc, ref_doc in zip(parsed[:n], parsed[n:]):
            hyp = text_items(hyp_doc, self.lexicon, self.config.multiword)
            ref = text_items(ref_doc, self.lexicon, self.config.multiword)
            out.append(match_items(hyp, ref, self.config.matching))
        return out

    def score_segments(self, inputs: Inputs) -> List[Record]:
        hyps, refs = inputs.predictions, inputs.references or []
        bases = inputs.extras["base_scores"] if "base_scores" in inputs.extras else self.base_scores(hyps, refs)
        records = []
        for seg_id, hyp, ref, base, (hyp_left, ref_left) in zip(
                inputs.ids, hyps, refs, bases, self.mismatches(hyps, refs)):
            hyp_pol, ref_pol = [it.polarity for it in hyp_left], [it.polarity for it in ref_left]
            s_h, s_r, p_raw = adjustment = sentiment_adjustment(hyp_pol, ref_pol)
            p = damp_adjustment(adjustment, hyp_pol, ref_pol, self.config.damping, self.config.damping_k)
            record = {
                "id": seg_id, "score": adjust(float(base), p, self.low), "base": float(base), "p": p,
                "p_raw": p_raw, "s_h": s_h, "s_r": s_r,
                "mismatches": {"hypothesis": [it.explain() for it in hyp_left],
                               "reference": [it.explain() for it in ref_left]},
            }
            self._english.check(record, (hyp, ref), quiet=self.quiet)
            records.append(record)
        return records

    def reduce_records(self, records: List[Record]) -> MetricResult:
        bases = [float(r["base"]) for r in records]
        corpus: Dict[str, Any] = {
            "base": self.config.base, "scale": BASE_SCALES[self.config.base],
            "base_score": sum(bases) / len(bases) if bases else float("nan"),
            "mean_p": sum(float(r["p"]) for r in records) / len(records) if records else float("nan"),
        }
        if self.config.base_range is not None:
            corpus["scale"] = "{:g} to {:g}".format(*self.config.base_range)
        corpus.update(EnglishOnly.corpus(records))
        return mean_reduce(self, records, corpus=corpus)

    def resampler(self, records: List[Record]) -> Resampler:
        """The corpus score is the mean of the segment scores: resampled as such."""
        return mean_resampler([r["score"] for r in records])

"""SAM: sentiment-aware adjustment of any hypothesis-reference metric (Saadany et al., 2021).

The words the hypothesis and the reference do not share are looked up in a prior-polarity
lexicon; the sentiment distance of the two sides shrinks the base metric score::

    S_h = sum_i alpha_i s_i,  alpha_i = |s_i| / sum_k |s_k|     (hypothesis mismatches, Eqs. 1, 3)
    S_r = sum_j beta_j s_j,   beta_j = |s_j| / sum_k |s_k|      (reference mismatches, Eqs. 2, 4)
    p = |S_h - S_r| / 2 in [0, 1],    SAM = C_hr * (1 - p)

An empty or all-zero side has S = 0. The adjusted score keeps the base metric's own scale
(sacrebleu's 0-100 for BLEU and chrF, 0-1 for METEOR and BERTScore, the caller's scale for
given scores): ``1 - p`` is a factor, so the adjustment itself is scale-free.

>>> from nlgmetrics.sam import sentiment_adjustment
>>> sentiment_adjustment([-0.669], [0.856])  # the paper's Example 4 (anger#n vs happiness#n)
(-0.669, 0.856, 0.7625)
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from . import __version__
from .core.base import Inputs, Record, Scorer, check_choice, mean_reduce
from .core.lexical import (corpus_sentence_scores, meteor_align, sentence_bleu, sentence_chrf,
                           sentence_meteor)
from .core.linguistic import get_analyzer
from .core.result import MetricResult, make_signature
from .sentiment import DEFAULT_LEXICON, Item, LexiconSpec, load_lexicon, text_items

BASES = ("bleu", "chrf", "meteor", "bertscore", "given")
#: the scale each base metric reports (SAM keeps it)
BASE_SCALES = {"bleu": "0-100", "chrf": "0-100", "meteor": "0-1", "bertscore": "0-1", "given": "caller's"}
SENTENCE_METRICS: Dict[str, Callable[[str, str], float]] = {
    "bleu": sentence_bleu, "chrf": sentence_chrf, "meteor": sentence_meteor}
MATCHING = ("lemma", "meteor")
#: BERTScore encoder per profile: the paper's roberta-large (layer 17) or the offline MiniLM
PROFILES = {"paper": "roberta-large", "lite": "minilm"}


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


def adjust(base: float, p: float) -> float:
    """The SAM score ``C_hr * (1 - p)``."""
    return base * (1.0 - p)


# -- matching ---------------------------------------------------------------------------------
def match_items(hyp: Sequence[Item], ref: Sequence[Item],
                matching: str = "lemma") -> Tuple[List[Item], List[Item]]:
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
def check_base_scores(base_scores: Any, n: int) -> List[float]:
    """Caller's base scores: a sequence of ``n`` finite numbers."""
    if isinstance(base_scores, (str, bytes)) or not hasattr(base_scores, "__len__"):
        raise ValueError("base_scores must be a list of numbers, one per prediction")
    values = list(base_scores)
    if len(values) != n:
        raise ValueError(f"base_scores has {len(values)} items but predictions has {n}")
    out = []
    for i, value in enumerate(values):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"base_scores[{i}] is not a number: {value!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"base_scores[{i}] is {number}; give finite numbers")
        out.append(number)
    return out


class SAM(Scorer):
    """Sentiment-aware adjustment of BLEU, chrF, METEOR, BERTScore or caller-given scores.

    Options:
        base: ``meteor`` (default), ``bleu`` (sacrebleu sentence BLEU), ``chrf``,
            ``bertscore`` (F1), or ``given`` (pass ``base_scores=[...]`` to :meth:`score`).
        profile: ``paper`` (BERTScore with roberta-large, layer 17, from the hub) or ``lite``
            (all-MiniLM-L6-v2, last layer, offline). Only the BERTScore base uses a model.
        model / layer: override the BERTScore encoder (hub id, local directory or ``minilm``).
        lexicon: ``sentiwordnet`` (embedded SentiWordNet 3.0 prior polarities), a path to a
            SentiWords 1.1 file, or a ``{"lemma#pos": score}`` mapping.
        matching: ``lemma`` (lemma#pos as a multiset, default) or ``meteor`` (exact, stem,
            WordNet synonym).
        multiword: join adjacent words that form a multiword lexicon entry (default True).
        tagger: linguistic backend (``auto``, ``spacy``, ``stanza``).
    """

    name = "sam"
    references_mode = "required"
    sources_mode = "none"
    multi_reference = False
    demo_inputs = {
        "predictions": ["If he had blown himself up in your country, God would forgive him",
                        "What is this amount of anger, I don't understand!"],
        "references": ["If he had blown himself up in your country, God would not forgive",
                       "What is this amount of happiness, I don't understand!"],
    }
    demo_options = {"profile": "lite", "base": "bertscore"}

    def __init__(self, *, base: str = "meteor", profile: str = "paper", model: Optional[str] = None,
                 layer: Optional[int] = None, lexicon: LexiconSpec = DEFAULT_LEXICON,
                 matching: str = "lemma", multiword: bool = True, tagger: str = "auto",
                 device: str = "auto", dtype: str = "fp32", batch_size: int = 32,
                 quiet: bool = False) -> None:
        super().__init__(quiet=quiet)
        check_choice("base metric", base, BASES)
        check_choice("profile", profile, PROFILES)
        self.base = base
        self.profile = profile
        check_choice("matching", matching, MATCHING)
        self.matching = matching
        self.multiword = bool(multiword)
        self.lexicon = load_lexicon(lexicon)
        self.analyzer = get_analyzer(tagger)
        self.encoder = None
        if base == "bertscore":
            from .core.embeddings import BERTSCORE_LAYERS, ContextualEncoder

            name = model or PROFILES[profile]
            self.encoder = ContextualEncoder(
                name, device=device, dtype=dtype, batch_size=batch_size,
                layer=layer if layer is not None else BERTSCORE_LAYERS.get(name), quiet=quiet)
        elif model is not None or layer is not None:
            raise ValueError(f"model/layer only apply to base='bertscore', not {base!r}")

    @property
    def signature(self) -> str:
        return make_signature("sam", __version__, base=self.base, profile=self.profile,
                              model=self.encoder.describe() if self.encoder else None,
                              match=self.matching, mwe=self.multiword, lex=self.lexicon.name,
                              tagger=self.analyzer.backend)

    def score(self, predictions: Any, references: Any = None, sources: Any = None, *,
              base_scores: Optional[Sequence[float]] = None) -> MetricResult:
        """Score a corpus; with ``base="given"``, ``base_scores`` holds C_hr per segment."""
        inputs = self.validate(predictions, references, sources)
        if len(inputs) == 0:
            raise ValueError("predictions is empty; give at least one segment")
        return self.reduce(self.score_segments(inputs, base_scores=base_scores))

    def base_scores(self, predictions: Sequence[str], references: Sequence[str]) -> List[float]:
        """C_hr per segment from the configured base metric, on its own scale."""
        if self.base == "given":
            raise ValueError("base='given' takes the base scores from the caller: "
                             "score(predictions, references, base_scores=[...])")
        if self.encoder is not None:
            from .core.embeddings import bertscore

            return bertscore(predictions, references, self.encoder)["f1"]
        return corpus_sentence_scores(SENTENCE_METRICS[self.base], predictions, references)

    def mismatches(self, predictions: Sequence[str],
                   references: Sequence[str]) -> List[Tuple[List[Item], List[Item]]]:
        """Per segment, the unmatched hypothesis and reference items."""
        parsed = self.analyzer.analyze(list(predictions) + list(references))
        n = len(predictions)
        out = []
        for hyp_doc, ref_doc in zip(parsed[:n], parsed[n:]):
            hyp = text_items(hyp_doc, self.lexicon, self.multiword)
            ref = text_items(ref_doc, self.lexicon, self.multiword)
            out.append(match_items(hyp, ref, self.matching))
        return out

    def score_segments(self, inputs: Inputs, base_scores: Optional[Sequence[float]] = None) -> List[Record]:
        hyps, refs = inputs.predictions, inputs.references
        if base_scores is not None:
            if self.base != "given":
                raise ValueError(f"base_scores were passed but this scorer computes base={self.base!r}; "
                                 "create it with base='given'")
            bases = check_base_scores(base_scores, len(hyps))
        else:
            bases = self.base_scores(hyps, refs)
        records = []
        for seg_id, base, (hyp_left, ref_left) in zip(inputs.ids, bases, self.mismatches(hyps, refs)):
            s_h, s_r, p = sentiment_adjustment([it.polarity for it in hyp_left],
                                               [it.polarity for it in ref_left])
            records.append({
                "id": seg_id, "score": adjust(base, p), "base": base, "p": p, "s_h": s_h, "s_r": s_r,
                "mismatches": {"hypothesis": [it.explain() for it in hyp_left],
                               "reference": [it.explain() for it in ref_left]},
            })
        return records

    def reduce(self, records: List[Record]) -> MetricResult:
        bases = [float(r["base"]) for r in records]
        corpus: Mapping[str, Any] = {
            "base": self.base, "scale": BASE_SCALES[self.base],
            "base_score": sum(bases) / len(bases) if bases else float("nan"),
            "mean_p": sum(float(r["p"]) for r in records) / len(records) if records else float("nan"),
        }
        return mean_reduce(self, records, corpus=dict(corpus))

"""The SAM scorer: base metric per segment, unmatched items, the adjustment, the mean."""
from __future__ import annotations

import math
from typing import Any, Collection, Dict, List, Mapping, Optional, Sequence, Tuple

from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import PYTHON_SYNTAX, ArgumentSyntax, Inputs, Record, ordered_values
from nlgmetrics.core.language import EnglishOnly
from nlgmetrics.core.lexical import corpus_sentence_scores, sentence_chrf
from nlgmetrics.core.linguistic import get_analyzer
from nlgmetrics.core.option_values import short_repr
from nlgmetrics.core.record_fields import Field, explanation, number
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer, mean_reduce
from nlgmetrics.core.significance import Resampler, mean_resampler
from nlgmetrics.sam.adjust import adjust, damp_adjustment, match_items, sentiment_adjustment, weighted_polarity
from nlgmetrics.sam.config import BASE_LOW, BASE_SCALES, SENTENCE_METRICS, SAMConfig
from nlgmetrics.sam.lexicon import load_lexicon
from nlgmetrics.sam.tagger import Item, lookup_analyzer, text_items


# -- the scorer -------------------------------------------------------------------------------
def check_base_score(value: Any, where: str, base_range: Optional[Tuple[float, float]] = None,
                     syntax: ArgumentSyntax = PYTHON_SYNTAX) -> float:
    """One caller's base score: a finite number inside ``base_range`` (default [0, 1]);
    ``where`` names it in the error (``base_scores[3]``, ``scores.txt, line 4``), the hint is
    written in ``syntax``."""
    low, high = base_range or (0.0, 1.0)
    try:
        if isinstance(value, (bool, str, bytes)) or str(getattr(value, "dtype", "")) == "bool":
            raise TypeError  # float() would take True, np.True_ and "0.5"
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where} is not a number: {short_repr(value)}") from None
    except OverflowError:  # an integer beyond the float range: 10**400
        raise ValueError(f"{where} is a number beyond the float range; give finite numbers") from None
    if not math.isfinite(number):
        raise ValueError(f"{where} is {number}; give finite numbers")
    if not low <= number <= high:
        hint = (f"set {syntax.setting('base_range', '(low, high)')} to the scale of your metric "
                "(e.g. (-1, 1) or (0, 100))" if base_range is None else "widen base_range or check the scores")
        raise ValueError(f"{where} = {number} lies outside [{low:g}, {high:g}]; {hint}")
    return number


def check_base_scores(base_scores: Any, n: int,
                      base_range: Optional[Tuple[float, float]] = None) -> List[float]:
    """Caller's base scores: ``n`` finite numbers inside ``base_range`` (default [0, 1]), in
    an ordered sequence (the core's rule for every per-segment input: a set is refused)."""
    values = ordered_values(base_scores, "base_scores", "numbers", "numbers", n=n)
    return [check_base_score(value, f"base_scores[{i}]", base_range) for i, value in enumerate(values)]


def check_given(config: SAMConfig, names: Collection[str], syntax: ArgumentSyntax = PYTHON_SYNTAX) -> None:
    """Base scores come from the caller exactly when ``base='given'``."""
    given = syntax.option("base", "given")
    if config.base == "given" and "base_scores" not in names:
        raise ValueError(f"{given} takes the base scores from the caller: {syntax.extra('base_scores')}")
    if config.base != "given" and "base_scores" in names:
        raise ValueError(f"{syntax.extra('base_scores')} is for {given} only; "
                         f"{syntax.option('base', config.base)} computes its own base scores")


def base_bounds(config: SAMConfig) -> Tuple[float, float]:
    """The range of a base score: the base metric's scale (BERTScore F1 is a cosine mean, so
    [-1, 1]), for ``given`` its ``base_range`` (default [0, 1])."""
    if config.base == "given":
        return config.base_range or (0.0, 1.0)
    return {"bleu": (0.0, 100.0), "chrf": (0.0, 100.0), "meteor": (0.0, 1.0), "bertscore": (-1.0, 1.0)}[config.base]


def _polarities(mismatches: Any) -> Optional[Tuple[List[float], List[float]]]:
    """The polarities of a record's mismatched hypothesis and reference items, or None when
    they are not lists of items with a polarity in [-1, 1]."""
    out = []
    for side in ("hypothesis", "reference"):
        items = mismatches.get(side) if isinstance(mismatches, dict) else None
        if not isinstance(items, list):
            return None
        values: List[Any] = [it.get("polarity") if isinstance(it, dict) else None for it in items]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and -1 <= v <= 1 for v in values):
            return None
        out.append([float(v) for v in values])
    return out[0], out[1]


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
            from nlgmetrics.core.embeddings import bertscore_encoder

            self.encoder = bertscore_encoder(cfg.model, cfg.profile, cfg.layer, device=cfg.device, dtype=cfg.dtype,
                                             batch_size=cfg.batch_size, quiet=self.quiet)

    def setup_reduce(self) -> None:
        """The reduction reads the configuration only: no lexicon, tagger or encoder."""

    def signature_facts(self) -> Dict[str, Any]:
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
    def call_options(cls, options: Mapping[str, Any], extras: Collection[str]) -> Dict[str, Any]:
        """Passing ``base_scores`` means ``base='given'`` (unless ``base`` is given too)."""
        if "base_scores" in extras and "base" not in options:
            return {**options, "base": "given"}
        return dict(options)

    @classmethod
    def check_extra_names(cls, config: MetricConfig, names: Collection[str],
                          syntax: ArgumentSyntax = PYTHON_SYNTAX) -> None:
        assert isinstance(config, SAMConfig)
        check_given(config, names, syntax)

    @classmethod
    def check_extra_value(cls, config: MetricConfig, name: str, value: float, where: str,
                          syntax: ArgumentSyntax = PYTHON_SYNTAX) -> float:
        assert isinstance(config, SAMConfig)
        return check_base_score(value, where, config.base_range, syntax)

    def base_scores(self, predictions: Sequence[str], references: Sequence[str]) -> List[float]:
        """C_hr per segment from the configured base metric, on its own scale."""
        check_given(self.config, ())
        if self.encoder is not None:
            from nlgmetrics.core.embeddings import bertscore

            return list(bertscore(predictions, references, self.encoder)["f1"])
        if self.config.eps_smoothing:  # chrF only (checked by the configuration)
            return corpus_sentence_scores(lambda h, r: sentence_chrf(h, r, eps_smoothing=True), predictions, references)
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
            self._english.check(record, (hyp, ref))
            records.append(record)
        return records

    @classmethod
    def record_fields(cls, config: MetricConfig) -> Dict[str, Field]:
        """A record: the base score on its scale, p, p_raw in [0, 1], S_h and S_r in [-1, 1],
        the SAM score (derived: :meth:`derived_fields`) and the mismatched items."""
        assert isinstance(config, SAMConfig)
        low = config.base_range[0] if config.base == "given" and config.base_range else BASE_LOW.get(config.base, 0.0)
        lo, hi = base_bounds(config)
        return {"score": number(lo - abs(lo - low), hi), "base": number(lo, hi), "p": number(0, 1),
                "p_raw": number(0, 1), "s_h": number(-1, 1), "s_r": number(-1, 1), "mismatches": explanation()}

    def derived_fields(self, record: Record) -> Dict[str, Any]:
        """The score from base and p; p_raw from S_h and S_r; S_h, S_r and p from the mismatched
        items' polarities when the record lists them."""
        out: Dict[str, Any] = {}  # in the order of the computation: an error names the first forged field
        pols = _polarities(record.get("mismatches"))
        if pols is not None:
            out.update(s_h=weighted_polarity(pols[0]), s_r=weighted_polarity(pols[1]))
        out["p_raw"] = abs(record["s_h"] - record["s_r"]) / 2
        if pols is not None:
            out["p"] = damp_adjustment((record["s_h"], record["s_r"], out["p_raw"]), pols[0], pols[1],
                                       self.config.damping, self.config.damping_k)
        elif self.config.damping == "off":
            out["p"] = out["p_raw"]
        out["score"] = adjust(float(record["base"]), float(record["p"]), self.low)
        return out

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

"""BERTScore F1 as bert_score 0.3.13 computes it (no idf, no baseline rescaling): per segment,
and the mean F1 per system (bert_score's system score), from the project's BERTScore
(:func:`nlgmetrics.core.embeddings.bertscore`, tested against bert_score itself)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.facts import BERTSCORE_PROFILES, LITE_PACKAGES, Example, MetricFacts, Need
from nlgmetrics.core.inputs import Inputs, Record
from nlgmetrics.core.record_fields import Field, number
from nlgmetrics.core.scorer import Scorer

from . import bleu


@dataclass(frozen=True)
class BERTScoreConfig(MetricConfig):
    """BERTScore's options."""

    BUDGET = bleu.BUDGET

    profile: str = option("paper", "encoder: `paper` (roberta-large, layer 17: bert_score's English default, "
                          "hub) or `lite` (all-MiniLM-L6-v2, offline)", choices=tuple(BERTSCORE_PROFILES),
                          signature="always")
    model: Optional[str] = option(None, "encoder override (hub id, local directory or `minilm`)")
    layer: Optional[int] = option(None, "hidden layer override (default: bert_score's for the model, else the "
                                  "last)", low=0)
    device: str = option("auto", "device (auto, cpu, cuda, cuda:N, mps)", signature="never")
    dtype: str = option("fp32", "encoder precision", choices=("fp32", "fp16", "bf16"))
    batch_size: int = option(32, "encoder batch size", low=1, high=1024, signature="never")
    language: Optional[str] = option(None, "the texts' language (e.g. `en`): a corpus found mostly in another is an "
                                     "error; unset: a warning outside English", signature="never")


class BERTScore(Scorer):
    """BERTScore F1 per segment (precision and recall in the details); the corpus score is the
    mean F1."""

    name = "bertscore"
    Config = BERTScoreConfig
    references_mode = "required"
    sources_mode = "none"
    config: BERTScoreConfig
    encoder: Optional[Any] = None

    def setup(self) -> None:
        from nlgmetrics.core.embeddings import bertscore_encoder

        cfg = self.config
        self.encoder = bertscore_encoder(cfg.model, cfg.profile, cfg.layer, device=cfg.device, dtype=cfg.dtype,
                                         batch_size=cfg.batch_size, quiet=self.quiet)

    def setup_reduce(self) -> None:
        """The mean needs no encoder."""
        self.encoder = None

    def signature_facts(self) -> Dict[str, Any]:
        return {"model": self.encoder.describe() if self.encoder is not None else None}

    def score_segments(self, inputs: Inputs) -> List[Record]:
        from nlgmetrics.core.embeddings import bertscore

        if self.encoder is None:
            raise RuntimeError("a scorer made to reduce records does not score segments")
        out = bertscore(list(inputs.predictions), list(inputs.references or []), self.encoder)
        return [{"id": i, "score": f, "precision": p, "recall": r}
                for i, p, r, f in zip(inputs.ids, out["precision"], out["recall"], out["f1"])]

    @classmethod
    def record_fields(cls, config: MetricConfig) -> Optional[Dict[str, Field]]:
        return {"score": number(-1, 1), "precision": number(-1, 1), "recall": number(-1, 1)}

    def derived_fields(self, record: Record) -> Dict[str, Any]:
        """F1 from precision and recall (bert_score's harmonic mean; 0 when they sum to 0)."""
        p, r = float(record["precision"]), float(record["recall"])
        return {"score": 2 * p * r / (p + r) if p + r > 0 else 0.0}


FACTS = MetricFacts(
    summary="BERTScore F1 (as bert_score): per segment, the mean per system", higher_is_better=True,
    score_range="-1 to 1 (a cosine; about 0.2-1 in practice)",
    needs=(Need("paper", {"profile": "paper"}, models=(BERTSCORE_PROFILES["paper"],)),
           Need("lite", {"profile": "lite"}, packages=tuple(LITE_PACKAGES))),
    languages=("en",), language_note="English encoders (roberta-large, all-MiniLM-L6-v2)")
EXAMPLE = Example(bleu.EXAMPLE.inputs, {"profile": "lite"})

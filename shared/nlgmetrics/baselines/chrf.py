"""chrF as sacrebleu computes it: sentence chrF per segment, corpus chrF over the summed
character (and word) n-gram statistics per system (sacrebleu's ``corpus_score``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.facts import MetricFacts, Need

from . import bleu
from .stats import CorpusStatsScorer


@dataclass(frozen=True)
class ChrFConfig(MetricConfig):
    """chrF's options (sacrebleu's ``CHRF``)."""

    BUDGET = bleu.BUDGET

    word_order: int = option(0, "word n-gram order: 0 is chrF, 2 is chrF++", low=0, high=2, short="nw",
                             signature="always")
    eps_smoothing: bool = option(False, "sacrebleu's `eps_smoothing` (chrF++.py's smoothing of zero matches)",
                                 short="eps")
    lowercase: bool = option(False, "lowercase both texts (sacrebleu's `lowercase`)", short="lc")


class ChrF(CorpusStatsScorer):
    """sacrebleu's chrF: segment scores are sentence chrF, the corpus score corpus chrF."""

    name = "chrf"
    Config = ChrFConfig
    config: ChrFConfig

    def sacrebleu_metric(self, sentence: bool) -> Any:
        from sacrebleu.metrics import CHRF

        return CHRF(word_order=self.config.word_order, eps_smoothing=self.config.eps_smoothing,
                    lowercase=self.config.lowercase)


FACTS = MetricFacts(summary="chrF (sacrebleu): sentence chrF per segment, corpus chrF per system",
                    higher_is_better=True, score_range="0-100", needs=(Need("default", {}),))
EXAMPLE = bleu.EXAMPLE

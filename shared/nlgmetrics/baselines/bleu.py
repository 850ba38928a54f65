"""BLEU as sacrebleu computes it: sentence BLEU per segment (effective order, exp smoothing),
corpus BLEU over the summed n-gram statistics per system (sacrebleu's ``corpus_score``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nlgmetrics.core.budget import TOKENS, Budget
from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.facts import Example, MetricFacts, Need

from .stats import CorpusStatsScorer

#: sacrebleu's BLEU tokenizers that need no extra package
TOKENIZERS = ("13a", "intl", "char", "none", "zh")
#: sacrebleu's n-gram counting is linear in the text: the budget bounds the characters
BUDGET = Budget("tokens", 5_000, TOKENS, max_chars=50_000)


@dataclass(frozen=True)
class BLEUConfig(MetricConfig):
    """BLEU's options (sacrebleu's ``BLEU``)."""

    BUDGET = BUDGET

    tokenize: str = option("13a", "sacrebleu's tokenizer", choices=TOKENIZERS, short="tok", signature="always")
    lowercase: bool = option(False, "lowercase both texts (sacrebleu's `lowercase`)", short="lc")


class BLEU(CorpusStatsScorer):
    """sacrebleu's BLEU: segment scores are sentence BLEU, the corpus score corpus BLEU."""

    name = "bleu"
    Config = BLEUConfig
    config: BLEUConfig

    def sacrebleu_metric(self, sentence: bool) -> Any:
        from sacrebleu.metrics import BLEU as SacreBLEU

        return SacreBLEU(tokenize=self.config.tokenize, lowercase=self.config.lowercase, effective_order=sentence)


FACTS = MetricFacts(summary="BLEU (sacrebleu): sentence BLEU per segment, corpus BLEU per system",
                    higher_is_better=True, score_range="0-100", needs=(Need("default", {}),))
EXAMPLE = Example({"predictions": ["The cat sat on the mat.", "It is raining today."],
                   "references": ["A cat was sitting on the mat.", "Today it rains."]}, {})

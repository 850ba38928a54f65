"""A toy scorer over the core (chrF with a corpus-level step in reduce), registered by tests
that exercise machinery shared by all metrics (base class, sharding, distributed)."""
from dataclasses import dataclass
from typing import List

from nlgmetrics.core.base import Inputs, Record, Scorer
from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.lexical import sentence_chrf
from nlgmetrics.core.result import MetricResult


@dataclass(frozen=True)
class ToyConfig(MetricConfig):
    scale: float = option(1.0, "factor on chrF", low=0.0, short="s")


class ToyChrf(Scorer):
    """chrF per segment; the corpus step rescales by the corpus maximum (like DiscoTK's
    per-test-set normalisation), so a wrong merge of shards would show."""

    name = "toy"
    Config = ToyConfig
    sources_mode = "optional"

    def score_segments(self, inputs: Inputs) -> List[Record]:
        return [{"id": i, "raw": sentence_chrf(h, r) * self.config.scale}
                for i, h, r in zip(inputs.ids, inputs.predictions, inputs.references)]

    def reduce_records(self, records: List[Record]) -> MetricResult:
        top = max(r["raw"] for r in records) or 1.0
        scores = [r["raw"] / top for r in records]
        return MetricResult(self.name, scores, sum(scores) / len(scores), self.signature,
                            [{"raw": r["raw"]} for r in records], {"max": top})

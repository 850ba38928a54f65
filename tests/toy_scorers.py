"""A toy scorer over the core (chrF with a corpus-level step in reduce), registered by tests
that exercise machinery shared by all metrics (base class, sharding, distributed)."""
from typing import List

from nlgmetrics.core.base import Inputs, Record, Scorer, sort_records
from nlgmetrics.core.lexical import sentence_chrf
from nlgmetrics.core.result import MetricResult, make_signature


class ToyChrf(Scorer):
    """chrF per segment; the corpus step rescales by the corpus maximum (like DiscoTK's
    per-test-set normalisation), so a wrong merge of shards would show."""

    name = "toy"
    sources_mode = "optional"
    demo_inputs = {"predictions": ["the cat sat"], "references": ["the cat sat down"]}

    def __init__(self, scale: float = 1.0, quiet: bool = False) -> None:
        super().__init__(quiet=quiet)
        self.scale = scale

    def score_segments(self, inputs: Inputs) -> List[Record]:
        return [{"id": i, "raw": sentence_chrf(h, r) * self.scale}
                for i, h, r in zip(inputs.ids, inputs.predictions, inputs.references)]

    def reduce(self, records: List[Record]) -> MetricResult:
        recs = sort_records(records)
        top = max(r["raw"] for r in recs) or 1.0
        scores = [r["raw"] / top for r in recs]
        return MetricResult(self.name, scores, sum(scores) / len(scores), self.signature,
                            [{"raw": r["raw"]} for r in recs], {"max": top})

    @property
    def signature(self) -> str:
        return make_signature(self.name, "0", scale=self.scale)

"""A sacrebleu metric as a scorer: each segment's record holds sacrebleu's sufficient
statistics and its sentence score; the corpus score is sacrebleu's from the summed statistics,
so it equals ``corpus_score`` on the same texts whatever the shards (BLEU and chrF)."""
from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Optional

from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import Inputs, Record
from nlgmetrics.core.record_fields import Field, integers, number
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer


class CorpusStatsScorer(Scorer):
    """A metric whose corpus score comes from summed per-segment statistics: a subclass gives
    sacrebleu's metric object for sentences and for the corpus (:meth:`sacrebleu_metric`)."""

    references_mode = "required"
    sources_mode = "none"
    multi_reference = False
    #: the scale the scores are on
    scale: ClassVar[float] = 100.0

    def setup(self) -> None:
        self.sentence_metric = self.sacrebleu_metric(sentence=True)
        self.corpus_metric = self.sacrebleu_metric(sentence=False)

    def setup_reduce(self) -> None:
        self.setup()  # sacrebleu's objects only: no model

    def sacrebleu_metric(self, sentence: bool) -> Any:
        raise NotImplementedError

    def signature_facts(self) -> Dict[str, Any]:
        import sacrebleu

        return {"sacrebleu": sacrebleu.__version__}

    def _score_of(self, metric: Any, stats: List[int]) -> float:
        """sacrebleu's score of ``stats``, clipped to the scale (its float rounding gives
        100.00000000000004 for an identical pair)."""
        return min(self.scale, float(metric._compute_score_from_stats(list(stats)).score))

    def score_segments(self, inputs: Inputs) -> List[Record]:
        refs = [list(inputs.references or [])]
        stats = self.sentence_metric._extract_corpus_statistics(list(inputs.predictions), refs)
        return [{"id": i, "score": self._score_of(self.sentence_metric, s), "stats": [int(v) for v in s]}
                for i, s in zip(inputs.ids, stats)]

    @classmethod
    def record_fields(cls, config: MetricConfig) -> Optional[Dict[str, Field]]:
        return {"score": number(0, cls.scale), "stats": integers()}

    def derived_fields(self, record: Record) -> Dict[str, Any]:
        """The sentence score recomputed from the statistics (a forged score is refused)."""
        return {"score": self._score_of(self.sentence_metric, record["stats"])}

    def reduce_records(self, records: List[Record]) -> MetricResult:
        width = {len(r["stats"]) for r in records}
        if len(width) != 1:
            raise ValueError(f"{self.name}: records hold statistics of different lengths {sorted(width)}")
        total = [sum(column) for column in zip(*(r["stats"] for r in records))]
        corpus = self.corpus_metric._compute_score_from_stats(total)
        scores = [float(r["score"]) for r in records]
        details = [{k: v for k, v in r.items() if k not in ("id", "score")} for r in records]
        return MetricResult(self.name, scores, min(self.scale, float(corpus.score)), self.signature, details,
                            {"sacrebleu": str(corpus)})

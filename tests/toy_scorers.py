"""A toy scorer over the core (chrF with a corpus-level step in reduce), registered by tests
that exercise machinery shared by all metrics (base class, sharding, distributed, CLI).

Its configuration has one field of each kind the command line handles (number with a range,
switch, choice, device/dtype/batch size, a free-text path) and it takes a per-call,
per-segment input (``offsets``), so the generic paths are tested without a real model."""
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.inputs import Inputs, Record, per_segment_numbers
from nlgmetrics.core.lexical import sentence_chrf
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer


@dataclass(frozen=True)
class ToyConfig(MetricConfig):
    scale: float = option(1.0, "factor on chrF", low=0.0, short="s")
    lowercase: bool = option(False, "lowercase both texts first", short="lc")
    mode: str = option("max", "corpus step: divide by the corpus maximum, or none", choices=("max", "none"),
                      short="m")
    cache_dir: Optional[str] = option(None, "a directory the scorer creates at setup (like DATScore's)")
    device: str = option("auto", "auto, cpu, cuda, cuda:N or mps", signature="never")
    dtype: str = option("fp32", "model precision", choices=("fp32", "bf16", "fp16"), short="dt")
    batch_size: int = option(8, "segments per batch", low=1, signature="never")


class ToyChrf(Scorer):
    """chrF per segment plus an optional per-segment offset; the corpus step rescales by the
    corpus maximum (like DiscoTK's per-test-set normalisation), so a wrong merge of shards
    would show."""

    name = "toy"
    Config = ToyConfig
    sources_mode = "optional"
    extra_inputs = {"offsets": "a number added to each segment's raw score"}
    #: fields a records file may hold non-finite (the round-trip tests write them)
    nonfinite_fields = frozenset({"raw", "hi", "lo", "nested", "v", "a"})
    setups = 0

    def setup(self) -> None:
        type(self).setups += 1
        if self.config.cache_dir:
            os.makedirs(self.config.cache_dir, exist_ok=True)

    def check_extras(self, extras: Dict[str, Any], n: int) -> Dict[str, List[Any]]:
        return {"offsets": per_segment_numbers(extras["offsets"], "offsets", n)} if "offsets" in extras else {}

    def score_segments(self, inputs: Inputs) -> List[Record]:
        offsets = inputs.extras.get("offsets") or [0.0] * len(inputs)
        out = []
        for i, h, r, off in zip(inputs.ids, inputs.predictions, inputs.references, offsets):
            if self.config.lowercase:
                h, r = h.lower(), r.lower()
            out.append({"id": i, "raw": sentence_chrf(h, r) * self.config.scale + off})
        return out

    def reduce_records(self, records: List[Record]) -> MetricResult:
        top = (max(r["raw"] for r in records) or 1.0) if self.config.mode == "max" else 1.0
        scores = [r["raw"] / top for r in records]
        return MetricResult(self.name, scores, sum(scores) / len(scores), self.signature,
                            [{"raw": r["raw"]} for r in records], {"max": top})

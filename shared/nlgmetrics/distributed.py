"""Scale out: per-segment records for one shard of a corpus, merged and reduced later, and
data-parallel scoring on ``torch.distributed`` (gloo on CPU, nccl on GPU; ``torchrun``).

Every scorer splits into ``score_segments`` (independent per segment) and ``reduce`` (the
corpus steps), so a corpus can be scored in pieces and the merged result equals the
single-process one. Shards are round-robin (segment i goes to shard i mod N), which keeps
their length mix balanced.
"""
from __future__ import annotations

import gzip
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import nlgmetrics
from nlgmetrics.core.base import Record, Scorer
from nlgmetrics.core.result import MetricResult

FORMAT = 1


def parse_shard(text: str) -> Tuple[int, int]:
    """``"K/N"`` with 1 <= K <= N -> (K, N)."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"shard must look like K/N (e.g. 2/4), got {text!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"shard {text!r}: need 1 <= K <= N")
    return k, n


def shard_ids(n_segments: int, k: int, n_shards: int) -> List[int]:
    """Segment ids of shard k (1-based) of n_shards: round-robin."""
    return list(range(k - 1, n_segments, n_shards))


def score_shard(scorer: Scorer, predictions: Any, references: Any = None, sources: Any = None, *,
                shard: Tuple[int, int] = (1, 1), **extras: Any) -> List[Record]:
    """Per-segment records (with global segment ids) of one shard; per-segment ``extras``
    (e.g. SAM's ``base_scores``) are sliced with the texts."""
    inputs = scorer.validate(predictions, references, sources, **extras)
    if len(inputs) == 0:
        raise ValueError("predictions is empty; give at least one segment")
    ids = shard_ids(len(inputs), *shard)
    return scorer.score_segments(inputs.subset(ids)) if ids else []


def write_records(path: str, metric: str, options: Dict[str, Any], scorer: Scorer, records: List[Record],
                  *, n_segments: int, shard: Tuple[int, int]) -> Path:
    """Write a records file atomically (re-running a shard replaces it with the same content)."""
    header = {"nlgmetrics_records": FORMAT, "metric": metric, "options": options,
              "signature": scorer.signature, "n_segments": n_segments, "shard": f"{shard[0]}/{shard[1]}"}
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    opener = gzip.open if target.suffix == ".gz" else open
    os.close(fd)
    with opener(tmp, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(header) + "\n")
        for rec in records:
            fh.write(json.dumps(rec, default=_plain) + "\n")
    os.replace(tmp, target)
    return target


def _plain(obj: Any) -> Any:
    if hasattr(obj, "tolist"):
        return obj.tolist()
    raise TypeError(f"record field of type {type(obj).__name__} is not JSON serialisable")


def read_records(paths: Iterable[str]) -> Tuple[Dict[str, Any], List[Record]]:
    """Read shard files; check they belong to one run and together cover every segment once.
    The same shard given twice (or re-run) is merged when its records are identical."""
    header: Optional[Dict[str, Any]] = None
    by_id: Dict[int, Record] = {}
    for path in paths:
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as fh:
            first = json.loads(fh.readline() or "{}")
            if first.get("nlgmetrics_records") != FORMAT:
                raise ValueError(f"{path} is not an nlgmetrics records file")
            key = {k: first[k] for k in ("metric", "options", "signature", "n_segments")}
            if header is None:
                header = key
            elif key != header:
                raise ValueError(f"{path} comes from a different run ({key} vs {header})")
            for line in fh:
                rec = json.loads(line)
                old = by_id.get(rec["id"])
                if old is not None and old != rec:
                    raise ValueError(f"segment {rec['id']} has conflicting records ({path})")
                by_id[rec["id"]] = rec
    if header is None:
        raise ValueError("no records files given")
    missing = sorted(set(range(header["n_segments"])) - set(by_id))
    if missing:
        raise ValueError(f"{len(missing)} segment(s) have no record (first: {missing[:5]}); a shard is missing")
    return header, [by_id[i] for i in sorted(by_id)]


def reduce_files(paths: Iterable[str]) -> MetricResult:
    """Merge shard files and run the metric's corpus reduction."""
    header, records = read_records(paths)
    scorer = nlgmetrics.load(header["metric"], **header["options"])
    if scorer.signature != header["signature"]:
        raise ValueError("the scorer's signature differs from the one that wrote the records "
                         f"({scorer.signature} vs {header['signature']}); versions differ?")
    return scorer.reduce(records)


# --- torch.distributed -------------------------------------------------------------------

def init_distributed() -> bool:
    """Initialise the default process group when launched by torchrun (RANK/WORLD_SIZE set);
    nccl when CUDA is available, gloo otherwise. Returns whether a group is active."""
    import torch
    import torch.distributed as dist

    if not dist.is_available():
        return False
    if dist.is_initialized():
        return True
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        return False
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    if backend == "nccl":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
    dist.init_process_group(backend=backend)
    return True


def score_distributed(scorer: Scorer, predictions: Any, references: Any = None, sources: Any = None,
                      *, all_ranks: bool = True, group: Any = None, **extras: Any) -> Optional[MetricResult]:
    """Data-parallel scoring: every rank passes the same inputs, scores its round-robin shard,
    the records are gathered and rank 0 reduces. Other ranks receive the result too
    (``all_ranks=True``) or ``None``. Without an initialised process group this is
    ``scorer.score``. Works inside ``accelerate`` (it initialises the same default group)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return scorer.score(predictions, references, sources, **extras)
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    records = score_shard(scorer, predictions, references, sources, shard=(rank + 1, world), **extras)
    gathered: List[Optional[List[Record]]] = [None] * world if rank == 0 else []
    dist.gather_object(records, gathered if rank == 0 else None, dst=0, group=group)
    result = scorer.reduce([r for part in gathered for r in part]) if rank == 0 else None
    if all_ranks:
        box = [result]
        dist.broadcast_object_list(box, src=0, group=group)
        result = box[0]
    return result

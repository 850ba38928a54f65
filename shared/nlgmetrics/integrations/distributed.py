"""Scale out: per-segment records for one shard of a corpus (scored in chunks, streamed to a
records file), merged and reduced later, and data-parallel scoring on ``torch.distributed``
(gloo on CPU, nccl on GPU; ``torchrun``).

Every scorer splits into ``score_segments`` (independent per segment) and ``reduce`` (the
corpus steps), so a corpus can be scored in pieces and the merged result equals the
single-process one. Shards are round-robin (segment i goes to shard i mod N), which keeps
their length mix balanced. Per-call inputs (``extras``, e.g. SAM's ``base_scores``) are
sliced with the texts.

Records files (writing, reading as untrusted data, reducing) are in
:mod:`nlgmetrics.core.records`; their names are importable from here too. A records
file's header carries the fingerprint of the whole corpus (:func:`corpus_fingerprint`), so
``reduce`` refuses shards cut from different inputs::

    fingerprint = corpus_fingerprint(scorer, predictions, references)
    records = score_shard(scorer, predictions, references, shard=(k, n))
    write_records(path, metric, options, scorer, records, n_segments=len(predictions),
                  shard=(k, n), fingerprint=fingerprint)
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from nlgmetrics.core.environment import env_int
from nlgmetrics.core.inputs import Record
from nlgmetrics.core.records import (
    FORMAT,
    Fingerprint,
    RecordsWriter,
    corpus_digest,
    corpus_fingerprint,
    parse_shard,
    record_line,
    record_options,
    records_header,
    safe_option,
    shard_size,
    write_records,
)
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer
from nlgmetrics.integrations.records_reader import MAX_SEGMENTS, read_records, reduce_files

__all__ = ["FORMAT", "MAX_SEGMENTS", "Chunk", "check_same_run", "Fingerprint", "RecordsWriter", "corpus_digest", "corpus_fingerprint",
           "gather_reduce", "init_distributed", "shutdown_distributed", "parse_shard", "rank_and_world", "read_records",
           "record_line", "record_options", "records_header", "reduce_files", "safe_option", "score_chunks",
           "score_distributed", "score_shard", "shard_ids", "shard_size", "write_records"]
#: (first segment id, predictions, references, sources, extras) of one chunk of a corpus
Chunk = Tuple[int, List[str], Optional[List[Any]], Optional[List[str]], Dict[str, List[Any]]]


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
    scorer.check_language(inputs)  # the whole corpus, as Scorer.score checks it
    ids = shard_ids(len(inputs), *shard)
    return scorer.segment_records(inputs.subset(ids)) if ids else []


def score_chunks(scorer: Scorer, chunks: Iterable[Chunk], *,
                 shard: Tuple[int, int] = (1, 1)) -> Iterator[List[Record]]:
    """Score a corpus that arrives in chunks (constant memory in the corpus size): for each
    chunk, the records of the segments that belong to ``shard``. Chunks must be consecutive
    from id 0; the records equal those of scoring the whole corpus at once."""
    k, n_shards = shard
    expected = 0
    for start, preds, refs, srcs, extras in chunks:
        if start != expected:
            raise ValueError(f"chunk starts at segment {start}, expected {expected}")
        expected = start + len(preds)
        ids = list(range(start, expected))
        inputs = scorer.validate(preds, refs, srcs, ids=ids, **extras)
        mine = [i for i in ids if i % n_shards == k - 1]
        if mine:
            yield scorer.segment_records(inputs if len(mine) == len(ids) else inputs.subset(mine))


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
        torch.cuda.set_device(env_int("LOCAL_RANK", 0))
    dist.init_process_group(backend=backend)
    return True


def shutdown_distributed() -> None:
    """Wait for every rank, then tear the default process group down (a rank that exits while
    gloo still holds its threads aborts with "terminate called without an active exception")."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def rank_and_world(group: Any = None) -> Tuple[int, int]:
    """(rank, world size) of the active process group, (0, 1) without one."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return 0, 1
    return dist.get_rank(group), dist.get_world_size(group)


def gather_reduce(scorer: Scorer, records: List[Record], *, all_ranks: bool = True,
                  group: Any = None) -> Optional[MetricResult]:
    """Gather every rank's records on rank 0 and reduce there; the other ranks get the
    result too (``all_ranks``) or ``None``."""
    import torch.distributed as dist

    rank, world = rank_and_world(group)
    if world == 1 and not (dist.is_available() and dist.is_initialized()):
        return scorer.reduce(records)
    gathered: List[Optional[List[Record]]] = [None] * world if rank == 0 else []
    dist.gather_object(records, gathered if rank == 0 else None, dst=0, group=group)
    result = scorer.reduce([r for part in gathered for r in (part or [])]) if rank == 0 else None
    if all_ranks:
        box = [result]
        dist.broadcast_object_list(box, src=0, group=group)
        result = box[0]
    return result


def check_same_run(scorer: Scorer, fingerprint: Callable[[], str], *, group: Any = None) -> None:
    """Refuse, on every rank, a data-parallel run whose ranks differ in their corpus
    (``fingerprint()``, e.g. :func:`corpus_fingerprint`) or their scorer's signature: each rank
    scores only its own shard of what it was given, so different inputs would otherwise merge
    into a silently wrong result. A rank whose inputs cannot be read or validated raises its own
    error, and every other rank raises a ValueError that names it, instead of waiting for it in
    a collective. One ``all_gather_object`` of short strings; nothing without a process group."""
    import torch.distributed as dist

    rank, world = rank_and_world(group)
    if world == 1:
        return
    error: Optional[BaseException] = None
    digest: Optional[str] = None
    try:
        digest = fingerprint()
    except Exception as err:  # re-raised below on this rank, after the others have been told
        error = err
    every: List[Any] = [None] * world
    dist.all_gather_object(every, (digest, scorer.signature, None if error is None else f"{type(error).__name__}: {error}"),
                           group=group)
    if error is not None:
        raise error
    failed = [f"rank {k}: {message}" for k, (_, _, message) in enumerate(every) if message]
    if failed:
        raise ValueError("another rank of this distributed run could not read its inputs (" + "; ".join(failed) + ")")
    inputs = [k for k, (theirs, _, _) in enumerate(every) if theirs != every[0][0]]
    signed = [k for k, (_, theirs, _) in enumerate(every) if theirs != every[0][1]]
    if inputs or signed:
        raise ValueError(
            "every rank of a distributed run must score the same corpus with the same options: "
            + "; ".join(part for part in (
                f"the inputs of rank(s) {', '.join(map(str, inputs))} differ from rank 0's" if inputs else "",
                f"the scorer of rank(s) {', '.join(map(str, signed))} signs differently from rank 0's "
                f"({every[signed[0]][1]} against {every[0][1]})" if signed else "") if part))


def score_distributed(scorer: Scorer, predictions: Any, references: Any = None, sources: Any = None,
                      *, all_ranks: bool = True, group: Any = None, **extras: Any) -> Optional[MetricResult]:
    """Data-parallel scoring: every rank passes the same inputs, scores its round-robin shard,
    the records are gathered and rank 0 reduces. Other ranks receive the result too
    (``all_ranks=True``) or ``None``. Without an initialised process group this is
    ``scorer.score``. Works inside ``accelerate`` (it initialises the same default group).
    Per-segment ``extras`` (e.g. ``base_scores``) travel with the texts."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return scorer.score(predictions, references, sources, **extras)
    rank, world = rank_and_world(group)
    check_same_run(scorer, lambda: corpus_fingerprint(scorer, predictions, references, sources, **extras), group=group)
    records = score_shard(scorer, predictions, references, sources, shard=(rank + 1, world), **extras)
    return gather_reduce(scorer, records, all_ranks=all_ranks, group=group)

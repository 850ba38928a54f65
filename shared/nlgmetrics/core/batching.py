"""Batch planning and device helpers shared by the model wrappers: batches by count or by a
token budget, CUDA out-of-memory back-off, and BERTScore's greedy cosine matching batched on
the device.

Two batching policies (see :func:`plan_batches`):

- *one shape* (CPU): a batch only holds items of one padded width, so an item's numbers do not
  depend on the other items of its batch (BLAS picks kernels by shape; rounding differs by
  about 1e-7). Token-budget batches of one width give the same numbers as fixed batches.
- *longest row* (GPU): items sorted by length, each batch padded to its longest row. Fewer,
  fuller batches; float rounding then depends on the batch (about 1e-6 in fp32), as any GPU
  kernel's choice does.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, List, Optional, Sequence, Tuple, TypeVar

import numpy as np
import torch

T = TypeVar("T")
R = TypeVar("R")
Shape = Tuple[int, ...]


def plan_batches(items: Sequence[T], shape: Callable[[T], Shape], batch_size: int,
                 batch_tokens: Optional[int] = None, *, one_shape: bool = True,
                 order: Optional[Callable[[T], Any]] = None) -> List[List[T]]:
    """Batches of ``items``, longest first (sorted by ``(shape(item), order(item))``,
    descending). ``shape(item)`` gives the padded length of each of an item's sequences (a
    tuple: a pair has two). A batch grows while it holds at most ``batch_size`` items, or, with
    ``batch_tokens``, while ``rows x sum(padded lengths)`` stays within the budget (a single
    item always fits). ``one_shape``: only items of one shape share a batch; else a batch is
    padded to the elementwise longest of its items."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if batch_tokens is not None and batch_tokens < 1:
        raise ValueError(f"batch_tokens must be >= 1 or None, got {batch_tokens}")
    ordered = sorted(items, key=lambda x: (shape(x), order(x) if order else 0), reverse=True)
    out: List[List[T]] = []
    top: Shape = ()
    for item in ordered:
        s = shape(item)
        if out:
            padded = s if one_shape else tuple(max(a, b) for a, b in zip(top, s))
            rows = len(out[-1]) + 1
            fits = (not one_shape or s == top) and (
                rows <= batch_size if batch_tokens is None else rows * sum(padded) <= batch_tokens)
            if fits:
                out[-1].append(item)
                top = padded
                continue
        out.append([item])
        top = s
    return out


def is_out_of_memory(error: BaseException) -> bool:
    """True for a CUDA (or MPS) allocator failure."""
    oom = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom is not None and isinstance(error, oom):
        return True
    return isinstance(error, RuntimeError) and "out of memory" in str(error).lower()


class OOMBackoff:
    """Runs per-batch work, and on an out-of-memory error retries with half the batch (with a
    warning), down to one row; the smaller size is kept for the batches that follow.

    ``run(fn, batch)`` calls ``fn`` on pieces of ``batch`` and concatenates the per-item
    results it returns, in order."""

    def __init__(self, what: str = "batch") -> None:
        self.what = what
        self.max_rows: Optional[int] = None

    def run(self, fn: Callable[[List[T]], List[R]], batch: Sequence[T]) -> List[R]:
        rows = len(batch) if self.max_rows is None else min(len(batch), self.max_rows)
        out: List[R] = []
        start = 0
        while start < len(batch):
            piece = list(batch[start:start + rows])
            try:
                result = fn(piece)
            except Exception as error:  # noqa: BLE001 (re-raised unless it is out-of-memory)
                if not is_out_of_memory(error) or len(piece) < 2:
                    raise
                result = None
            if result is None:  # outside the except block, so the failed batch's tensors are freed
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                rows = max(1, len(piece) // 2)
                self.max_rows = rows
                warnings.warn(f"out of device memory in a {self.what} of {len(piece)} rows: retrying with "
                              f"{rows} rows (set a smaller batch_size or batch_tokens to avoid the retry)",
                              RuntimeWarning, stacklevel=3)
                continue
            out.extend(result)
            start += len(piece)
        return out


def greedy_match_batched(cands: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                         cand_weights: Sequence[np.ndarray], ref_weights: Sequence[np.ndarray], *,
                         device: torch.device | str = "cpu", pairs_per_batch: int = 256) -> np.ndarray:
    """BERTScore's greedy matching of each (candidate, reference) pair of token-vector arrays,
    batched: rows normalised, padded to the batch's longest, one matrix product per batch
    with masks, on ``device``; precision, recall and F1 come back to the host once per batch.
    Returns an (n, 3) float64 array, the same as the per-pair
    :func:`~nlgmetrics.core.embeddings._greedy` to float rounding (about 1e-7); an empty
    candidate or reference scores 0."""
    n = len(cands)
    out = np.zeros((n, 3), dtype=np.float64)
    dev = torch.device(device)
    todo = [i for i in range(n) if len(cands[i]) and len(refs[i])]
    todo.sort(key=lambda i: (len(cands[i]), len(refs[i])), reverse=True)
    for start in range(0, len(todo), pairs_per_batch):
        chunk = todo[start:start + pairs_per_batch]
        out[chunk] = _greedy_chunk([cands[i] for i in chunk], [refs[i] for i in chunk],
                                   [cand_weights[i] for i in chunk], [ref_weights[i] for i in chunk], dev)
    return out


def _padded(arrays: Sequence[np.ndarray], dtype: Any, device: torch.device) -> Tuple[torch.Tensor, torch.Tensor]:
    """The arrays zero-padded along their first axis into one tensor on ``device``, and the mask."""
    width = max(len(a) for a in arrays)
    block = np.zeros((len(arrays), width) + arrays[0].shape[1:], dtype=dtype)
    mask = np.zeros((len(arrays), width), dtype=bool)
    for row, a in enumerate(arrays):
        block[row, :len(a)] = a
        mask[row, :len(a)] = True
    return torch.from_numpy(block).to(device), torch.from_numpy(mask).to(device)


def _greedy_chunk(cands: Sequence[np.ndarray], refs: Sequence[np.ndarray], wcs: Sequence[np.ndarray],
                  wrs: Sequence[np.ndarray], device: torch.device) -> np.ndarray:
    c, mc = _padded(cands, np.float32, device)
    r, mr = _padded(refs, np.float32, device)
    wc, _ = _padded(wcs, np.float64, device)
    wr, _ = _padded(wrs, np.float64, device)
    c = c / c.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    r = r / r.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    sim = torch.bmm(c, r.transpose(1, 2)).clamp(-1.0, 1.0)
    sim = sim.masked_fill(~(mc[:, :, None] & mr[:, None, :]), -2.0)
    best_c = torch.where(mc, sim.amax(dim=2), 0).double()
    best_r = torch.where(mr, sim.amax(dim=1), 0).double()
    p = ((best_c * wc).sum(1) / wc.sum(1).clamp_min(1e-12)).clamp(max=1.0)
    rec = ((best_r * wr).sum(1) / wr.sum(1).clamp_min(1e-12)).clamp(max=1.0)
    total = p + rec
    f = torch.where(total > 0, 2 * p * rec / torch.where(total > 0, total, 1.0), 0.0)
    return torch.stack([p, rec, f], dim=1).cpu().numpy()

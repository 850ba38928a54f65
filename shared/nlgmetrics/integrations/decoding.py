"""Token ids and logits as texts, for the Trainer hook (:mod:`.transformers`).

What is accepted, and the error for anything else (before any tokenizer sees it): token ids as
a 2-D integer array (batch, length), or 3-D logits (batch, length, vocab) whose argmax is taken;
a tuple's first element; torch tensors (``batch_eval_metrics``); lists of per-batch arrays
(``eval_do_concat_batches=False``). See the hook's module docstring for what is decoded.
Logits holding NaN or +inf at a position that is not padding raise :class:`Unscorable`: there
is no prediction there, and the hook logs NaN for the evaluation (with a warning), never a score.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class Unscorable(ValueError):
    """An evaluation with nothing to score (non-finite logits): the hook warns and logs NaN."""


def vocab_size(tokenizer: Any) -> int | None:
    """Number of ids the tokenizer can decode (added tokens included), when it says."""
    sizes = []
    try:
        sizes.append(len(tokenizer))
    except TypeError:
        pass
    if isinstance(getattr(tokenizer, "vocab_size", None), int):
        sizes.append(tokenizer.vocab_size)
    return max(sizes) if sizes else None


def token_ids(ids: Any, field: str, tokenizer: Any, extra_ids: Sequence[int] = ()) -> np.ndarray:
    """``ids`` as a checked 2-D integer array (negative ids kept: the caller drops them), or
    ``ValueError`` saying what was wrong (``extra_ids``: ids beyond the vocabulary the caller
    handles itself, e.g. language codes)."""
    if isinstance(ids, tuple):  # (generated ids, ...) from some models
        if not ids:
            raise ValueError(f"{field} is an empty tuple; expected token ids")
        ids = ids[0]
    if ids is None:
        raise ValueError(f"{field} is None: the evaluation produced no {field}")
    ids = to_numpy(ids)
    try:
        arr = np.asarray(ids)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"{field} must be a rectangular array of token ids (pad the rows): {err}") from None
    if arr.dtype == object:
        raise ValueError(f"{field} must be a rectangular array of token ids (pad the rows), got rows of different lengths or types")
    if arr.ndim >= 1 and arr.shape[0] == 0:
        raise ValueError(f"{field} is empty: the evaluation set has no examples, so there is nothing to score")
    if arr.ndim == 3:  # logits: greedy ids
        if not np.issubdtype(arr.dtype, np.floating):
            raise ValueError(f"{field} has 3 dimensions but is not float logits (dtype {arr.dtype})")
        top = arr.max(-1)  # NaN where a position holds a NaN, +inf where one holds +inf
        padding = top == arr.min(-1)  # the Trainer's -100 fill between batches: no prediction
        broken = np.isnan(top) | np.isposinf(top)
        if broken.any():
            row, col = np.argwhere(broken)[0]
            raise Unscorable(f"{field}[{row}][{col}] holds non-finite logits (NaN or +inf; {int(broken.sum())} "
                             "position(s)): the model's outputs overflowed or diverged, so there is no prediction "
                             "to score")
        arr = np.where(padding, -1, arr.argmax(-1))
    if arr.ndim != 2:
        raise ValueError(f"{field} must be token ids of shape (batch, length) or logits of shape "
                         f"(batch, length, vocab); got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool:
        raise ValueError(f"{field} must hold integer token ids, got dtype {arr.dtype} (use "
                         "predict_with_generate=True, or pass logits of shape (batch, length, vocab))")
    if np.issubdtype(arr.dtype, np.unsignedinteger):  # uint64 ids: signed, so that -1 can mark "no token"
        if arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            row, col = np.argwhere(arr > np.iinfo(np.int64).max)[0]
            raise ValueError(f"{field}[{row}][{col}] is token id {int(arr[row, col])}, beyond any vocabulary")
        arr = arr.astype(np.int64)
    size = vocab_size(tokenizer)
    bad = (arr >= size) & ~np.isin(arr, list(extra_ids)) if size is not None else None
    if bad is not None and bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(f"{field}[{row}][{col}] is token id {int(arr[row, col])}, outside the tokenizer's "
                         f"vocabulary of {size} ids (a tokenizer that does not match the model?)")
    return arr


def to_numpy(ids: Any) -> Any:
    """A torch tensor (``batch_eval_metrics`` passes them, possibly on the GPU, possibly in
    bfloat16) as a NumPy array; anything else unchanged."""
    if hasattr(ids, "detach"):
        tensor = ids.detach().cpu()
        return (tensor.float() if tensor.is_floating_point() else tensor).numpy()
    return ids


def batches(ids: Any) -> list[Any] | None:
    """With ``eval_do_concat_batches=False`` the Trainer passes a list of per-batch arrays (of
    different widths): that list (a tuple's first element per batch), else ``None``."""
    if not isinstance(ids, list) or not ids:
        return None
    items = [b[0] if isinstance(b, tuple) and b else b for b in ids]
    return items if all(getattr(b, "ndim", 0) >= 2 for b in items) else None


ALIGN_LABELS = (None, "seq2seq", "causal")


def label_mask(arr: np.ndarray, labels: np.ndarray, align: str) -> np.ndarray:
    """``arr`` with the positions that predict no label (``-100``) set to ``-1``: ``align``
    ``"seq2seq"`` pairs position *t* with label *t*, ``"causal"`` with label *t + 1*."""
    if labels.shape != arr.shape:
        raise ValueError(f"align_labels={align!r} needs predictions of the labels' (batch, length) shape "
                         f"{labels.shape}, got {arr.shape} (teacher-forced logits or their argmax, not generated ids)")
    keep = labels >= 0
    if align == "causal":  # logit t predicts token t + 1; the last one predicts nothing labelled
        keep = np.concatenate([keep[:, 1:], np.zeros_like(keep[:, :1])], axis=1)
    return np.where(keep, arr, -1)


def lang_ids(tokenizer: Any) -> set[int]:
    """Language-code ids: multilingual tokenizers (M2M-100, NLLB, mBART) may not mark them as
    special (and may number them beyond ``len(tokenizer)``)."""
    return set(getattr(tokenizer, "lang_code_to_id", {}).values())


def decode(tokenizer: Any, ids: Any, field: str = "predictions", labels: np.ndarray | None = None,
           align: str | None = None, cut_eos: bool = True) -> list[str]:
    """Decoded texts of ``ids`` (see :mod:`.transformers`); ``labels``, the checked label ids,
    mask the positions as ``align`` says; ``cut_eos``: a row ends at its first end-of-sequence
    token (predictions; not labels or inputs)."""
    codes = lang_ids(tokenizer)
    arr = token_ids(ids, field, tokenizer, sorted(codes))
    if align is not None and labels is not None:
        arr = label_mask(arr, labels, align)
    eos = getattr(tokenizer, "eos_token_id", None)
    if cut_eos and isinstance(eos, int):
        arr = arr.copy()
        for row in arr:
            hits = np.flatnonzero(row[1:] == eos)  # a first-position EOS is a decoder start token
            if hits.size:
                row[hits[0] + 2:] = -1  # greedy decoding stops at the end of sequence
    # negative ids (-100 label padding, fill values) are no tokens: dropped
    rows = [[t for t in row if t >= 0 and t not in codes] for row in arr.tolist()]
    return [t.strip() for t in tokenizer.batch_decode(rows, skip_special_tokens=True)]

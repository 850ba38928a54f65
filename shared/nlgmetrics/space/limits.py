"""A Space's limits per request, so that one heavy request cannot hold the server or the other
visitors: a cap on segments and total characters (checked before anything is scored), a time
limit (checked between chunks of segments; over it the request stops with a clear message),
gradio's queue with a concurrency setting, and uploads read within a size bound. On the CPU,
requests are scored side by side (the core's caches, parsers and tokenizers have their own
locks), so a normal request shares the processor with a heavy one instead of waiting for it;
on a GPU (``serialize``) the models' lock is taken per chunk of segments, so a normal request
waits for one chunk of a heavy one, not for all of it.

The Space's owner may change the numbers with environment variables (never the page):
``NLGMETRICS_SPACE_MAX_SEGMENTS``, ``NLGMETRICS_SPACE_MAX_CHARS``, ``NLGMETRICS_SPACE_SECONDS``,
``NLGMETRICS_SPACE_CONCURRENCY``.
"""
from __future__ import annotations

import contextlib
import os
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Dict, List

from nlgmetrics.core import files
from nlgmetrics.core.result import MetricResult

#: segments scored between two checks of the time limit (and held under the models' lock)
CHUNK = 1
#: pause after releasing the lock between chunks, so that a waiting request takes it (a lock
#: released and at once re-acquired by the same thread would starve the others)
HANDOFF_SECONDS = 0.005


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    try:
        return max(1, int(value)) if value else default
    except ValueError:
        return default


@dataclass(frozen=True)
class Limits:
    """One request's bounds: ``segments``, total ``chars`` of its texts, ``seconds`` of scoring,
    ``upload_bytes`` of an uploaded file once decompressed (``line_bytes`` per line), and how
    many requests run at once (``concurrency``)."""

    segments: int = 5000
    chars: int = 2_000_000
    seconds: int = 120
    upload_bytes: int = 64 * 2**20
    line_bytes: int = 4 * 2**20
    concurrency: int = 2
    #: score under the models' lock (chunk by chunk): for models on a GPU
    serialize: bool = False

    @classmethod
    def from_env(cls, serialize: bool = False) -> "Limits":
        base = cls()
        return cls(_env_int("NLGMETRICS_SPACE_MAX_SEGMENTS", base.segments),
                   _env_int("NLGMETRICS_SPACE_MAX_CHARS", base.chars),
                   _env_int("NLGMETRICS_SPACE_SECONDS", base.seconds), base.upload_bytes, base.line_bytes,
                   _env_int("NLGMETRICS_SPACE_CONCURRENCY", base.concurrency), serialize)

    def describe(self) -> str:
        """The line the page shows."""
        return (f"Limits per request: {self.segments:,} segments, {self.chars:,} characters in all, "
                f"{self.seconds} s of scoring; uploads up to {self.upload_bytes // 2**20} MB (decompressed). "
                "Longer texts are cut to the metric's per-segment budget (see its card).")

    def check(self, inputs: Dict[str, Any]) -> None:
        """``ValueError`` when a request is over the segment or character cap."""
        preds = inputs["predictions"]
        if len(preds) > self.segments:
            raise ValueError(f"{len(preds):,} segments: this Space scores at most {self.segments:,} per request "
                             "(use the Python package or the CLI for more)")
        total = 0
        for name in ("predictions", "references", "sources"):
            for item in inputs.get(name) or []:
                total += sum(len(t) for t in ([item] if isinstance(item, str) else item) if isinstance(t, str))
        if total > self.chars:
            raise ValueError(f"{total:,} characters in all: this Space scores at most {self.chars:,} per request "
                             "(use the Python package or the CLI for more)")

    def uploads(self) -> AbstractContextManager:
        """Read uploads within :attr:`upload_bytes` and :attr:`line_bytes`."""
        return files.limits(self.upload_bytes, self.line_bytes)

    def score(self, scorer: Any, inputs: Dict[str, Any], lock: Any) -> MetricResult:
        """``scorer.score`` of the request within the limits: checked first, scored
        :data:`CHUNK` segments at a time (under ``lock``, released between chunks, when
        :attr:`serialize`), stopped with ``TimeoutError`` once :attr:`seconds` have passed; the
        same result as one call."""
        self.check(inputs)
        start = time.monotonic()
        lock = lock if self.serialize else contextlib.nullcontext()
        with lock:
            valid = scorer.validate(inputs["predictions"], inputs.get("references"), inputs.get("sources"))
        if len(valid) == 0:
            raise ValueError("predictions is empty; give at least one segment")
        records: List[Dict[str, Any]] = []
        for k in range(0, len(valid), CHUNK):
            if time.monotonic() - start > self.seconds:
                raise TimeoutError(f"the request took more than {self.seconds} s and was stopped after "
                                   f"{k:,} of {len(valid):,} segments; score fewer or shorter segments here, "
                                   "or use the Python package or the CLI")
            with lock:
                records += scorer.segment_records(valid.subset(valid.ids[k:k + CHUNK]))
            time.sleep(HANDOFF_SECONDS)
        with lock:
            return scorer.reduce(records)


def queued(demo: Any, limits: Limits) -> Any:
    """``demo`` with gradio's queue: ``limits.concurrency`` requests run at once (a heavy one
    does not hold the others: they share the models chunk by chunk)."""
    return demo.queue(default_concurrency_limit=limits.concurrency)

"""A Space's limits per request, so that one heavy request cannot hold the server or the other
visitors: a cap on segments and total characters (checked before anything is scored), a time
limit (over it the request stops with a clear message), gradio's queue with a concurrency
setting, and uploads read within a size bound.

On the CPU, a launched Space scores each request in a worker process of its own
(:mod:`.workers`: ``concurrency`` processes, started with the server and ended with it), so a
heavy request occupies one process while a normal one runs at full speed in another, and a
newer request scores its first seconds with the longer-running ones paused. In threads of the
server's process the heavy request's pure-Python work shared the interpreter lock with the
normal one and with gradio's event loop. ``benchmarks/space_concurrency.py`` (DiscoTK-party, a
normal request alone and beside 24 worst-case segments, 3 rounds per mode in fresh processes,
2 cores): 5.7x its time alone in threads, 1.02x in worker processes (0.33 s; the round trip
to a worker adds about 0.1 s to a request alone). Past the time limit the worker is ended and replaced, so the limit
holds even inside one long segment. The page's reading, reference points and drawings still
use a scorer in the server's process (a copy of the models there too). On a GPU (``serialize``), or on
ZeroGPU, requests are scored in the server's process (the models are not copied per process):
the models' lock is taken per chunk of segments, so a normal request waits for one chunk of a
heavy one, not for all of it; the time limit is checked between chunks.

The Space's owner may change the numbers with environment variables (never the page):
``NLGMETRICS_SPACE_MAX_SEGMENTS``, ``NLGMETRICS_SPACE_MAX_CHARS``, ``NLGMETRICS_SPACE_SECONDS``,
``NLGMETRICS_SPACE_CONCURRENCY``; ``NLGMETRICS_SPACE_PROCESSES=0`` scores in the server's
process on the CPU too (side by side in threads; less memory: one copy of the models).
"""
from __future__ import annotations

import contextlib
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional

from nlgmetrics.core import files
from nlgmetrics.core.environment import env_flag, env_int
from nlgmetrics.core.result import MetricResult

#: segments scored between two checks of the time limit (and held under the models' lock)
CHUNK = 1
#: pause after releasing the lock between chunks, so that a waiting request takes it (a lock
#: released and at once re-acquired by the same thread would starve the others)
HANDOFF_SECONDS = 0.005


def timeout_message(seconds: float, done: int, total: int) -> str:
    """What a request stopped by the time limit says."""
    return (f"the request took more than {seconds} s and was stopped after {done:,} of {total:,} segments; "
            "score fewer or shorter segments here, or use the Python package or the CLI")


@dataclass(frozen=True)
class Limits:
    """One request's bounds: ``segments``, total ``chars`` of its texts, ``seconds`` of scoring,
    ``upload_bytes`` of an uploaded file once decompressed (``line_bytes`` per line), and how
    many requests run at once (``concurrency``); on the CPU, whether they are scored in worker
    processes (``processes``, :mod:`.workers`)."""

    segments: int = 5000
    chars: int = 2_000_000
    seconds: int = 120
    upload_bytes: int = 64 * 2**20
    line_bytes: int = 4 * 2**20
    concurrency: int = 2
    #: score under the models' lock (chunk by chunk): for models on a GPU
    serialize: bool = False
    #: on the CPU, score in worker processes once the Space is launched (not when ``serialize``)
    processes: bool = True

    @classmethod
    def from_env(cls, serialize: bool = False) -> "Limits":
        base = cls()
        return cls(env_int("NLGMETRICS_SPACE_MAX_SEGMENTS", base.segments, low=1),
                   env_int("NLGMETRICS_SPACE_MAX_CHARS", base.chars, low=1),
                   env_int("NLGMETRICS_SPACE_SECONDS", base.seconds, low=1), base.upload_bytes, base.line_bytes,
                   env_int("NLGMETRICS_SPACE_CONCURRENCY", base.concurrency, low=1), serialize,
                   env_flag("NLGMETRICS_SPACE_PROCESSES", base.processes))

    def describe(self) -> str:
        """The line the page shows."""
        return (f"Limits per request: {self.segments:,} segments, {self.chars:,} characters in all, "
                f"{self.seconds} s of scoring; uploads up to {self.upload_bytes // 2**20} MB (decompressed). "
                "Longer texts are cut to the metric's per-segment budget (see its card).")

    def check(self, inputs: Dict[str, Any]) -> None:
        """``ValueError`` when a request is over the segment or character cap."""
        preds = inputs["predictions"]
        if not isinstance(preds, (list, tuple)):  # the scorer's own input step says what it takes
            return
        if len(preds) > self.segments:
            raise ValueError(f"{len(preds):,} segments: this Space scores at most {self.segments:,} per request "
                             "(use the Python package or the CLI for more)")
        total = 0
        for name in ("predictions", "references", "sources"):
            given = inputs.get(name)
            for item in given if isinstance(given, (list, tuple)) else []:
                texts = [item] if isinstance(item, str) else item if isinstance(item, (list, tuple)) else []
                total += sum(len(t) for t in texts if isinstance(t, str))
        if total > self.chars:
            raise ValueError(f"{total:,} characters in all: this Space scores at most {self.chars:,} per request "
                             "(use the Python package or the CLI for more)")

    def uploads(self) -> AbstractContextManager:
        """Read uploads within :attr:`upload_bytes` and :attr:`line_bytes`."""
        return files.limits(self.upload_bytes, self.line_bytes)

    def score(self, scorer: Any, inputs: Dict[str, Any], lock: Any,
              progress: Optional[Callable[[int, int], None]] = None,
              extras: Optional[Mapping[str, Any]] = None) -> MetricResult:
        """``scorer.score`` of the request within the limits: checked first, scored
        :data:`CHUNK` segments at a time (under ``lock``, released between chunks, when
        :attr:`serialize`), stopped with ``TimeoutError`` once :attr:`seconds` have passed; the
        same result as one call. ``progress(done, total)`` is called before each chunk;
        ``extras``: the call's per-segment inputs (SAM's ``base_scores``)."""
        self.check(inputs)
        start = time.monotonic()
        lock = lock if self.serialize else contextlib.nullcontext()
        with lock:
            valid = scorer.validate(inputs["predictions"], inputs.get("references"), inputs.get("sources"),
                                    **dict(extras or {}))
        if len(valid) == 0:
            raise ValueError("predictions is empty; give at least one segment")
        records: List[Dict[str, Any]] = []
        for k in range(0, len(valid), CHUNK):
            if progress is not None:
                progress(k, len(valid))
            if time.monotonic() - start > self.seconds:
                raise TimeoutError(timeout_message(self.seconds, k, len(valid)))
            with lock:
                records += scorer.segment_records(valid.subset(valid.ids[k:k + CHUNK]))
            if self.serialize:  # only a lock handed on needs the pause
                time.sleep(HANDOFF_SECONDS)
        with lock:
            return scorer.reduce(records)


def queued(demo: Any, limits: Limits) -> Any:
    """``demo`` with gradio's queue: ``limits.concurrency`` requests run at once (a heavy one
    does not hold the others: on the CPU each is scored in its own worker process, on a GPU
    they share the models chunk by chunk)."""
    return demo.queue(default_concurrency_limit=limits.concurrency)

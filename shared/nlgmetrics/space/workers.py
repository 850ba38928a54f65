"""Scoring in worker processes, for a Space on the CPU (:mod:`.limits` says why): a pool of
``size`` processes (``spawn``: never a fork of a server that has loaded torch), started when
the Space is launched, each warmed up (its scorer built, three short lines of its own scored, so
that the lazily loaded resources are there for the first visitor) and ended when the
Space closes (or the interpreter exits; they are daemons). A request takes an idle worker,
sends it (the resolved call, inputs, limits) and gets back the :class:`MetricResult` and the
warnings the package issued there; the worker builds the call's scorer with the page's
``build(call)`` (by default :func:`nlgmetrics.registry.load_call`, which keeps one scorer per
configuration): the call is resolved once, in the server, and the worker neither resolves it
nor builds its configuration again (a configuration is unpickled as it was). Past the time limit the
worker is ended and replaced, and the request stops with the limits' message.

A request scores alone for its first :data:`PREEMPT_SECONDS`: workers whose requests have
been scoring longer than that are paused (``SIGSTOP``) meanwhile and then continue, so a normal
request keeps its speed beside a heavy one even when the machine has no core to spare (other
processes, one core); a heavy request loses at most that much time to each newer request."""
from __future__ import annotations

import atexit
import dataclasses
import multiprocessing
import os
import pickle
import queue
import signal
import threading
import time
import warnings
from multiprocessing.connection import wait
from typing import Any, Callable, Dict, List, Optional, Tuple

from nlgmetrics.core.call import Call
from nlgmetrics.core.result import MetricResult

from .limits import Limits, timeout_message
from .report import Warning_, captured

_SPAWN = multiprocessing.get_context("spawn")
#: what a worker scores first: the page's initial call and inputs
Warm = Tuple[Call, Dict[str, Any]]
#: seconds a worker has to end on its own before it is terminated
STOP_SECONDS = 5.0
#: a request's first seconds of scoring, during which the longer-running requests are paused
PREEMPT_SECONDS = 2.0


class WorkersFailed(RuntimeError):
    """A worker ended before it took a request (it could not start: an app that launches
    outside ``if __name__ == "__main__":`` is run again by every spawned process)."""


def picklable(obj: Any) -> bool:
    """Whether ``obj`` (a scorer factory, a call) can be sent to a worker process."""
    try:
        pickle.dumps(obj)
    except Exception:  # noqa: BLE001 - any failure means "no"
        return False
    return True


def _portable(err: BaseException) -> BaseException:
    """``err`` if it survives pickling, else a ``RuntimeError`` with its text."""
    try:
        pickle.loads(pickle.dumps(err))
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(err).__name__}: {err}")
    return err


def _serve(conn: Any, build: Callable[[Call], Any], threads: int, progress: Any) -> None:
    """A worker's loop: ``("warm", call, inputs)`` builds the call's scorer and scores
    ``inputs`` (no reply); ``("score", call, inputs, limits)`` answers ``("start",)`` once its
    scorer is built, then ``("done", result, warnings)`` or ``("error", exception)``; ``None``
    or a closed pipe ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which ends its workers
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:  # pragma: no cover - torch is a core dependency
        pass

    def report(done: int, total: int) -> None:
        progress[0], progress[1] = done, total

    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        kind, call = message[0], message[1]
        try:
            scorer = build(call)
            if kind == "warm":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    scorer.score(message[2]["predictions"], message[2].get("references"), message[2].get("sources"),
                                 **call.extras)
                continue
            conn.send(("start",))
            inputs, limits = message[2], message[3]
            with warnings.catch_warnings(record=True) as records:
                warnings.simplefilter("always")
                result = limits.score(scorer, inputs, None, progress=report, extras=call.extras)
            conn.send(("done", result, captured(records)))
        except Exception as err:  # noqa: BLE001 - the request's failure goes back to the page
            if kind != "warm":
                conn.send(("error", _portable(err)))


class _Worker:
    """One process and the parent's end of its pipe; ``progress`` holds (segments done, total)."""

    def __init__(self, build: Callable[[Call], Any], threads: int, warm: Optional[Warm]) -> None:
        self.conn, child = _SPAWN.Pipe()
        self.progress = _SPAWN.Array("q", 2, lock=False)
        self.process = _SPAWN.Process(target=_serve, args=(child, build, threads, self.progress), daemon=True,
                                      name="nlgmetrics-space-worker")
        self.process.start()
        child.close()
        if warm is not None:
            self.conn.send(("warm",) + warm)

    def receive(self, timeout: Optional[float], started: bool = True) -> Optional[Tuple[Any, ...]]:
        """The worker's next reply; ``None`` after ``timeout`` seconds; ``RuntimeError`` when
        the process has ended (:class:`WorkersFailed` when no worker has ``started`` a request)."""
        ready = wait([self.conn, self.process.sentinel], timeout)
        if not ready:
            return None
        try:
            if self.conn in ready or self.conn.poll():
                reply: Tuple[Any, ...] = self.conn.recv()
                return reply
        except (EOFError, OSError):
            pass
        if not started:
            raise WorkersFailed(f"a scoring process ended before its first request (exit code "
                                f"{self.process.exitcode}); scoring in the server's process instead")
        raise RuntimeError("the scoring process ended unexpectedly (out of memory?); try fewer or shorter segments")

    def signal(self, number: int) -> None:
        """Send ``number`` (``SIGSTOP``/``SIGCONT``) to the process, if it is still there."""
        try:
            if self.process.pid is not None and self.process.is_alive():
                os.kill(self.process.pid, number)
        except (ProcessLookupError, PermissionError):
            pass

    def stop(self, wait_seconds: float = STOP_SECONDS) -> None:
        """End the process: asked first when ``wait_seconds``, then terminated, then killed."""
        if wait_seconds > 0:
            try:
                self.conn.send(None)
            except (OSError, ValueError):
                pass
            self.process.join(wait_seconds)
        self.signal(signal.SIGCONT)  # a paused process would not end on SIGTERM
        for end in (self.process.terminate, self.process.kill):
            if not self.process.is_alive():
                break
            end()
            self.process.join(STOP_SECONDS)
        self.conn.close()


class WorkerPool:
    """``size`` worker processes building scorers with ``build(call)``; see the module."""

    def __init__(self, build: Callable[[Call], Any], size: int) -> None:
        self.build = build
        self.size = max(1, size)
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not on Linux
            cores = os.cpu_count() or 1
        #: torch threads per worker: the cores shared out, so that busy workers do not oversubscribe
        self.threads = max(1, cores // self.size)
        self.warm: Optional[Warm] = None
        self.workers: List[_Worker] = []
        self.idle: "queue.Queue[_Worker]" = queue.Queue()
        self.lock = threading.Lock()
        #: busy workers: when their request started scoring; paused ones: by how many requests
        self.scoring: Dict[_Worker, float] = {}
        self.paused: Dict[_Worker, int] = {}
        #: whether a worker has started a request (if none has when one ends, they cannot start)
        self.started = False

    @property
    def running(self) -> bool:
        return bool(self.workers)

    def start(self, warm: Optional[Warm] = None) -> None:
        """Start the workers, each scoring ``warm`` (call, inputs) first."""
        with self.lock:
            if self.workers:
                return
            self.warm = warm
            for _ in range(self.size):
                self._add()
        atexit.register(self.close)

    def _add(self) -> None:
        worker = _Worker(self.build, self.threads, self.warm)
        self.workers.append(worker)
        self.idle.put(worker)

    def close(self) -> None:
        """End every worker (a busy one is terminated)."""
        with self.lock:
            workers, self.workers = self.workers, []
            self.idle = queue.Queue()
        for worker in workers:
            worker.stop()
        atexit.unregister(self.close)

    def _release(self, worker: _Worker, healthy: bool) -> None:
        """Back to the idle ones; a worker stopped mid-request (or unhealthy) is replaced."""
        if not healthy:
            worker.stop(wait_seconds=0)
        with self.lock:
            if worker not in self.workers:  # the pool was closed meanwhile
                return
            if healthy:
                self.idle.put(worker)
            else:
                self.workers.remove(worker)
                self._add()

    def _take(self) -> _Worker:
        """An idle worker, waiting for one while all are busy."""
        while True:
            try:
                return self.idle.get(timeout=1.0)
            except queue.Empty:
                if not self.running:
                    raise RuntimeError("the Space is shutting down; try again in a moment") from None

    def _receive_first(self, worker: _Worker, seconds: float) -> Optional[Tuple[Any, ...]]:
        """The reply within ``seconds`` of scoring, the requests running for longer than
        :data:`PREEMPT_SECONDS` paused during this one's first :data:`PREEMPT_SECONDS`."""
        start = time.monotonic()
        with self.lock:
            older = [w for w, t in self.scoring.items() if start - t >= PREEMPT_SECONDS]
            self.scoring[worker] = start
            for other in older:
                self.paused[other] = self.paused.get(other, 0) + 1
                if self.paused[other] == 1:
                    other.signal(signal.SIGSTOP)
        try:
            reply = worker.receive(min(PREEMPT_SECONDS, seconds))
        finally:
            with self.lock:
                for other in older:
                    self.paused[other] -= 1
                    if self.paused[other] == 0:
                        del self.paused[other]
                        other.signal(signal.SIGCONT)
        return reply if reply is not None else worker.receive(max(0.0, start + seconds - time.monotonic()))

    def score(self, call: Call, inputs: Dict[str, Any], limits: Limits) -> Tuple[MetricResult, List[Warning_]]:
        """The request (its resolved ``call`` and ``inputs``) scored by an idle worker within
        ``limits`` (the time counted from when its scorer is built); the result and the
        package's warnings, as :func:`.page.score_capturing` gives them."""
        limits.check(inputs)
        worker = self._take()
        healthy = False
        try:
            worker.progress[0], worker.progress[1] = 0, 0
            worker.conn.send(("score", call, inputs, dataclasses.replace(limits, serialize=False)))
            reply = worker.receive(None, self.started)
            if reply is not None and reply[0] == "start":
                self.started = True
                reply = self._receive_first(worker, limits.seconds)
            if reply is None:
                total = worker.progress[1] or len(inputs["predictions"])
                raise TimeoutError(timeout_message(limits.seconds, worker.progress[0], total))
            healthy = True
        finally:
            with self.lock:
                self.scoring.pop(worker, None)
            self._release(worker, healthy)
        if reply[0] == "error":
            raise reply[1]
        return reply[1], list(reply[2])


def serve_in_processes(demo: Any, pool: WorkerPool, warm: Callable[[], Optional[Warm]]) -> Any:
    """``demo`` whose ``launch`` starts ``pool`` (warmed with ``warm()``) and whose ``close``
    ends it: handlers called without a server (tests) score in the server's process."""
    launch, close = demo.launch, demo.close

    def launched(*args: Any, **kwargs: Any) -> Any:
        pool.start(warm())
        try:
            return launch(*args, **kwargs)
        except BaseException:
            pool.close()
            raise

    def closed(*args: Any, **kwargs: Any) -> Any:
        try:
            return close(*args, **kwargs)
        finally:
            pool.close()

    demo.launch, demo.close = launched, closed
    return demo

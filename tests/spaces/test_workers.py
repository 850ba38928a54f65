"""Scoring in worker processes (space/workers.py): a worker's result and warnings are those of
scoring in the server's process, its errors come back as they are, a request past its time
limit ends its worker (which is replaced) with the limits' message, a newer request pauses the
longer-running ones during its first seconds, a worker that cannot start is reported as such,
and the pool starts with the Space's launch and ends with its close."""
from __future__ import annotations

import os
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("gradio")

from nlgmetrics.core.call import resolve  # noqa: E402
from nlgmetrics.space.limits import Limits  # noqa: E402
from nlgmetrics.space.workers import (  # noqa: E402
    PREEMPT_SECONDS,
    WorkerPool,
    WorkersFailed,
    picklable,
    serve_in_processes,
)
from tests.toy_scorers import ToyChrf  # noqa: E402

WARNING = "toy: 1 segment(s) over the per-segment budget were cut to it"


class SlowToy(ToyChrf):
    """The toy chrF that warns like the core and sleeps on a prediction "slow" (60 s) or "nap"
    (1 s)."""

    def score_segments(self, inputs):
        if "slow" in inputs.predictions:
            time.sleep(60)
        if "nap" in inputs.predictions:
            time.sleep(1)
        warnings.warn_explicit(WARNING, UserWarning, "/x/nlgmetrics/core/budget.py", 1)
        return super().score_segments(inputs)


def make_toy(call):
    return SlowToy(call.config, quiet=True)


def exit_at_once(call):
    os._exit(3)


def _call(**options):
    return resolve(ToyChrf, options)


def _inputs(preds, refs):
    return {"predictions": preds, "references": refs, "sources": None}


@pytest.fixture(scope="module")
def pool():
    pool = WorkerPool(make_toy, 1)
    pool.start((_call(scale=2.0), _inputs(["a b"], ["a c"])))
    yield pool
    pool.close()


def test_a_worker_scores_as_the_server_would_and_returns_the_warnings(pool):
    preds, refs = ["the cat sat", "a dog", "the mat"], ["the cat", "a dog ran", "mat"]
    result, issued = pool.score(_call(scale=2.0), _inputs(preds, refs), Limits())
    here = make_toy(_call(scale=2.0)).score(preds, refs)
    assert result.scores == here.scores and result.score == here.score and result.details == here.details
    assert result.signature == here.signature
    assert issued == [("truncation", WARNING)]
    assert picklable(make_toy) and not picklable(lambda **options: None)


def test_a_workers_errors_come_back_as_they_are(pool):
    with pytest.raises(ValueError, match="offsets has 1 items but predictions has 2"):  # the scorer's, there
        pool.score(resolve(ToyChrf, {"offsets": [0.5]}), _inputs(["a", "b"], ["b", "c"]), Limits())
    with pytest.raises(ValueError, match="3 segments: this Space scores at most 2"):
        pool.score(_call(), _inputs(["a"] * 3, ["b"] * 3), Limits(segments=2))  # refused before it is sent
    result, _ = pool.score(resolve(ToyChrf, {"offsets": [0.25]}), _inputs(["a"], ["a"]), Limits())
    assert result.scores == make_toy(_call()).score(["a"], ["a"], offsets=[0.25]).scores  # the call's extras
    result, _ = pool.score(_call(), _inputs(["a"], ["a"]), Limits())  # the worker still serves
    assert result.scores == [1.0]


def test_a_request_past_its_time_ends_its_worker_which_is_replaced(pool):
    first = pool.workers[0]
    start = time.monotonic()
    with pytest.raises(TimeoutError, match=r"took more than 1 s and was stopped after 1 of 3 segments; score fewer"):
        pool.score(_call(), _inputs(["a", "slow", "b"], ["a", "b", "c"]), Limits(seconds=1))
    assert time.monotonic() - start < 30  # not the 60 s the segment sleeps: its process was ended
    assert not first.process.is_alive() and pool.workers and pool.workers[0] is not first
    result, _ = pool.score(_call(), _inputs(["a"], ["a"]), Limits())
    assert result.scores == [1.0]


def _state(process):
    """The process's state letter in /proc (T: stopped)."""
    return Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states in /proc")
def test_a_newer_request_pauses_a_longer_running_one_during_its_first_seconds():
    pool = WorkerPool(make_toy, 2)
    pool.start()
    try:
        both = [threading.Thread(target=pool.score, args=(_call(), _inputs(["nap"], ["a"]), Limits())) for _ in range(2)]
        for thread in both:  # each worker up and serving (each takes one: the other is busy)
            thread.start()
        for thread in both:
            thread.join()
        errors = []

        def heavy():
            try:
                pool.score(_call(), _inputs(["slow"], ["a"]), Limits(seconds=PREEMPT_SECONDS + 3))
            except TimeoutError as err:
                errors.append(err)

        thread = threading.Thread(target=heavy)
        thread.start()
        time.sleep(PREEMPT_SECONDS + 0.5)
        slow = next(w for w in pool.scoring)  # the one scoring now
        assert _state(slow.process) != "T"
        newer = threading.Thread(target=pool.score, args=(_call(), _inputs(["nap"], ["a"]), Limits()))
        newer.start()
        time.sleep(0.5)
        assert _state(slow.process) == "T"  # paused while the newer request scores its first seconds
        newer.join()
        assert _state(slow.process) != "T" and slow.process.is_alive()  # then it continues
        thread.join()
        assert errors and "stopped after 0 of 1 segments" in str(errors[0])  # its time limit still holds
    finally:
        pool.close()


def test_a_worker_that_cannot_start_says_so():
    pool = WorkerPool(exit_at_once, 1)
    pool.start()
    try:
        with pytest.raises(WorkersFailed, match="ended before its first request"):
            pool.score(_call(), _inputs(["a"], ["a"]), Limits())
    finally:
        pool.close()


class FakeDemo:
    def __init__(self):
        self.calls = []

    def launch(self, **kwargs):
        self.calls.append(("launch", kwargs))

    def close(self):
        self.calls.append(("close", {}))


def test_the_workers_start_with_the_launch_and_end_with_the_close():
    pool = WorkerPool(make_toy, 2)
    demo = serve_in_processes(FakeDemo(), pool, lambda: None)
    assert not pool.running
    demo.launch(server_name="127.0.0.1")
    processes = [w.process for w in pool.workers]
    assert pool.running and len(processes) == 2 and all(p.is_alive() for p in processes)
    demo.close()
    assert demo.calls == [("launch", {"server_name": "127.0.0.1"}), ("close", {})]
    assert not pool.running and not any(p.is_alive() for p in processes)


def toy_here_only(config):
    """The toy scorer in the test's process; a worker process ends at once."""
    import multiprocessing

    import nlgmetrics

    if multiprocessing.parent_process() is not None:
        os._exit(3)
    return nlgmetrics.load("toy", config, quiet=True)


def test_a_page_whose_workers_cannot_start_scores_in_its_own_process(monkeypatch):
    import nlgmetrics
    from nlgmetrics import space as ui
    from tests.spaces.test_space_parts import _handler, _page, _toy_spec

    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))
    demo = ui.build_space(_toy_spec(), scorer_factory=toy_here_only, preload=False)
    page = _page(demo)
    assert page.workers is not None and not page.workers.running  # started by the launch only
    page.workers.start()
    try:
        message, score, *_ = _handler(demo, "score_page")("the cat sat", "the cat", "", 1.0)
        expected = make_toy(_call(scale=1.0)).score(["the cat sat"], ["the cat"])
        assert f'data-value="{expected.score!r}"' in score and "nlgm-error" not in message
        assert not page.workers.running  # closed: the page scores here from now on
    finally:
        page.workers.close()

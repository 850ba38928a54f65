"""mt-metrics-eval score files through the one writer: no name given to the Python writer leads
out of ``root``, and concurrent writers of one score file (processes, each its own system)
lose no system."""
from __future__ import annotations

import multiprocessing
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nlgmetrics.meta import mtme
from tests.core.test_writer import HOSTILE_NAMES, changed, snapshot

#: the Python keywords each name's error must start with (or the root's: a file there)
SPELLINGS = ("lp=", "metric=", "ref=", "system=", "metric= with ref=")


def test_no_name_given_to_the_writer_leads_out_of_root():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, "a", "b", "c", "d", "e", "f", "OUT")  # deep enough that '../' * 8 stays in tmp
        root.mkdir(parents=True)

        @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
        @given(lp=st.one_of(st.just("de-en"), HOSTILE_NAMES), system=st.one_of(st.just("sysA"), HOSTILE_NAMES),
               metric=st.one_of(st.just("M"), HOSTILE_NAMES),
               ref=st.one_of(st.just("refA"), HOSTILE_NAMES, st.just(os.path.join(tmp, "victim"))))
        def run(lp, system, metric, ref):
            before = snapshot(tmp)
            try:
                paths = mtme.write_metric_scores(str(root), lp, metric, ref, {system: [0.5, 2.0]}, {system: 1.25})
            except ValueError as err:  # a clear error, naming the keyword, and nothing written
                assert str(err).startswith(SPELLINGS), err
                assert changed(before, snapshot(tmp)) == set()
                return
            made = changed(before, snapshot(tmp))
            assert made and all(Path(p).is_relative_to(root) for p in made), sorted(made)
            assert paths == [str(root / "metric-scores" / lp / f"{metric}-{ref}.{level}.score") for level in ("seg", "sys")]
            assert mtme.read_score_file(paths[0], human=False)[system] == [0.5, 2.0]

        run()


WRITERS = 6
FILES = 6  # every writer writes its system into each of these, all at once


def _write_one_system(root: str, k: int, barrier) -> None:
    barrier.wait()
    for f in range(FILES):
        system = f"sys{k}"
        mtme.write_metric_scores(root, "de-en", f"M{f}", "refA", {system: _seg(k, f)}, {system: _sys(k, f)})


def _seg(k: int, f: int) -> list:
    return [k + f / 7, -1 / (k + 3), 1e-17 * (f + 1)]  # floats with long repr: exact round trip


def _sys(k: int, f: int) -> float:
    return k / 3 - f


def test_concurrent_writers_of_one_score_file_lose_no_system(tmp_path):
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(WRITERS)
    procs = [ctx.Process(target=_write_one_system, args=(str(tmp_path), k, barrier)) for k in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * WRITERS
    folder = tmp_path / "metric-scores" / "de-en"
    for f in range(FILES):
        seg = mtme.read_score_file(str(folder / f"M{f}-refA.seg.score"), human=False)
        sys_ = mtme.read_score_file(str(folder / f"M{f}-refA.sys.score"), "sys", human=False)
        assert seg == {f"sys{k}": _seg(k, f) for k in range(WRITERS)}
        assert sys_ == {f"sys{k}": [_sys(k, f)] for k in range(WRITERS)}
    # the score files and one lock file per pair; no temporary file is left
    assert sorted(os.listdir(folder)) == sorted([f".M{f}-refA.score.lock" for f in range(FILES)]
                                                + [f"M{f}-refA.{lv}.score" for f in range(FILES) for lv in ("seg", "sys")])

"""mt-metrics-eval's EvalSet layout (nlgmetrics.meta.mtme): a small EvalSet of our own built from
the WMT21 to-English rows in ../shared/data, read back; score files written and read back; the
format's errors named by file and line."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from nlgmetrics.core import files
from nlgmetrics.meta import mtme
from tests.conftest import SHARED
from tests.wmt21_evalset import FILE, SYSTEMS, read_rows, write_evalset

DATA = SHARED / "data" / FILE


def wmt21_rows(lp: str = "de-en", n: int = 12):
    """The first ``n`` segments of ``lp`` that every system in SYSTEMS has (skips without the data)."""
    if not DATA.exists():
        pytest.skip("../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz is not here")
    return read_rows(DATA, lp, n)


def build_evalset(root: Path, rows, lp: str = "de-en", missing=(), with_docs: bool = True) -> Path:
    """Write rows in mt-metrics-eval's exact layout under ``root`` (a test-set folder), in two
    documents; ``missing``: (system, segment) pairs whose human score is None."""
    half = len(rows) // 2
    documents = [f"news doc{1 if k < half else 2}" for k in range(len(rows))] if with_docs else None
    return write_evalset(root, rows, lp, missing=missing, documents=documents)


def test_an_evalset_reads_back_as_written(tmp_path):
    rows = wmt21_rows()
    root = build_evalset(tmp_path / "wmt21", rows, missing={("Online-A", 3)})
    es = mtme.read_evalset(str(root), "de-en")
    assert es.sources == [r["src"] for r in rows] and list(es.references) == ["refA"]
    assert sorted(es.outputs) == sorted(SYSTEMS + ("refA",))
    assert es.outputs["Online-B"] == [r["hyps"]["Online-B"]["hyp"] for r in rows]
    assert es.documents[0] == ("news", "doc1") and es.documents[-1] == ("news", "doc2")
    human = es.human_scores("wmt-z", "seg")
    assert human["Online-A"][3] is None and human["Online-A"][2] == rows[2]["hyps"]["Online-A"]["human"]
    got = mtme.evalset_rows(es)  # the only reference and the only human name are the defaults
    assert got.ref == "refA" and "refA" not in got.systems and len(got.systems) == len(SYSTEMS) * len(rows)
    assert got.items[:len(rows)] == ["doc1"] * 6 + ["doc2"] * 6
    assert mtme.evalset_rows(es, items="segment").items[:3] == ["0", "1", "2"]


def test_score_files_round_trip_and_bad_lines_are_named(tmp_path):
    seg = {"sysA": [0.5, 1e-17, -3.25], "sysB": [2.0, 0.1 + 0.2, 7.0]}
    paths = mtme.write_metric_scores(str(tmp_path), "de-en", "SAM", "refA", seg, {"sysA": 0.25, "sysB": 3.0})
    assert paths == [str(tmp_path / "metric-scores/de-en/SAM-refA.seg.score"),
                     str(tmp_path / "metric-scores/de-en/SAM-refA.sys.score")]
    assert mtme.read_score_file(paths[0], human=False) == seg  # exact: repr of each float
    assert mtme.read_score_file(paths[1], "sys", human=False) == {"sysA": [0.25], "sysB": [3.0]}
    assert Path(paths[0]).read_text().splitlines()[0] == "sysA\t0.5"
    mtme.write_metric_scores(str(tmp_path), "de-en", "SAM", "refA", {"sysC": [1.0, 2.0, 3.0]}, {"sysC": 2.0})
    assert list(mtme.read_score_file(paths[0], human=False)) == ["sysA", "sysB", "sysC"]  # others kept
    bad = tmp_path / "x.seg.score"
    for text, message in (("sysA 1 2\n", "line 1: expected SYSNAME SCORE"), ("sysA abc\n", "line 1: score 'abc' is not"),
                          ("sysA 1\nsysA nan\n", "line 2: score 'nan' is not a finite number")):
        bad.write_text(text)
        with pytest.raises(files.InputFileError, match=message):
            mtme.read_score_file(str(bad))
    bad.write_text("sysA None\n")
    assert mtme.read_score_file(str(bad)) == {"sysA": [None]}
    with pytest.raises(files.InputFileError, match="line 1: None in a metric score file"):
        mtme.read_score_file(str(bad), human=False)
    with pytest.raises(ValueError, match="without '-'"):
        mtme.metric_score_paths(str(tmp_path), "de-en", "my-metric", "refA")


def test_evalset_errors_name_the_file(tmp_path):
    rows = wmt21_rows(n=4)
    root = build_evalset(tmp_path / "t", rows)
    with pytest.raises(files.InputFileError, match="not a folder"):
        mtme.read_evalset(str(root / "sources" / "de-en.txt"), "de-en")
    with pytest.raises(ValueError, match="--lp must be a language pair"):
        mtme.read_evalset(str(root), "../x")
    (root / "system-outputs/de-en/Online-A.txt").write_text("one line\n")
    with pytest.raises(files.InputFileError, match=r"Online-A.txt: 1 lines, but the source has 4"):
        mtme.read_evalset(str(root), "de-en")
    build_evalset(root, rows)
    (root / "documents/de-en.docs").write_text("news a\nnews b\nnews a\nnews c\n")
    with pytest.raises(files.InputFileError, match="line 3: document 'a' is not contiguous"):
        mtme.read_evalset(str(root), "de-en")
    build_evalset(root, rows)
    es = mtme.read_evalset(str(root), "de-en")
    with pytest.raises(ValueError, match=r"no human-scores/de-en.mqm.seg.score \(human segment scores: wmt-z\)"):
        mtme.evalset_rows(es, human="mqm")
    with pytest.raises(ValueError, match=r"no references/de-en.refB.txt"):
        mtme.evalset_rows(es, ref="refB")
    assert os.path.exists(root / "sources" / "de-en.txt")

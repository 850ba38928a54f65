"""Records files are data: ``nlgmetrics reduce`` on crafted files (issue 17) never creates a
path or loads a model a file names, never quotes another file's lines, never allocates what a
header promises, never merges ids outside the corpus or the shard; every error is one line
naming the file and the line."""
import gzip
import json
import math
import tracemalloc
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.core import files
from nlgmetrics.integrations import distributed

HERE = Path(__file__).resolve().parents[1]  # tests/, where dist_worker.py is
HYPS = ["the cat sat on the mat", "a dog barked loudly", "it rains", "stock markets fell today", "hello world"]
REFS = ["a cat sat on the mat", "the dog barked", "it is raining", "markets dropped today", "hello there world"]


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))
    monkeypatch.syspath_prepend(str(HERE))
    return nlgmetrics.scorer_class("toy")


def _shards(tmp_path, n_shards=2, **options):
    scorer = nlgmetrics.load("toy", **options)
    fingerprint = distributed.corpus_fingerprint(scorer, HYPS, REFS)
    paths = []
    for k in range(1, n_shards + 1):
        records = distributed.score_shard(scorer, HYPS, REFS, shard=(k, n_shards))
        paths.append(str(distributed.write_records(str(tmp_path / f"part{k}.jsonl"), "toy", options, scorer, records,
                                                   n_segments=len(HYPS), shard=(k, n_shards),
                                                   fingerprint=fingerprint)))
    return paths


def _lines(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def _save(path, rows):
    Path(path).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _reduce_error(capsys, argv, match):
    with pytest.raises(SystemExit) as info:
        cli.main(["reduce", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert match in lines[0], lines[0]
    return lines[0]


def test_good_shards_reduce_to_the_single_run(toy, tmp_path, capsys):
    paths = _shards(tmp_path, 2, scale=2.0, lowercase=True)
    assert cli.main(["reduce", *paths, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    single = nlgmetrics.load("toy", scale=2.0, lowercase=True).score(HYPS, REFS)
    assert got["scores"] == single.scores and got["signature"] == single.signature


def test_a_path_in_the_file_is_not_created(toy, tmp_path, capsys):
    """DATScore's cache_dir finding: the file's options may not name a path."""
    paths = _shards(tmp_path, 1)
    target = tmp_path / "created" / "by" / "the" / "file"
    rows = _lines(paths[0])
    rows[0]["options"] = {"cache_dir": str(target)}
    crafted = _save(tmp_path / "crafted.jsonl", rows)
    before = toy.setups
    _reduce_error(capsys, [crafted], "crafted.jsonl, line 1: option(s) cache_dir may name a path")
    assert not target.exists() and not (tmp_path / "created").exists()
    assert toy.setups == before  # no scorer was built
    # the user may choose the path on the command line; then the file must agree with it
    _reduce_error(capsys, [crafted, "--metric", "toy"], "other options (cache_dir differ)")
    assert not (tmp_path / "created").exists()


def test_errors_quote_nothing_of_the_file(toy, tmp_path, capsys):
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:SECRET-LINE:/root:/bin/bash\nuser:x:1000\n")
    line = _reduce_error(capsys, [str(secret)], "passwd, line 1: not valid JSON")
    assert "SECRET" not in line and "bash" not in line.split("passwd")[-1]
    header_like = _save(tmp_path / "h.jsonl", [{"nlgmetrics_records": distributed.FORMAT, "metric": "SECRET-METRIC", "options": {},
                                                "signature": "s", "n_segments": 1, "shard": "1/1"}])
    line = _reduce_error(capsys, [header_like], "h.jsonl, line 1: unknown metric")
    assert "SECRET" not in line
    _reduce_error(capsys, [str(tmp_path / "missing.jsonl")], "missing.jsonl: no such file")
    _reduce_error(capsys, [str(tmp_path)], "is a directory")


@pytest.mark.parametrize("n", [10**7, 10**9, 0, -1, True, 2.5, "5"])
def test_a_huge_or_bad_segment_count_is_refused_without_allocating(toy, tmp_path, capsys, n):
    paths = _shards(tmp_path, 1)
    rows = _lines(paths[0])
    rows[0]["n_segments"] = n
    crafted = _save(tmp_path / "big.jsonl", rows)
    msg = "should hold 10000000 records, it holds 5" if n == 10**7 else "n_segments must be an integer from 1"
    # Python allocations during the call only (ru_maxrss was the process's lifetime peak, so the
    # check depended on what ran before): a list of 10**7 slots alone would be 80 MB
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        _reduce_error(capsys, [crafted], msg)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak  # bytes (about 0.1 MB measured): nothing the size of n


@pytest.mark.parametrize("edit, match", [
    (lambda rows: rows[2].update(id=5), "line 3: segment id 5 is outside 0..4"),
    (lambda rows: rows[2].update(id=-1), "line 3: segment id -1 is outside 0..4"),
    (lambda rows: rows[2].update(id=1.0), "line 3: a record needs an integer id"),
    (lambda rows: rows[2].update(id=True), "line 3: a record needs an integer id"),
    (lambda rows: rows[2].update(id="1"), "line 3: a record needs an integer id"),
    (lambda rows: rows[2].pop("id"), "line 3: a record needs an integer id"),
    (lambda rows: rows[2].update(id=1), "line 3: segment id 1 does not belong to shard 1/2"),
    (lambda rows: rows.append(dict(rows[1], raw=1.0)), "line 5: segment 0 has conflicting records"),
    (lambda rows: rows.append({"id": 6}), "line 5: segment id 6 is outside"),
    (lambda rows: rows.pop(), "shard 1/2 of 5 segments should hold 3 records, it holds 2"),
    (lambda rows: rows[0].update(shard="3/2"), "line 1: shard '3/2': need 1 <= K <= N"),
    (lambda rows: rows[0].update(nlgmetrics_records=3), "line 1: not an nlgmetrics records file"),
    (lambda rows: rows[0].pop("inputs"), "line 1: the header's inputs must be a corpus fingerprint"),
    (lambda rows: rows[0].update(inputs="sha256:" + "0" * 63), "line 1: the header's inputs must be a corpus"),
    (lambda rows: rows[0].update(inputs="sha256:" + "0" * 64), "line 1: was scored from other inputs than"),
    (lambda rows: rows[0].update(options=[1]), "line 1: the header's options must be a JSON object"),
    (lambda rows: rows[0]["options"].update(scale=float("nan")), "line 1: NaN is not allowed"),
    (lambda rows: rows[1].update(raw=float("inf")), "line 2: Infinity is not allowed"),
    (lambda rows: rows[0]["options"].update(scale=-3), "line 1: scale must be >= 0"),
    (lambda rows: rows[0]["options"].update(no_such=1), "line 1: unknown option 'no_such'"),
    (lambda rows: rows.insert(1, [1, 2]), "line 2: a record must be a JSON object"),
])
def test_crafted_records_are_refused_naming_file_and_line(toy, tmp_path, capsys, edit, match):
    paths = _shards(tmp_path, 2)
    rows = _lines(paths[0])
    edit(rows)
    crafted = tmp_path / "part1.jsonl"
    crafted.write_text("".join(json.dumps(r) + "\n" for r in rows))
    line = _reduce_error(capsys, [str(crafted), paths[1]], match)
    assert "part1.jsonl" in line or "reduction" in line


def test_records_that_do_not_fit_the_reduction(toy, tmp_path, capsys):
    paths = _shards(tmp_path, 1)
    rows = _lines(paths[0])
    for r in rows[1:]:
        r.pop("raw")
    crafted = _save(tmp_path / "noraw.jsonl", rows)
    _reduce_error(capsys, [crafted], "do not fit toy's reduction (KeyError")


def test_other_runs_missing_shards_and_metric_mismatch(toy, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy2", ("toy_scorers", "ToyChrf"))
    a = _shards(tmp_path / "a", 2, scale=1.0)
    b = _shards(tmp_path / "b", 2, scale=3.0)
    _reduce_error(capsys, [a[0], b[1]], "comes from a different run than")
    line = _reduce_error(capsys, [a[0], b[1]], "options scale")
    assert "signature" in line
    _reduce_error(capsys, [a[0]], "2 segment(s) have no record (first: 1); a shard is missing")
    _reduce_error(capsys, [*a, "--metric", "toy2"], "the records are of metric 'toy', not 'toy2'")
    _reduce_error(capsys, [*a, "--metric", "toy", "-o", "scale=2"], "scored with other options (scale differ)")
    _reduce_error(capsys, [*a, "-o", "scale=1"], "-o needs --metric")
    _reduce_error(capsys, [*a, "--metric", "toy", "-o", "scale=x"], "scale must be a number")


def test_damaged_gzip_and_overlong_lines(toy, tmp_path, capsys):
    paths = _shards(tmp_path, 1)
    gz = tmp_path / "part.jsonl.gz"
    gz.write_bytes(gzip.compress(Path(paths[0]).read_bytes())[:-12])
    _reduce_error(capsys, [str(gz)], "part.jsonl.gz: not a valid gzip file")
    with files.limits(files.MAX_FILE_BYTES, 64):  # the one reader's limits (records_reader has none of its own)
        _reduce_error(capsys, [paths[0]], "part1.jsonl, line 1: longer than 64 bytes")


NONFINITE = {"id": 1, "raw": float("nan"), "hi": float("inf"), "lo": -float("inf"), "zero": -0.0, "big": 1e308,
             "nested": {"r2": [float("nan"), 0.5, {"x": float("-inf")}]}, "text": "NaN", "key": {"$floaty": 1}}


def _identical(a, b):
    """Equal values, NaN equal to NaN, -0.0 not equal to 0.0, float not equal to int."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_identical(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_identical, a, b))
    return type(a) is type(b) and a == b


def test_non_finite_numbers_round_trip_exactly(toy, tmp_path):
    """A metric's records may hold NaN and infinities as documented values (TextEval's r2 of a
    set of two texts); writing refused them, so --shard/--records failed where scoring worked."""
    scorer = nlgmetrics.load("toy")
    fingerprint = "sha256:" + "0" * 64
    np = pytest.importorskip("numpy")
    numpy_record = {"id": 0, "v": np.float32("nan"), "a": np.array([np.inf, 1.5]), "n": np.int64(2)}
    path = distributed.write_records(str(tmp_path / "x.jsonl"), "toy", {}, scorer, [NONFINITE, numpy_record],
                                     n_segments=2, shard=(1, 1), fingerprint=fingerprint)
    text = path.read_text()
    assert "NaN" not in text.replace('"NaN"', "") and "Infinity" not in text  # JSON, not Python's extension
    _, records = distributed.read_records([str(path), str(path)])  # a shard given twice: NaN equals NaN
    assert _identical(records[1], NONFINITE)
    assert _identical(records[0], {"id": 0, "v": float("nan"), "a": [float("inf"), 1.5], "n": 2})
    # the common, finite line is plain JSON, unchanged
    assert distributed.record_line({"id": 0, "x": 0.5, "y": [1, 2]}) == '{"id":0,"x":0.5,"y":[1,2]}'


def test_non_finite_numbers_only_where_the_metric_declares_them(toy, tmp_path):
    """A crafted file could put inf into any metric's reduction once non-finite numbers were
    read back; only the fields a metric declares (TextEval's r2) may hold them."""
    scorer = nlgmetrics.load("toy")
    path = distributed.write_records(str(tmp_path / "x.jsonl"), "toy", {}, scorer,
                                     [{"id": 0, "score": float("inf"), "raw": 1.0}], n_segments=1, shard=(1, 1),
                                     fingerprint="sha256:" + "0" * 64)
    with pytest.raises(ValueError, match=r"x.jsonl, line 2: field 'score' holds a non-finite number, which this "
                                         r"metric's records never do"):
        distributed.read_records([str(path)])
    assert nlgmetrics.scorer_class("texteval").nonfinite_fields == frozenset({"r2"})
    assert nlgmetrics.scorer_class("sam").nonfinite_fields == frozenset()


def test_a_record_holding_the_reserved_key_is_refused(toy, tmp_path):
    scorer = nlgmetrics.load("toy")
    with pytest.raises(ValueError, match="segment 3 holds the key '\\$float', which a records file reserves"):
        distributed.write_records(str(tmp_path / "x.jsonl"), "toy", {}, scorer,
                                  [{"id": 3, "raw": 1.0, "x": [{"$float": "nan"}]}],
                                  n_segments=4, shard=(4, 4), fingerprint="sha256:" + "0" * 64)
    assert not (tmp_path / "x.jsonl").exists() and list(tmp_path.iterdir()) == []  # no temporary left behind


@pytest.mark.parametrize("value", [{"$float": "NaN"}, {"$float": "nan", "x": 1}, {"$float": 1.0}, {"$float": None},
                                   {"$float": ["nan"]}, {"$float": {"$float": "nan"}}])
def test_a_malformed_non_finite_number_is_refused(toy, tmp_path, capsys, value):
    paths = _shards(tmp_path, 1)
    rows = _lines(paths[0])
    rows[2]["raw"] = value
    crafted = _save(tmp_path / "bad.jsonl", rows)
    _reduce_error(capsys, [crafted], 'bad.jsonl, line 3: an object with the key "$float" must be exactly')


# -- issue 37: every record field checked per metric; a stored score never disagrees ------------
SAM_HYPS = ["the cat sat on the mat", "it is good"]
SAM_REFS = ["a cat sat on the mat", "it is bad"]


@pytest.fixture(scope="module")
def sam_records(tmp_path_factory):
    """A real SAM records file written by `nlgmetrics score --records` (line 3: 'good' vs 'bad')."""
    folder = tmp_path_factory.mktemp("sam-records")
    (folder / "p.txt").write_text("\n".join(SAM_HYPS) + "\n")
    (folder / "r.txt").write_text("\n".join(SAM_REFS) + "\n")
    out = folder / "sam.jsonl"
    assert cli.main(["score", "sam", "-p", str(folder / "p.txt"), "-r", str(folder / "r.txt"), "--base", "chrf",
                     "--shard", "1/1", "--records", str(out), "-q"]) == 0
    return out


def _forged(path, tmp_path, field, value, line=3):
    rows = _lines(path)
    rows[line - 1][field] = value
    return _save(tmp_path / "forged.jsonl", rows)


def test_sam_records_reduce_to_the_scores(sam_records, capsys):
    assert cli.main(["reduce", str(sam_records), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    single = nlgmetrics.load("sam", base="chrf", quiet=True).score(SAM_HYPS, SAM_REFS)
    assert got["scores"] == single.scores and got["scores"][1] < 50  # 'good' vs 'bad' adjusted


@pytest.mark.parametrize("field, value, match", [
    ("score", "13.5", "field 'score' must be a number from 0 to 100, got a string"),
    ("score", True, "field 'score' must be a number from 0 to 100, got true"),
    ("score", 1e300, "field 'score' must be a number from 0 to 100, got 1e+300"),
    ("score", -5, "field 'score' must be a number from 0 to 100, got -5"),
    ("p", 5, "field 'p' must be a number from 0 to 1, got 5"),
    ("p", -1, "field 'p' must be a number from 0 to 1, got -1"),
    ("base", [30.0], "field 'base' must be a number from 0 to 100, got a list"),
    ("score", 99.0, "field 'score' disagrees with the record's other fields (stored 99.0, recomputed 13.5"),
    ("p", 0.1, "field 'p' disagrees with the record's other fields (stored 0.1, recomputed 0.55)"),
    ("surprise", 1, "field 'surprise' is not a field of this metric's records"),
])
def test_reduce_checks_each_sam_record_field(sam_records, tmp_path, capsys, field, value, match):
    """issue 37: a string, bool, huge or negative score, p outside [0, 1] and a forged score
    were reduced (a forged score printed as the segment's); now exit 2, one line naming the
    file, the line and the field."""
    forged = _forged(sam_records, tmp_path, field, value)
    line = _reduce_error(capsys, [forged], "forged.jsonl, line 3: " + match)
    assert "Traceback" not in line


def test_a_number_beyond_the_float_range_is_refused(sam_records, tmp_path, capsys):
    rows = Path(sam_records).read_text().splitlines()
    rows[2] = rows[2].replace('"score":', '"score":1e400,"was":', 1)
    path = tmp_path / "overflow.jsonl"
    path.write_text("\n".join(rows) + "\n")
    _reduce_error(capsys, [str(path)], "overflow.jsonl, line 3: the number '1e400' is beyond the float range "
                                       "(every number must be finite)")
    rows[2] = rows[2].replace('"score":1e400', '"score":' + "9" * 5000, 1)
    path.write_text("\n".join(rows) + "\n")
    _reduce_error(capsys, [str(path)], "overflow.jsonl, line 3: the number '999999999999999999999999...' is beyond "
                                       "the float range")


@pytest.fixture(scope="module")
def texteval_records(tmp_path_factory):
    """TextEval records with counts (corpus='document', the default), written as --records does."""
    scorer = nlgmetrics.load("texteval", features="words", quiet=True)
    records = scorer.segment_records(scorer.validate(SAM_HYPS, SAM_REFS))
    path = tmp_path_factory.mktemp("texteval-records") / "te.jsonl"
    distributed.write_records(str(path), "texteval", {"features": "words"}, scorer, records, n_segments=2,
                              shard=(1, 1), fingerprint=distributed.corpus_fingerprint(scorer, SAM_HYPS, SAM_REFS))
    return path


@pytest.mark.parametrize("edit, match", [
    (lambda r: r["counts"].update(the=[1, 2]), "field 'counts': 'the' must be a count (an integer from 0 to 2**53), "
                                               "got a list"),
    (lambda r: r["counts"].update(the=-3), "field 'counts': 'the' must be a count"),
    (lambda r: r["counts"].update(the=1.5), "field 'counts': 'the' must be a count"),
    (lambda r: r["reference_counts"][0].update(a=-2), "field 'reference_counts', item 0: 'a' must be a count"),
    (lambda r: r.update(tokens=-1), "field 'tokens' must be an integer from 0"),
    (lambda r: r.update(score=5.0), "field 'score' disagrees with the record's other fields (stored 5.0"),
    (lambda r: r["counts"].update(the=3), "field 'score' disagrees with the record's other fields"),
])
def test_reduce_checks_texteval_counts(texteval_records, tmp_path, capsys, edit, match):
    """issue 37: list, negative and fractional counts were reduced; an edited count silently
    moved the document score."""
    assert cli.main(["reduce", str(texteval_records)]) == 0
    capsys.readouterr()
    rows = _lines(texteval_records)
    edit(rows[1])
    forged = _save(tmp_path / "te-forged.jsonl", rows)
    _reduce_error(capsys, [forged], "te-forged.jsonl, line 2: " + match)

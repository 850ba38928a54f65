"""The one reader of structured input (issue 44): every file and inline value that carries
structure (option files, ``-o``/``--name`` JSON values, records files, JSON-lines inputs,
meta-evaluation rows, score files) is read within one set of limits, and every problem is one
error line naming the option or the file and line, never a RecursionError or a foreign
exception."""
import json
import math
import os
import time
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.core import files, option_files, structured
from nlgmetrics.core.structured import MAX_DEPTH, StructuredInputError, parse_json
from nlgmetrics.integrations import distributed, records_reader
from nlgmetrics.meta import mtme

HERE = Path(__file__).resolve().parents[1]  # tests/, where toy_scorers.py is
HYPS = ["the cat sat on the mat", "a dog barked loudly", "it rains"]
REFS = ["a cat sat on the mat", "the dog barked", "it is raining"]
DEEP = "[" * 50_000 + "]" * 50_000  # was a RecursionError in every reader
TOO_DEEP = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
DEEPEST = "[" * MAX_DEPTH + "]" * MAX_DEPTH


def _cli_error(capsys, argv):
    """The one ``error:`` line of a command that must fail with the input-error exit code."""
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2, err  # CLIError's code for usage and input errors (cli/common.py)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def texts(tmp_path):
    (tmp_path / "h.txt").write_text("a cat\n")
    (tmp_path / "r.txt").write_text("the cat\n")
    return ["-p", str(tmp_path / "h.txt"), "-r", str(tmp_path / "r.txt")]


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))
    monkeypatch.syspath_prepend(str(HERE))
    return nlgmetrics.scorer_class("toy")


def _records(tmp_path):
    """A good records file of the toy metric: its lines (header first) and where to write it."""
    scorer = nlgmetrics.load("toy")
    path = distributed.write_records(str(tmp_path / "good.jsonl"), "toy", {}, scorer,
                                     distributed.score_shard(scorer, HYPS, REFS, shard=(1, 1)), n_segments=len(HYPS),
                                     shard=(1, 1), fingerprint=distributed.corpus_fingerprint(scorer, HYPS, REFS))
    return Path(path).read_text().splitlines()


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return str(path)


# -- one per finding ------------------------------------------------------------------------------
@pytest.mark.parametrize("metric, argv, where", [
    ("sam", ["-o", "lexicon=" + DEEP], "-o lexicon"),
    ("sam", ["--lexicon", DEEP], "--lexicon"),
    ("sam", ["-o", "base_range=" + DEEP], "-o base_range"),
    ("discotk", ["-o", "weights=" + DEEP], "-o weights"),
])
def test_a_deep_inline_option_value_is_one_error_naming_the_flag(capsys, texts, metric, argv, where):
    """``-o weights=[[[[...]]]]`` ended in RecursionError (exit 1, a foreign exception)."""
    line = _cli_error(capsys, ["score", metric, *texts, *argv])
    assert line == f"error: {where}: nested deeper than {MAX_DEPTH} levels"


def test_an_inline_value_within_the_depth_still_parses():
    spec = nlgmetrics.scorer_class("discotk").Config.spec("weights")
    assert spec.parse('{"a": ' + DEEPEST[1:-1] + "}") == {"a": json.loads(DEEPEST[1:-1])}
    assert spec.parse("weights.json") == "weights.json"  # not JSON: the text itself (a path)


def test_a_deep_records_header_is_one_error_naming_file_and_line(toy, tmp_path, capsys):
    lines = _records(tmp_path)
    header = json.loads(lines[0])
    header["options"] = {"scale": json.loads(TOO_DEEP)}
    path = _write(tmp_path / "deep-header.jsonl", [json.dumps(header), *lines[1:]])
    assert _cli_error(capsys, ["reduce", path]) == f"error: {path}, line 1: nested deeper than {MAX_DEPTH} levels"
    path = _write(tmp_path / "deeper-header.jsonl", ['{"nlgmetrics_records": 2, "metric": ' + DEEP + "}", *lines[1:]])
    assert _cli_error(capsys, ["reduce", path]) == f"error: {path}, line 1: nested deeper than {MAX_DEPTH} levels"


def test_a_deep_records_line_is_one_error_naming_file_and_line(toy, tmp_path, capsys):
    lines = _records(tmp_path)
    path = _write(tmp_path / "deep-line.jsonl", [*lines[:3], '{"id": 2, "raw": ' + DEEP + "}"])
    assert _cli_error(capsys, ["reduce", path]) == f"error: {path}, line 4: nested deeper than {MAX_DEPTH} levels"


def test_a_records_header_without_metric_is_refused_naming_file_and_line(toy, tmp_path, capsys):
    lines = _records(tmp_path)
    assert cli.main(["reduce", _write(tmp_path / "ok.jsonl", lines)]) == 0  # the file itself reduces
    capsys.readouterr()
    header = json.loads(lines[0])
    del header["metric"]
    path = _write(tmp_path / "no-metric.jsonl", [json.dumps(header), *lines[1:]])
    want = f"error: {path}, line 1: the header has no metric field; it is not a header nlgmetrics writes"
    assert _cli_error(capsys, ["reduce", path]) == want
    assert _cli_error(capsys, ["reduce", path, "--metric", "toy"]) == want  # --metric does not stand in for it


def test_a_deep_meta_eval_row_is_one_error_naming_file_and_line(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"hyp": "a cat", "ref": "the cat", "human": 1}\n\n'
                    '{"hyp": "a dog", "ref": "the dog", "human": ' + DEEP + "}\n")
    line = _cli_error(capsys, ["meta-eval", "sam", str(rows), "--human", "human", "--base", "chrf"])
    assert line == f"error: {rows}, line 3: nested deeper than {MAX_DEPTH} levels"


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux's /proc")
def test_proc_self_mem_as_an_input_is_one_clear_error(capsys, texts, tmp_path):
    """It stats as a regular file of size 0 and reading it fails with EIO: that EIO escaped
    (``error: OSError: [Errno 5] ...``, exit 1)."""
    line = _cli_error(capsys, ["score", "sam", "--base", "chrf", "-p", "/proc/self/mem", *texts[2:]])
    assert line == "error: /proc/self/mem: cannot read (Input/output error)"
    with pytest.raises(files.InputFileError, match=r"^rows: cannot read \(Input/output error\)$"):
        files.read_rows("/proc/self/mem", "jsonl", label="rows")
    with pytest.raises(option_files.OptionFileError, match=r"^lexicon='/proc/self/mem': cannot read \(Input/output"):
        option_files.read_option_json("/proc/self/mem", "lexicon")
    with pytest.raises(files.InputFileError, match=r"^/proc/self/mem: cannot read"):
        mtme.read_score_file("/proc/self/mem")


# -- one reader, one set of limits ----------------------------------------------------------------
def test_every_reader_has_the_same_limits():
    assert files.MAX_LINE_BYTES == structured.MAX_LINE_BYTES == 8 * 2**20
    assert files.MAX_FILE_BYTES == structured.MAX_FILE_BYTES == 2**30
    assert option_files.MAX_OPTION_BYTES <= structured.MAX_FILE_BYTES  # an option file's own, lower cap
    assert option_files.MAX_JSON_DEPTH == structured.MAX_DEPTH == 32
    assert records_reader.MAX_SEGMENTS == structured.MAX_ITEMS
    assert files.limits is structured.limits


def _every_reader(tmp_path, text):
    """What each reader makes of one JSON object ``text``: reader -> its value or the problem
    its error names."""
    weights = nlgmetrics.scorer_class("discotk").Config.spec("weights")
    attempts = {
        "option file": lambda: option_files.parse_json(text.encode(), "w"),
        "inline option": lambda: weights.parse(text),
        "json lines": lambda: files.read_rows(_write(tmp_path / "r.jsonl", [text]))[0][1],
        "records line": lambda: records_reader._parse(text, "r"),
    }
    out = {}
    for reader, attempt in attempts.items():
        try:
            out[reader] = attempt()
        except StructuredInputError as err:
            out[reader] = err.problem
        except option_files.OptionFileError as err:
            out[reader] = str(err).split(": ", 1)[1]
    return out


def test_every_reader_refuses_the_same_depth_and_numbers_in_the_same_words(tmp_path):
    deepest = '{"v": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"  # 32 levels with the object
    assert list(_every_reader(tmp_path, deepest).values()) == [json.loads(deepest)] * 4
    deeper = '{"v": ' + TOO_DEEP[1:-1] + "}"
    assert set(_every_reader(tmp_path, deeper).values()) == {f"nested deeper than {MAX_DEPTH} levels"}
    assert set(_every_reader(tmp_path, '{"v": NaN}').values()) == {"NaN is not allowed (every number must be finite)"}
    assert set(_every_reader(tmp_path, '{"v": [1e400]}').values()) == {
        "the number '1e400' is beyond the float range (every number must be finite)"}
    # a .json file is one text: its list is a level too
    in_list = '[{"v": ' + "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2) + "}]"  # 32 levels with the list
    assert files.read_rows(_write(tmp_path / "r.json", [in_list])) == [(1, json.loads(in_list)[0])]
    with pytest.raises(StructuredInputError, match=rf"r\.json, line 1: nested deeper than {MAX_DEPTH} levels$"):
        files.read_rows(_write(tmp_path / "r.json", ["[" + deepest + "]"]))


def test_lowered_limits_hold_for_files_and_inline_values(tmp_path):
    spec = nlgmetrics.scorer_class("discotk").Config.spec("weights")
    with files.limits(10_000, 100):
        with pytest.raises(StructuredInputError, match=r"^weights: longer than 100 bytes, the most read as one value$"):
            spec.parse('{"a": "' + "x" * 100 + '"}')
        with pytest.raises(files.InputFileError, match=r"r\.jsonl, line 1: longer than 100 bytes"):
            files.read_rows(_write(tmp_path / "r.jsonl", ['{"a": "' + "x" * 100 + '"}']))
    assert spec.parse('{"a": "' + "x" * 100 + '"}') == {"a": "x" * 100}


def test_one_count_limit_for_values_rows_records_and_scores(tmp_path):
    with mock.patch.object(structured, "MAX_ITEMS", 10):
        assert parse_json("[" + ",".join("0" * 9) + "]", "v") == [0] * 9  # 10 values: the list and its 9
        with pytest.raises(StructuredInputError, match=r"^v: more than 10 values, the most read from one JSON text$"):
            parse_json("[" + ",".join("0" * 10) + "]", "v")
        rows = _write(tmp_path / "rows.jsonl", ['{"a": 1}'] * 11)
        with pytest.raises(StructuredInputError, match=r"rows\.jsonl, line 11: more than 10 rows, the most read"):
            files.read_rows(rows)
        scores = _write(tmp_path / "m.seg.score", [f"sys{i % 2} 0.5" for i in range(11)])
        with pytest.raises(StructuredInputError, match=r"m\.seg\.score, line 11: more than 10 scores, the most read"):
            mtme.read_score_file(scores, human=False)
        assert len(files.read_rows(_write(tmp_path / "ten.jsonl", ['{"a": 1}'] * 10))) == 10


def test_a_whole_file_names_the_line_of_its_problem():
    text = '{\n  "a": [1, 2],\n  "b": ' + "[" * 40 + "]" * 40 + "\n}"
    with pytest.raises(StructuredInputError, match=rf"^w\.json, line 3: nested deeper than {MAX_DEPTH} levels$"):
        parse_json(text, "w.json", whole_file=True)
    with pytest.raises(StructuredInputError, match=r"^w\.json, line 2: not valid JSON \(Expecting value, column 8\)$"):
        parse_json('{\n  "a": ,\n}', "w.json", whole_file=True)


def test_the_nesting_check_is_linear_on_hostile_strings():
    """Escaped quotes that never close, and brackets inside strings: a string pattern with
    backtracking took quadratic time on the first; the second never counts as nesting."""
    started = time.perf_counter()
    with pytest.raises(StructuredInputError, match="^v: nested deeper"):
        parse_json("[" * 40 + '"' + '\\"' * 400_000, "v")
    assert time.perf_counter() - started < 10
    assert parse_json('["' + "[{" * 1000 + '\\"", "\\\\"]', "v") == ["[{" * 1000 + '"', "\\"]


# -- properties ---------------------------------------------------------------------------------
def _depth(value):
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


def _values(value):
    children = value if isinstance(value, list) else value.values() if isinstance(value, dict) else ()
    return 1 + sum(map(_values, children))


@settings(deadline=None, max_examples=50)  # lengths up to 200 and three leaves; the deep cases are examples
@given(st.lists(st.sampled_from(["[]", "{}"]), min_size=1, max_size=200), st.sampled_from(["", "0", '"[x"']))
@example(["[]"] * 100_000, "0")  # deep past Python's recursion limit
@example(["{}", "[]"] * 20_000, "")
@example(["[]"] * MAX_DEPTH, '"[x"')
@example(["[]"] * (MAX_DEPTH + 1), "")
def test_any_nesting_depth_gives_the_value_or_the_one_error(shape, leaf):
    opens = ["[" if kind == "[]" else '{"k": ' for kind in shape]  # each array or object one level in the last
    if not leaf:
        opens[-1] = shape[-1][0]  # the innermost holds nothing: [] or {}
    text = "".join(opens) + leaf + "".join(kind[1] for kind in reversed(shape))
    try:
        value = parse_json(text, "-o weights")
    except StructuredInputError as err:
        assert str(err) == f"-o weights: nested deeper than {MAX_DEPTH} levels"
        assert len(shape) > MAX_DEPTH
    else:
        assert len(shape) <= MAX_DEPTH and _depth(value) == len(shape) and value == json.loads(text)


JSONISH = st.text(alphabet=st.sampled_from(list('[]{}",:\\/0123456789.eE+-tnrufalsNIiyb \n\t\u00e9\ud800')),
                  max_size=300)


@settings(deadline=None)
@given(JSONISH, st.booleans())
def test_any_jsonish_text_gives_a_value_or_the_one_error(text, whole_file):
    try:
        value = parse_json(text, "f.jsonl, line 2", whole_file=whole_file)
    except StructuredInputError as err:
        assert str(err).startswith("f.jsonl, line 2") and "\n" not in str(err)
        try:
            reference = json.loads(text)
        except (ValueError, RecursionError):
            return
        # json itself reads it: refused only for a non-finite number or the depth
        assert _depth(reference) > MAX_DEPTH or not _finite(reference), text
    else:
        assert value == json.loads(text) and _depth(value) <= MAX_DEPTH and _finite(value)


def _finite(value):
    if isinstance(value, (int, float)):
        try:
            return math.isfinite(float(value))
        except OverflowError:
            return False
    children = value if isinstance(value, list) else value.values() if isinstance(value, dict) else ()
    return all(map(_finite, children))


TRICKY = st.text(alphabet=st.sampled_from(list('ab ,:[]{}"\\\u00e9')), max_size=5)  # what a skeleton must not count
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False, allow_infinity=False) | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4), max_leaves=40)


@settings(deadline=None)
@given(JSON_VALUES)
def test_any_value_reads_back_and_the_count_limit_is_exact(value):
    text = json.dumps(value)
    assert parse_json(text, "v") == value
    n = _values(value)
    with mock.patch.object(structured, "MAX_ITEMS", n):
        assert parse_json(text, "v") == value
    with mock.patch.object(structured, "MAX_ITEMS", n - 1):
        if n > 1:
            with pytest.raises(StructuredInputError, match=f"^v: more than {n - 1:,} values"):
                parse_json(text, "v")

"""nlgmetrics.space without a browser and without the metrics: inputs from the text boxes and
from uploads (row-level errors), score files (formula cells escaped), settings generated from a
configuration, the scorer pool, the runtime, the drawings, the how-to-read box and warnings,
and a whole page built and scored on a toy metric."""
from __future__ import annotations

import csv
import json
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Optional

import pytest

gr = pytest.importorskip("gradio")

import nlgmetrics  # noqa: E402
from nlgmetrics import space as ui  # noqa: E402
from nlgmetrics.core.config import MetricConfig, option  # noqa: E402
from nlgmetrics.core.result import MetricResult  # noqa: E402

SINGLE = SimpleNamespace(name="single", references_mode="required", sources_mode="none", multi_reference=False)
MULTI = SimpleNamespace(name="multi", references_mode="required", sources_mode="none", multi_reference=True)
WITH_SOURCES = SimpleNamespace(name="src", references_mode="required", sources_mode="optional", multi_reference=False)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))
    return nlgmetrics.scorer_class("toy")


# -- example boxes --------------------------------------------------------------------------
def test_example_lines_are_aligned_segments():
    got = ui.example_inputs(SINGLE, "a b\n\n c d \n", "e f\n\ng h", None)
    assert got == {"predictions": ["a b", "", "c d"], "references": ["e f", "", "g h"], "sources": None}


@pytest.mark.parametrize("text", ["one\n\nthree", "one\r\n\r\nthree\r\n", "one\n\nthree\n",
                                  "one\u2028more\n\x85two\x0c\nthree", "\n\none", "one\n\n\n"])
def test_example_lines_follow_the_cli_line_rule(tmp_path, text):
    """A blank line is an empty text (not dropped), only \\n and \\r\\n end a line (not
    U+2028, \\x85 or a form feed), one final newline ends the last line: the segments are
    the lines the CLI reads from a file of the same text."""
    from nlgmetrics.core import files

    path = tmp_path / "box.txt"
    path.write_bytes(text.encode("utf-8"))
    lines = files.read_lines(path)
    assert len(lines) == 3
    refs = "\n".join(f"ref {i}" for i in range(len(lines)))
    got = ui.example_inputs(SINGLE, text, refs, None)
    assert got["predictions"] == [line.strip() for line in lines]
    assert got["references"] == ["ref 0", "ref 1", "ref 2"]
    assert files.split_lines(text) == lines


def test_example_reference_set_and_multi_reference():
    # a blank line in a standard set is no member (its lines do not pair with the predictions)
    assert ui.example_inputs(MULTI, "p1", "r1\n\nr2\n", None, reference_set=True)["references"] == [["r1", "r2"]]
    with pytest.raises(ValueError, match="Enter the reference"):
        ui.example_inputs(MULTI, "p1", "\n \n\n", None, reference_set=True)
    got = ui.example_inputs(MULTI, "p1\np2", "r1\nr2\nr3", None, reference_set=True)
    assert got["references"] == [["r1", "r2", "r3"], ["r1", "r2", "r3"]]
    assert ui.example_inputs(MULTI, "h1\nh2", "r1 ||| r1b\nr2", None)["references"] == [["r1", "r1b"], "r2"]
    assert ui.example_inputs(SINGLE, "h", "r ||| s", None)["references"] == ["r ||| s"]


@pytest.mark.parametrize("preds, refs, srcs, expected", [
    ("", "r", None, "at least one prediction"),
    ("a\nb", "r", None, r"2 prediction line\(s\) but 1 reference line\(s\)"),
    ("a", "  ", None, "Enter the reference"),
    ("a\nb", "r\ns", "x", r"1 source line\(s\)"),
    ("\n".join(["x"] * (ui.MAX_EXAMPLE_LINES + 1)), "\n".join(["x"] * (ui.MAX_EXAMPLE_LINES + 1)), None, "batch tab"),
])
def test_example_bad_input_messages(preds, refs, srcs, expected):
    with pytest.raises(ValueError, match=expected):
        ui.example_inputs(WITH_SOURCES, preds, refs, srcs)


# -- batch files ----------------------------------------------------------------------------
def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_read_csv_single_and_multi_reference(tmp_path):
    path = _write(tmp_path / "a.csv", "prediction,reference_1,reference_2,source\nh1,r1,r1b,s1\n\"h, 2\",r2,,s2\n")
    multi = ui.read_batch(path, MULTI)
    assert multi == {"predictions": ["h1", "h, 2"], "references": [["r1", "r1b"], ["r2"]], "sources": None}
    with pytest.raises(ValueError, match="one reference per segment"):
        ui.read_batch(path, SINGLE)
    assert ui.read_batch(_write(tmp_path / "b.csv", "hyp,ref,src\nh,r,s\n"), WITH_SOURCES) == \
        {"predictions": ["h"], "references": ["r"], "sources": ["s"]}


def test_read_jsonl_and_json(tmp_path):
    rows = [{"prediction": "h1", "references": ["r1", "r2"]}, {"prediction": "h2", "references": ["r3"]}]
    jsonl = _write(tmp_path / "a.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert ui.read_batch(jsonl, MULTI)["references"] == [["r1", "r2"], ["r3"]]
    empty = _write(tmp_path / "e.jsonl", json.dumps({"prediction": "h", "references": []}) + "\n")
    with pytest.raises(ValueError, match=r"row 1 \(line 1 of e.jsonl\): 'references' must be a string or a non-empty"):
        ui.read_batch(empty, MULTI)
    as_json = _write(tmp_path / "a.json", json.dumps([{"hypothesis": "h", "reference": ["r"]}]))
    assert ui.read_batch(as_json, SINGLE) == {"predictions": ["h"], "references": ["r"], "sources": None}


@pytest.mark.parametrize("name, text, expected", [
    ("a.csv", "text,reference\nx,y\n", "no 'prediction' column"),
    ("a.csv", "prediction\nx\n", "needs references"),
    ("a.csv", "prediction,reference\n", "no rows"),
    ("a.csv", "prediction,reference\nx,y\nz\n", r"row 2 \(line 3 of a.csv\) has no 'reference' value"),
    # a broken line 2 is reported as line 2 (not line 1)
    ("a.jsonl", "{\"prediction\": \"x\", \"reference\": \"y\"}\n{\"prediction\": \"x\"\n",
     r"a.jsonl, line 2: not valid JSON"),
    ("a.jsonl", "{\"prediction\": \"x\", \"reference\": \"y\"}\n\n{\"reference\": \"y\"}\n",
     r"row 2 \(line 3 of a.jsonl\) has no 'prediction' value"),
    ("a.jsonl", "[1, 2]\n", r"a.jsonl, line 1: expected a JSON object"),
    # a value of the wrong type: the row, the file's line (1-based) and the key as the file spells it
    ("a.jsonl", "{\"prediction\": \"x\", \"reference\": \"y\"}\n\n{\"prediction\": 5, \"reference\": \"y\"}\n",
     r"row 2 \(line 3 of a.jsonl\): 'prediction' must be a string, got 5"),
    ("a.jsonl", "{\"prediction\": \"x\", \"reference\": [\"y\", \"z\"]}\n",
     r"row 1 \(line 1 of a.jsonl\): 'reference' must be a string, got \[\"y\", \"z\"\]"),
    ("a.json", "{\"prediction\": \"x\"}", r"a.json: a .json file must hold a list of objects"),
    ("a.txt", "x", "upload a .csv"),
])
def test_read_batch_errors_name_the_row_and_line(tmp_path, name, text, expected):
    with pytest.raises(ValueError, match=expected):
        ui.read_batch(_write(tmp_path / name, text), SINGLE)


def test_read_batch_row_limit_and_encoding(tmp_path):
    with pytest.raises(ValueError, match="at most 2"):
        ui.read_batch(_write(tmp_path / "a.csv", "prediction,reference\n" + "x,y\n" * 3), SINGLE, max_rows=2)
    bad = tmp_path / "b.csv"
    bad.write_bytes(b"prediction,reference\n\xff,y\n")
    with pytest.raises(ValueError, match=r"b.csv, line 2: not valid UTF-8"):
        ui.read_batch(str(bad), SINGLE)


def test_write_batch_flattens_details_and_escapes_formulas(tmp_path):
    result = MetricResult("toy", [0.5, -0.25], 0.125, "toy|v:0",
                          [{"id": 0, "base": 1.0, "directions": {"a->b": -1.5}, "words": ["x"]},
                           {"id": 1, "base": 0.5, "directions": {"a->b": -2.0}, "words": []}], {"n": 2})
    preds = ["=HYPERLINK(\"http://x\")", "-a @b"]
    csv_path, json_path = ui.write_batch(result, {"predictions": preds}, str(tmp_path))
    with open(csv_path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["prediction"] for r in rows] == ["'=HYPERLINK(\"http://x\")", "'-a @b"]
    assert [float(r["score"]) for r in rows] == [0.5, -0.25]  # numbers stay numbers
    assert rows[0]["directions.a->b"] == "-1.5" and json.loads(rows[0]["words"]) == ["x"]
    assert json.loads(Path(json_path).read_text())["corpus"] == {"n": 2}
    assert ui.escape_cell("+1") == "'+1" and ui.escape_cell("plain") == "plain" and ui.escape_cell(-1.0) == -1.0


# -- settings from the configuration, pool, runtime -------------------------------------------
def test_settings_are_generated_from_the_configuration(toy):
    with gr.Blocks():
        widgets = ui.build_settings(toy.Config, ["scale"], {})
    number = widgets["scale"]
    spec = toy.Config.spec("scale")
    assert isinstance(number, gr.Number) and number.value == spec.default and number.minimum == spec.low
    assert number.info == spec.doc


@dataclass(frozen=True)
class Demo(MetricConfig):
    model: str = option("m1", "a model")
    lang: Optional[str] = option(None, "a language")
    base: str = option("chrf", "base metric", choices=("chrf", "bleu", "meteor", "ter", "x"))
    flag: bool = option(False, "a switch")


def test_free_text_settings_are_refused_and_choices_offered():
    with gr.Blocks():
        with pytest.raises(TypeError, match="free text"):
            ui.build_settings(Demo, ["model"], {})
        widgets = ui.build_settings(Demo, [ui.Setting("model", choices=["m1", "m2"]),
                                           ui.Setting("lang", choices=[("French (fr)", "fr")]), "base", "flag"], {})
    assert isinstance(widgets["model"], gr.Radio) and isinstance(widgets["base"], gr.Dropdown)
    assert widgets["lang"].value == ui.DEFAULT and ("default", ui.DEFAULT) in widgets["lang"].choices
    assert isinstance(widgets["flag"], gr.Checkbox) and widgets["flag"].value is False


def test_pool_resolves_a_request_once_and_keeps_a_scorer_per_configuration(toy, monkeypatch):
    from nlgmetrics.core import call as calls

    # a GPU Space's runtime, faked on this CPU machine: the resolver's device check would refuse it
    monkeypatch.setattr(calls, "check_device", lambda config, syntax=None: None)
    pool = ui.ScorerPool("toy")
    runtime = ui.Runtime("cuda", "bf16", False)
    # "" = the option's default; the page's device and dtype go to configurations that take them
    call = pool.resolve({"scale": 2.0, "cache_dir": ""}, {"cache_dir": "/x", "lowercase": True}, runtime)
    assert call.config == toy.Config(scale=2.0, lowercase=True, device="cuda", dtype="bf16") and call.scorer is toy
    assert pool.resolve({}, {"mode": "none"}, runtime, fixed={"mode": "max"}).config.mode == "max"  # the app's own
    pool.offered["scale"] = [1.0, 2.0]
    with pytest.raises(ValueError, match="scale 3.0 is not offered by this Space"):
        pool.resolve({"scale": 3.0}, {}, runtime)
    with pytest.raises(ValueError, match="unknown option 'colour'; the options are: scale"):  # the resolver's
        pool.resolve({"colour": "red"}, {}, runtime)
    with pytest.raises(ValueError, match="mode"):  # a value the configuration refuses: its own message
        pool.resolve({"mode": "median"}, {}, runtime)
    scorer = pool.get(call)
    assert scorer is nlgmetrics.load("toy", scale=2.0, lowercase=True, device="cuda", dtype="bf16") and scorer.quiet
    assert pool.get(pool.resolve({"scale": 2.0}, {"lowercase": True}, runtime)) is scorer


def test_an_apps_factory_gets_the_configuration_once_per_configuration(toy):
    built = []

    def factory(config):
        built.append(config)
        return toy(config, quiet=True)

    pool = ui.ScorerPool("toy", factory)
    runtime = ui.Runtime("cpu", "fp32", False)
    first = pool.get(pool.resolve({"scale": 2.0}, {}, runtime))
    assert pool.get(pool.resolve({"scale": 2.0, "mode": "max"}, {}, runtime)) is first  # the same configuration
    assert built == [toy.Config(scale=2.0, device="cpu")]
    for scale in (1.0, 3.0, 4.0, 5.0, 6.0):  # the pool keeps the last MAX_SCORERS
        pool.get(pool.resolve({"scale": scale}, {}, runtime))
    assert len(pool.scorers) == ui.settings.MAX_SCORERS and pool.get(pool.resolve({"scale": 2.0}, {}, runtime)) \
        is not first


def test_allowed_models_come_from_the_owner(monkeypatch):
    monkeypatch.delenv(ui.MODELS_VARIABLE, raising=False)
    assert ui.allowed_models(["a", "b"]) == ["a", "b"]
    monkeypatch.setenv(ui.MODELS_VARIABLE, "x, y\nz")
    assert ui.allowed_models(["a"], initial="y") == ["y", "x", "z"]


def test_zero_gpu_wrapper_only_with_the_spaces_package(monkeypatch):
    def fn(x):
        return x + 1

    monkeypatch.setitem(sys.modules, "spaces", types.ModuleType("spaces"))  # no GPU attribute
    assert ui.on_gpu(fn) is fn and ui.zero_gpu_decorator() is None
    calls = []

    def GPU(duration=60):  # noqa: N802 - the spaces package's name
        def wrap(f):
            def wrapped(*args):
                calls.append(duration)
                return f(*args)
            return wrapped
        return wrap

    fake = types.ModuleType("spaces")
    fake.GPU = GPU
    monkeypatch.setitem(sys.modules, "spaces", fake)
    wrapped = ui.on_gpu(fn, duration=30)
    assert wrapped is not fn and wrapped(1) == 2 and calls == [30]
    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)
    assert not ui.detect_runtime().zero_gpu
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    assert ui.detect_runtime().zero_gpu


def test_runtime_on_this_machine():
    import torch

    runtime = ui.detect_runtime()
    if torch.cuda.is_available():
        assert runtime.device == "cuda" and runtime.dtype in ("bf16", "fp16")
        assert ui.detect_runtime(gpu_dtypes=()).dtype == "fp32"
    else:
        assert (runtime.device, runtime.dtype) in {("cpu", "fp32"), ("mps", "fp32")}


# -- drawings, reading, warnings ----------------------------------------------------------------
def test_bar_chart_handles_negative_and_missing_values_and_scales_down():
    svg = ui.bar_chart([("a", 0.5), ("b", -2.0), ("c", float("nan"))], role="t")
    assert svg.count("<rect") == 2 and 'data-value="-2.0"' in svg and "n/a" in svg
    assert "max-width:100%" in svg  # fits a phone-width column


def test_heatmap_marks_cells_and_sections_scroll():
    table = ui.heatmap(["x", "y"], ["u", "v"], [[0.9, 0.1], [0.2, 0.8]], marked=[(0, 0), (1, 1)],
                       titles=[["a", "b"], ["c", "d"]])
    assert table.count("data-marked") == 2 and table.count("<td") == 4 and 'title="d"' in table
    assert 'class="nlgm-scroll"' in ui.section("t", table) and "overflow-x:auto" in ui.section("t", table)


def test_tree_svg_draws_every_node():
    tree = ui.TreeNode("Attribution", [ui.TreeNode("said the man", edge="S", strong=False),
                                       ui.TreeNode("Joint", [ui.TreeNode("a"), ui.TreeNode("b & c")])])
    svg = ui.tree_svg(tree)
    assert svg.count('data-role="leaf"') == 3 and svg.count('data-role="node"') == 2 == ui.count_leaves(tree) - 1
    assert "b &amp; c" in svg and "stroke-dasharray" in svg


def test_score_html_carries_full_precision_and_the_reading():
    result = MetricResult("toy", [1 / 3, float("nan")], 1 / 3, "toy|v:0")
    reading = ui.Reading("0 to 1, higher is better", "mean of the segments", (ui.Anchor("exact copy", "a", "a"),))
    box = ui.reading_html(reading, [("exact copy", 1.0)], reading.anchors)
    page = ui.score_html(result, ["a", "<b>"], reading=box)
    assert f'data-value="{1 / 3!r}"' in page and "n/a" in page and "&lt;b&gt;" in page
    assert 'data-role="how-to-read"' in page and 'data-anchor="exact copy" data-value="1.0"' in page


@pytest.mark.parametrize("texts, expected", [
    (["The cat sat on the mat and looked at the garden."], False),
    (["Die Katze sitzt auf der Matte und schaut in den Garten."], True),
    (["El gobierno anunció nuevas medidas para apoyar a las pequeñas empresas."], True),
    (["Kurz."], False),  # too few words to tell
])
def test_non_english_check(texts, expected):
    assert ui.looks_non_english(texts) is expected
    assert bool(ui.english_warning(texts, "The parser")) is expected


def test_the_packages_own_warnings_are_captured_once_with_a_key():
    import warnings

    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        for _ in range(2):
            warnings.warn_explicit("3 text(s) longer than 256 words were cut to max_words=256", UserWarning,
                                   "/x/nlgmetrics/rome/scorer.py", 1)
        warnings.warn_explicit("DiscoTK: per-test-set normalisation over 1 segment: ...", UserWarning,
                               "/x/nlgmetrics/discotk/scorer.py", 1)
        warnings.warn_explicit("a library's deprecation", FutureWarning, "/x/transformers/a.py", 1)
    assert [key for key, _ in ui.report.captured(records)] == ["truncation", "tiny-corpus"]


def test_truncation_warning_names_the_lines():
    got = ui.truncation_warning(["a b c", "a", "a b c d"], 2, "words", "the metric reads")
    assert got == [("truncation", "Line(s) 1, 3 are longer than 2 words: the metric reads only the first 2.")]
    assert ui.truncation_warning(["a"], 2, "words", "x") == []


# -- a whole page on the toy metric -------------------------------------------------------------
def _toy_spec(**changes):
    spec = ui.SpaceSpec(
        metric="toy", title="Toy", summary="chrF, rescaled", intro="A toy.", settings=["scale"],
        visuals=lambda: [gr.HTML(elem_id="toy-visual")], examples=[{"predictions": "a b", "references": "a b"}],
        explain=lambda scorer, result, inputs: [ui.section("bars", ui.bar_chart([("x", result.score)]))],
        reading=lambda scorer: ui.Reading("0 to 1", "divided by the corpus maximum",
                                          (ui.Anchor("exact copy", "the cat", "the cat"),
                                           ui.Anchor("an error", "a dog", "the cat"))),
        warnings=lambda scorer, result, inputs: [("tiny-corpus", "one line")] if len(result) == 1 else [],
        english_only="The toy's lexicon")
    for key, value in changes.items():
        setattr(spec, key, value)
    return spec


def _handler(demo, api_name):
    return next(f.fn for f in demo.fns.values() if f.api_name == api_name)


def _page(demo):
    """The page behind a built Space (its Score button's handler wraps the page's method)."""
    return _handler(demo, "score_page").__wrapped__.__self__


def test_page_scores_reads_and_warns(toy, tmp_path):
    demo = ui.build_space(_toy_spec(), preload=False)
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"run", "score", "message", "runtime", "setting-scale", "batch-upload", "about"} <= ids
    message, score, status, visual = _handler(demo, "score_page")("the cat sat\nder Hund", "the cat sat\nthe dog", "", 1.0)
    expected = nlgmetrics.load("toy").score(["the cat sat", "der Hund"], ["the cat sat", "the dog"])
    assert f'data-value="{expected.score!r}"' in score and 'data-role="how-to-read"' in score
    anchors = nlgmetrics.load("toy").score(["the cat", "a dog"], ["the cat", "the cat"]).scores
    assert f'data-anchor="exact copy" data-value="{anchors[0]!r}"' in score
    assert "data-warning" not in message and "nlgm-scroll" in visual
    message, *_ = _handler(demo, "score_page")("Der Hund schläft auf dem Sofa im Garten", "Die Katze", "", 1.0)
    assert 'data-warning="tiny-corpus"' in message and 'data-warning="non-english"' in message
    # the metric's own non_english flag warns on every request (its Python warning comes once per scorer)
    scorer = nlgmetrics.load("toy")
    result = scorer.score(["Кошка"], ["Кошка"])
    result.corpus["non_english_segments"] = 1
    from nlgmetrics.space.report import all_warnings

    assert ("non-english", "1 segment(s) are mostly in a non-Latin script. The toy's lexicon are English-only: "
            "scores of other languages are not meaningful.") in all_warnings(
        _toy_spec(), scorer, result, {"predictions": ["Кошка"], "references": ["Кошка"]})
    message, score, *_ = _handler(demo, "score_page")("a\nb", "r", "", 1.0)
    assert "nlgm-error" in message and "2 prediction line(s)" in message and score == ""
    # a trailing blank line in both boxes is one more (empty) segment, as in a file: said in the page
    message, score, *_ = _handler(demo, "score_page")("the cat sat\nthe dog\n\n", "the cat sat\nthe dog\n\n", "", 1.0)
    padded = nlgmetrics.load("toy").score(["the cat sat", "the dog", ""], ["the cat sat", "the dog", ""])
    assert f'data-value="{padded.score!r}"' in score
    assert 'data-warning="empty"' in message and "1 of 3 prediction(s) are empty" in message
    message, *_ = _handler(demo, "score_page")("the cat sat\nthe dog", "the cat sat\nthe dog", "", 1.0)
    assert 'data-warning="empty"' not in message
    path = _write(tmp_path / "up.jsonl", '{"prediction": "=1+1", "reference": "=1+1"}\n'
                                         '{"prediction": "x", "reference": "y"}\n')
    info, shown, files, _ = _handler(demo, "score_file")(path, 1.0)
    assert "Scored 2 segments" in info and "how-to-read" in shown
    assert "'=1+1" in Path(files[0]).read_text(encoding="utf-8")


def test_page_clears_a_stale_start_up_warning(toy):
    def failing_then_working(config):
        if not failing_then_working.ready:
            failing_then_working.ready = True
            raise ValueError("model not available")
        return nlgmetrics.load("toy", config)

    failing_then_working.ready = False
    demo = ui.build_space(_toy_spec(), scorer_factory=failing_then_working)
    message = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "message")
    assert "could not be loaded" in message.value  # under the Score button
    new_message, score, new_status, _ = _handler(demo, "score_page")("a b", "a b", "", 1.0)
    assert "data-role=\"corpus\"" in score and "could not be loaded" not in new_message + new_status


def test_the_score_endpoint_on_the_toy_metric(toy):
    """``/score`` in the server's process: named, typed parameters (the metric's per-segment
    input among them), the JSON of the package's result, refusals as ``gr.Error``."""
    demo = ui.build_space(_toy_spec(), preload=False)
    api = _handler(demo, "score")
    assert list(_page(demo).api_types()) == ["predictions", "references", "sources", "offsets", "scale", "dtype"]
    preds, refs = ["the cat sat", "a dog"], ["the cat", "a dog ran"]
    out = api(predictions=preds, references=refs, offsets=[0.5, -0.25], scale=2.0)
    expected = nlgmetrics.score("toy", preds, refs, offsets=[0.5, -0.25], scale=2.0)
    assert out == {"score": expected.score, "scores": expected.scores, "signature": expected.signature,
                   "warnings": []}
    assert api(preds, refs)["scores"] == nlgmetrics.score("toy", preds, refs).scores  # by position, the defaults
    with pytest.raises(gr.Error, match="offsets has 1 items but predictions has 2"):
        api(predictions=preds, references=refs, offsets=[0.5])
    with pytest.raises(gr.Error, match="dtype 'fp64' is not offered by this Space"):
        api(predictions=preds, references=refs, dtype="fp64")


def test_the_json_answer_has_no_nan_and_keeps_the_warnings():
    from nlgmetrics.space.api import result_json

    result = MetricResult("toy", [1 / 3, float("nan")], float("inf"), "toy|v:0")
    assert result_json(result, [("empty", "1 of 2 prediction(s) are empty")]) == {
        "score": None, "scores": [1 / 3, None], "signature": "toy|v:0",
        "warnings": [{"key": "empty", "message": "1 of 2 prediction(s) are empty"}]}

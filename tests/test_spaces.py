"""The Spaces' shared support without a browser: input parsing (example boxes, CSV/JSONL
uploads), the score files, the ZeroGPU wrapper, the runtime choice, the drawings, and that
every app builds its gr.Blocks (also when its models cannot load)."""
from __future__ import annotations

import csv
import json
import sys
import types
from pathlib import Path

import pytest

gr = pytest.importorskip("gradio")

from nlgmetrics import publish  # noqa: E402
from nlgmetrics import spaces_support as ui  # noqa: E402
from nlgmetrics.core.result import MetricResult  # noqa: E402
from nlgmetrics.rome import RoMe  # noqa: E402
from nlgmetrics.sam import SAM  # noqa: E402
from nlgmetrics.texteval import TextEval  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
APPS = ("datscore", "rome", "discotk", "texteval", "sam")


# -- example boxes --------------------------------------------------------------------------
def test_example_lines_are_aligned_segments():
    got = ui.example_inputs(SAM, "a b\n\n c d \n", "e f\ng h", None)
    assert got == {"predictions": ["a b", "c d"], "references": ["e f", "g h"], "sources": None}


def test_example_reference_set_is_shared_by_every_prediction():
    got = ui.example_inputs(TextEval, "p1\np2", "r1\nr2\nr3", None, reference_set=True)
    assert got["references"] == [["r1", "r2", "r3"], ["r1", "r2", "r3"]]


def test_example_multi_reference_separator():
    got = ui.example_inputs(RoMe, "h1\nh2", "r1 ||| r1b\nr2", None)
    assert got["references"] == [["r1", "r1b"], "r2"]
    # a single-reference metric keeps the line as it is
    assert ui.example_inputs(SAM, "h", "r ||| s", None)["references"] == ["r ||| s"]


@pytest.mark.parametrize("preds, refs, expected", [
    ("", "r", "at least one prediction"),
    ("a\nb", "r", "2 prediction line(s) but 1 reference line(s)"),
    ("a", "  ", "Enter the reference"),
])
def test_example_bad_input_messages(preds, refs, expected):
    with pytest.raises(ValueError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        ui.example_inputs(SAM, preds, refs, None)


def test_example_sources_must_align():
    from nlgmetrics.datscore import DATScore

    with pytest.raises(ValueError, match="source line"):
        ui.example_inputs(DATScore, "a\nb", "r\ns", "x")
    assert ui.example_inputs(DATScore, "a", "r", "")["sources"] is None


def test_example_too_many_lines():
    lines = "\n".join(["x"] * (ui.MAX_EXAMPLE_LINES + 1))
    with pytest.raises(ValueError, match="batch tab"):
        ui.example_inputs(SAM, lines, lines, None)


# -- batch files ----------------------------------------------------------------------------
def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_read_csv_single_and_multi_reference(tmp_path):
    path = _write(tmp_path / "a.csv", "prediction,reference_1,reference_2,source\nh1,r1,r1b,s1\n\"h, 2\",r2,,s2\n")
    multi = ui.read_batch(path, RoMe)
    assert multi["predictions"] == ["h1", "h, 2"]
    assert multi["references"] == [["r1", "r1b"], ["r2"]]
    assert multi["sources"] is None  # RoMe takes no sources
    with pytest.raises(ValueError, match="one reference per segment"):
        ui.read_batch(path, SAM)
    single = ui.read_batch(_write(tmp_path / "b.csv", "hyp,ref\nh,r\n"), SAM)
    assert single == {"predictions": ["h"], "references": ["r"], "sources": None}


def test_read_jsonl_and_json(tmp_path):
    rows = [{"prediction": "h1", "references": ["r1", "r2"]}, {"prediction": "h2", "references": ["r3"]}]
    jsonl = _write(tmp_path / "a.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert ui.read_batch(jsonl, TextEval)["references"] == [["r1", "r2"], ["r3"]]
    as_json = _write(tmp_path / "a.json", json.dumps([{"hypothesis": "h", "reference": ["r"]}]))
    assert ui.read_batch(as_json, SAM) == {"predictions": ["h"], "references": ["r"], "sources": None}


@pytest.mark.parametrize("name, text, expected", [
    ("a.csv", "text,reference\nx,y\n", "no 'prediction' column"),
    ("a.csv", "prediction\nx\n", "needs references"),
    ("a.csv", "prediction,reference\n", "no rows"),
    ("a.jsonl", "{\"prediction\": \"x\"\n", "cannot read"),
    ("a.jsonl", "[1, 2]\n", "JSON object"),
    ("a.txt", "x", "upload a .csv"),
])
def test_read_batch_errors(tmp_path, name, text, expected):
    with pytest.raises(ValueError, match=expected):
        ui.read_batch(_write(tmp_path / name, text), SAM)


def test_read_batch_row_limit(tmp_path):
    path = _write(tmp_path / "a.csv", "prediction,reference\n" + "x,y\n" * 3)
    with pytest.raises(ValueError, match="at most 2"):
        ui.read_batch(path, SAM, max_rows=2)


def test_write_batch_flattens_details(tmp_path):
    result = MetricResult("toy", [0.5, 0.25], 0.375, "toy|v:0",
                          [{"id": 0, "base": 1.0, "directions": {"a->b": -1.5}, "words": ["x"]},
                           {"id": 1, "base": 0.5, "directions": {"a->b": -2.0}, "words": []}], {"n": 2})
    csv_path, json_path = ui.write_batch(result, {"predictions": ["p1", "p2"]}, str(tmp_path))
    with open(csv_path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [float(r["score"]) for r in rows] == [0.5, 0.25]
    assert rows[0]["directions.a->b"] == "-1.5" and json.loads(rows[0]["words"]) == ["x"]
    assert json.loads(Path(json_path).read_text())["corpus"] == {"n": 2}


# -- runtime and ZeroGPU --------------------------------------------------------------------
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
    assert not ui.detect_runtime().zero_gpu  # the package alone: a Space on ordinary hardware
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


def test_pool_options_drop_what_the_metric_does_not_take():
    runtime = ui.Runtime("cuda", "bf16", False)
    assert ui.ScorerPool("texteval").options({"model": "words"}, runtime) == {"model": "words", "quiet": True}
    sam = ui.ScorerPool("sam").options({"base": "chrf", "profile": ""}, runtime)
    assert sam == {"base": "chrf", "device": "cuda", "dtype": "bf16", "quiet": True}
    with pytest.raises(ValueError, match="does not take"):
        ui.ScorerPool("sam").options({"colour": "red"}, runtime)


def test_pool_builds_each_configuration_once():
    built = []

    def factory(**options):
        built.append(options)
        return object()

    pool = ui.ScorerPool("texteval", factory)
    first = pool.get({"model": "words"})
    assert len(built) == 1 and first is not None


def test_initial_values_follow_the_core():
    initial = ui.InitialValues("texteval", {"model": "words"})
    assert initial("model") == "words"
    assert initial("approach") == "direct"
    assert initial("distance", "neg_log_p") == "neg_log_p"


# -- drawings ---------------------------------------------------------------------------------
def test_bar_chart_handles_negative_and_missing_values():
    svg = ui.bar_chart([("a", 0.5), ("b", -2.0), ("c", float("nan"))], role="t")
    assert svg.count("<rect") == 2 and 'data-value="-2.0"' in svg and "n/a" in svg


def test_heatmap_marks_cells():
    table = ui.heatmap(["x", "y"], ["u", "v"], [[0.9, 0.1], [0.2, 0.8]], marked=[(0, 0), (1, 1)])
    assert table.count("data-marked") == 2 and table.count("<td") == 4


def test_tree_svg_draws_every_node():
    tree = ui.TreeNode("Attribution", [ui.TreeNode("said the man", edge="S", strong=False),
                                       ui.TreeNode("Joint", [ui.TreeNode("a"), ui.TreeNode("b & c")])])
    svg = ui.tree_svg(tree)
    assert svg.count('data-role="leaf"') == 3 and svg.count('data-role="node"') == 2
    assert "b &amp; c" in svg and 'stroke-dasharray' in svg


def test_score_html_carries_full_precision():
    result = MetricResult("toy", [1 / 3, float("nan")], 1 / 3, "toy|v:0")
    page = ui.score_html(result, ["a", "<b>"])
    assert f'data-value="{1 / 3!r}"' in page and "n/a" in page and "&lt;b&gt;" in page


# -- every app builds -------------------------------------------------------------------------
@pytest.mark.parametrize("name", APPS)
def test_app_builds_without_loading_models(name):
    app = publish.load_app(ROOT / "spaces" / name / "app.py")
    demo = app.build_demo(preload=False)
    assert isinstance(demo, gr.Blocks)
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"run", "score", "message", "batch-upload", "batch-download"} <= ids


def test_datscore_app_says_when_its_model_cannot_load(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    app = publish.load_app(ROOT / "spaces" / "datscore" / "app.py")
    demo = app.build_demo(options={"model": "facebook/m2m100_418M"})
    status = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "runtime")
    assert "could not be loaded" in status.value and "local directory" in status.value


@pytest.mark.parametrize("name", APPS)
def test_space_readme_and_requirements(name):
    readme = (ROOT / "spaces" / name / "README.md").read_text(encoding="utf-8")
    meta, body = publish.split_card(readme)
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    assert str(meta["sdk_version"]) == ui.GRADIO_SDK_VERSION
    assert meta["suggested_hardware"] and {"evaluate", "metric"} <= set(meta["tags"])
    assert len(meta["short_description"]) <= 60  # the Hub's limit
    assert "(screenshot.png)" in body
    requirements = (ROOT / "spaces" / name / "requirements.txt").read_text().split()
    assert any(r.startswith("nlgmetrics") and r.endswith("==" + __import__("nlgmetrics").__version__)
               for r in requirements)

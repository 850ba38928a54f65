"""Input validation shared by all metrics, MetricResult, signatures, the reduce contract."""
import json
import math
from typing import List

import pytest

from nlgmetrics.core.inputs import Inputs, Record, normalize_text, validate_inputs, validate_texts
from nlgmetrics.core.lexical import sentence_chrf
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer, mean_reduce, sort_records


class ChrfScorer(Scorer):
    """A toy scorer over the core, to test the base class."""

    name = "toy-chrf"

    def score_segments(self, inputs: Inputs) -> List[Record]:
        return [{"id": i, "score": sentence_chrf(h, r), "length": len(h)}
                for i, h, r in zip(inputs.ids, inputs.predictions, inputs.references)]

    def reduce_records(self, records: List[Record]) -> MetricResult:
        return mean_reduce(self, records)


def test_score_and_reduce_in_any_order():
    s = ChrfScorer()
    hyps, refs = ["the cat sat", "a dog", ""], ["the cat sat", "the dog", "nothing"]
    result = s.score(hyps, refs)
    assert result.scores[0] == pytest.approx(100.0)
    assert result.scores[2] == 0.0
    assert result.score == pytest.approx(sum(result.scores) / 3)
    assert result.details[1] == {"id": 1, "length": 5}
    records = s.score_segments(s.validate(hyps, refs))
    shuffled = s.reduce(list(reversed(records)))
    assert shuffled.scores == result.scores
    with pytest.raises(ValueError, match="appears twice"):
        s.reduce(records + records[:1])
    assert "toy-chrf" in str(result) and result.signature.startswith("toy-chrf|v:")


@pytest.mark.parametrize("preds, refs, message", [
    ("a single string", ["x"], "not a single str"),
    (["a", None], ["x", "y"], r"predictions\[1\] is None"),
    (["a", 3], ["x", "y"], r"predictions\[1\] must be a str"),
    (["a", "b"], ["x"], "equal lengths"),
    (["a"], ["x", "y"], "equal lengths"),
    (["a"], [None], r"references\[0\] is None"),
    (["a"], None, "references are required"),
    ({"a": 1}, ["x"], r"predictions must be an ordered sequence of strings .*got dict: a mapping"),
])
def test_bad_input_is_a_clear_value_error(preds, refs, message):
    with pytest.raises(ValueError, match=message):
        ChrfScorer().score(preds, refs)


def test_empty_corpus_and_unwanted_sources():
    with pytest.raises(ValueError, match="predictions is empty"):
        ChrfScorer().score([], [])
    with pytest.raises(ValueError, match="takes no sources"):
        ChrfScorer().score(["a"], ["b"], ["c"])


def test_multi_reference_validation():
    inp = validate_inputs(["a", "b"], [["x", "y"], "z"], multi_reference=True)
    assert inp.references == [["x", "y"], "z"]
    with pytest.raises(ValueError, match=r"references\[0\] is an empty list"):
        validate_inputs(["a"], [[]], multi_reference=True)
    with pytest.raises(ValueError, match=r"references\[0\]\[1\]"):
        validate_inputs(["a"], [["x", None]], multi_reference=True)


def test_tuples_and_numpy_arrays_are_accepted():
    np = pytest.importorskip("numpy")
    result = ChrfScorer().score(("a b", "c"), np.array(["a b", "c"]))
    assert result.scores == [100.0, 100.0]


def test_pandas_series_and_numpy_string_arrays_pair_in_order():
    """A Series pairs by position (not by its index); numpy ``str_`` items become ``str``."""
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    preds = pd.Series(["a b", "c d", "x"], index=[7, 2, 5])
    refs = np.array(["a b", "c e", "x"])
    result = ChrfScorer().score(preds, refs)
    assert result.scores == ChrfScorer().score(["a b", "c d", "x"], ["a b", "c e", "x"]).scores
    assert result.scores[0] == 100.0 and result.scores[1] < 100.0
    inp = validate_inputs(pd.Series(["a"]), np.array([["b", "c"]]), multi_reference=True)
    assert inp.predictions == ["a"] and inp.references == [["b", "c"]]
    assert all(type(t) is str for t in inp.predictions + inp.references[0])
    # a pandas string array and Index: ordered, with a length
    assert validate_texts(pd.array(["a", "b"], dtype="string"), "f") == ["a", "b"]
    assert validate_texts(pd.Index(["a", "b"]), "f") == ["a", "b"]


def _unordered_inputs():
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    return [
        ({"a b", "c d"}, "set", "no order"),
        (frozenset(["a b"]), "frozenset", "no order"),
        ({"a b": "c d"}, "dict", "mapping"),
        (pd.DataFrame({"prediction": ["a b", "c d"]}), "DataFrame", "column names"),
        ((t for t in ["a b", "c d"]), "generator", "no length"),
        (iter(["a b", "c d"]), "list_iterator", "no length"),
        (map(str, ["a b", "c d"]), "map", "no length"),
        (np.array("a b"), "ndarray", "0-dimensional"),
        (7, "int", "not an ordered sequence"),
    ]


@pytest.mark.parametrize("field", ["predictions", "references"])
def test_unordered_or_unsized_inputs_are_refused_naming_the_field_and_types(field):
    """Issue 37: ``score('sam', {'a b','c d'}, {'a b','c e'}, base='chrf')`` paired the sets in
    hash order and returned [25.0, 100.0]; a DataFrame was read as its column names."""
    for value, kind, why in _unordered_inputs():
        args = {"predictions": ["a b", "c d"], "references": ["a b", "c e"], field: value}
        with pytest.raises(ValueError, match=rf"^{field} must be an ordered sequence of strings \(a list, tuple, "
                                             rf"numpy array or pandas Series\), got {kind}: .*{why}"):
            ChrfScorer().score(**args)
    # a set as one segment's reference group, too
    with pytest.raises(ValueError, match=r"references\[0\] must be an ordered sequence.*got set"):
        validate_inputs(["a"], [{"b", "c"}], multi_reference=True)


def test_sets_are_refused_by_the_metrics_entry_point():
    import nlgmetrics

    with pytest.raises(ValueError, match="predictions must be an ordered sequence.*got set"):
        nlgmetrics.score("sam", {"a b", "c d"}, {"a b", "c e"}, base="chrf")
    assert nlgmetrics.score("sam", ["a b", "c d"], ["a b", "c e"], base="chrf").scores[0] == pytest.approx(100.0)


def test_result_json_has_no_nan():
    r = MetricResult("m", [1.0, float("nan")], float("nan"), "m|v:1", [{}, {}])
    payload = json.loads(r.to_json())
    assert payload["score"] is None and payload["scores"] == [1.0, None]
    assert "scores" not in r.to_dict(segments=False)
    assert math.isnan(r.score) and len(r) == 2


def test_result_json_is_strict_json_in_details_and_corpus_too():
    """NaN inside details and corpus (TextEval's r2 of a two-text set) was written as a bare
    NaN, which strict JSON parsers refuse (the Space's downloadable result used to_json)."""
    import numpy as np

    r = MetricResult("m", [1.0], 1.0, "m|v:1", [{"r2": float("nan"), "w": np.array([1.0, np.inf])}],
                     {"mean_r2": np.float64("nan"), "parts": (float("-inf"), 2.0)})
    text = r.to_json()
    payload = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c} in {text}"))
    assert payload["details"] == [{"r2": None, "w": [1.0, None]}]
    assert payload["corpus"] == {"mean_r2": None, "parts": [None, 2.0]}
    assert r.details[0]["r2"] != r.details[0]["r2"]  # the result itself keeps its NaN


def test_signatures_tell_close_floats_apart():
    """Floats were signed with :g (six significant digits): gamma 12.345671 and 12.345674 gave
    different scores under one signature."""
    import nlgmetrics
    from nlgmetrics.core.result import make_signature

    assert make_signature("m", "1", a=12.345671) != make_signature("m", "1", a=12.345674)
    assert make_signature("m", "1", a=0.07, b=1.0, c=1e6) == "m|a:0.07|b:1|c:1e+06|v:1"  # short forms kept
    sig = nlgmetrics.load("rome", profile="lite", component="emd", gamma=12.345671).signature
    assert "|gamma:12.345671|" in sig


def test_sort_records():
    assert [r["id"] for r in sort_records([{"id": 2}, {"id": 0}, {"id": 1}])] == [0, 1, 2]


def test_text_normalisation():
    # lone surrogates (either half, at either end) become U+FFFD, one per code unit
    assert normalize_text("a \ud800 b") == "a \ufffd b"
    assert normalize_text("\udfffx\ud83d") == "\ufffdx\ufffd"
    # a surrogate pair left as two code points is the character it encodes
    assert normalize_text("\ud83d\ude00!") == "\U0001f600!"
    # a BOM (zero-width no-break space) is removed wherever it stands
    assert normalize_text("\ufeffthe cat") == "the cat"
    assert normalize_text("a\ufeffb") == "ab"
    # NFC: a base letter and its combining mark are one character
    assert normalize_text("e\u0301") == "\u00e9"
    assert normalize_text("Zoe\u0308 visited Zu\u0308rich and Ma\u0301laga.") == "Zo\u00eb visited Z\u00fcrich and M\u00e1laga."
    # the invisible format characters go, joining their neighbours; no-break spaces are spaces
    assert normalize_text("ca\u200bt\u200c \u200dsat\u200e\u200f \u2060on\u00ad the\u202emat\u2066\u2069") == "cat sat on themat"
    assert normalize_text("a\u00a0b\u202fc\u2007d") == "a b c d"
    # a ZWJ emoji sequence reads as its emoji (documented in core/inputs.py)
    assert normalize_text("\U0001f468\u200d\U0001f469\u200d\U0001f467") == "\U0001f468\U0001f469\U0001f467"
    # a mark removed between a letter and a combining mark: they compose
    assert normalize_text("e\u200b\u0301") == "\u00e9"
    # everything else is left as it is (case, other spaces, controls, compatibility forms)
    for text in ["", "  The  Cat ", "\u00e9", "\x00\t\n", "\U0001f600", "\uff21\ufb01", "a\u2009b\u3000c", "\u2764\ufe0f"]:
        assert normalize_text(text) == text
    np = pytest.importorskip("numpy")
    assert type(normalize_text(np.str_("x"))) is str
    # every text of every field goes through it, multi-reference groups included
    inp = validate_inputs(["\ufeffa\ud800"], [["\ufeffb", "c\udc00"]], ["\ud800"], multi_reference=True,
                          sources_mode="optional")
    assert inp.predictions == ["a\ufffd"] and inp.references == [["b", "c\ufffd"]] and inp.sources == ["\ufffd"]
    assert validate_texts(["\ufeffx", "e\u0301\u200d"], "f") == ["x", "\u00e9"]
    for text in inp.predictions + inp.references[0] + inp.sources:
        text.encode("utf-8")  # valid Unicode now


def test_lone_surrogate_scores_like_its_replacement():
    s = ChrfScorer()
    bad = s.score(["the cat \ud800 sat", "\ufeffa dog"], ["the cat \ufffd sat", "a dog"])
    assert bad.scores == [pytest.approx(100.0), pytest.approx(100.0)]


def test_pipe_union_options_are_checked_like_optional_ones():
    """``int | None`` (PEP 604) is validated and named as ``Optional[int]`` is: RoMe's options
    are written that way, and were once accepted whatever their value."""
    from dataclasses import dataclass
    from typing import Optional

    from nlgmetrics.core.config import MetricConfig, option

    @dataclass(frozen=True)
    class PipeConfig(MetricConfig):
        label: int | None = option(None, "an index", low=0)
        name: str | None = option(None, "a name")
        old: Optional[int] = option(None, "an index, the older spelling", low=0)

    assert PipeConfig(label=2, name="x").label == 2 and PipeConfig().label is None
    from pathlib import Path

    assert PipeConfig(name=Path("/tmp") / "net.json").name == "/tmp/net.json"  # a path, as a string
    for bad, message in [({"label": -3}, "label must be >= 0"), ({"label": "abc"}, "label must be a number"),
                         ({"label": 2.7}, "label must be an integer"), ({"name": 123}, "name must be a string")]:
        with pytest.raises(ValueError, match=message):
            PipeConfig(**bad)
    names = {spec.name: spec.type_name() for spec in PipeConfig.specs()}
    from typing import Mapping

    @dataclass(frozen=True)
    class WeightsConfig(MetricConfig):
        weights: Optional[Mapping[str, float]] = option(None, "a weight per name")

    a, b = WeightsConfig(weights={"y": 0.5, "x": 1}), WeightsConfig(weights={"x": 1, "y": 0.5})
    assert a.signature_fields() == b.signature_fields() == {"weights": "x=1,y=0.5"}  # insertion order aside
    assert names["label"] == names["old"] == "int or None" and names["name"] == "str or None"

"""The evaluate wrappers' shared behaviour (nlgmetrics.integrations.evaluate.Metric), on a toy
metric and on the five real ones: named configurations checked (an unknown one lists the
configurations), bare strings refused before evaluate splits them into characters, per-call
inputs passed to the scorer, and every configuration field documented in the wrapper (the
documentation generated from the configuration, so the check is not a hand-kept list)."""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

import nlgmetrics
from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.inputs import Inputs, Record
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer

evaluate = pytest.importorskip("evaluate")

NAMES = sorted(nlgmetrics.REGISTRY)
HYPS = ["the cat sat on the mat", "a dog barked", "it rains"]
REFS = ["the cat sat on a mat", "the dog barked", "it is raining"]


@dataclass(frozen=True)
class WeightedConfig(MetricConfig):
    scale: float = option(1.0, "factor on the overlap", low=0.0, short="s")
    mode: str = option("words", "what overlaps", choices=("words", "chars"))


class ToyWeighted(Scorer):
    """Overlap of word (or character) sets times ``scale``, times an optional per-segment
    ``weights`` input: small enough to compute by hand."""

    name = "toyw"
    Config = WeightedConfig
    extra_inputs: ClassVar[dict[str, str]] = {"weights": "a factor per segment"}

    def check_extras(self, extras: dict[str, Any], n: int) -> dict[str, list[Any]]:
        if "weights" in extras and len(extras["weights"]) != n:
            raise ValueError(f"weights has {len(extras['weights'])} items but predictions has {n}")
        return {k: [float(x) for x in v] for k, v in extras.items()}

    def score_segments(self, inputs: Inputs) -> list[Record]:
        weights = inputs.extras.get("weights", [1.0] * len(inputs))
        out = []
        for i, h, r, w in zip(inputs.ids, inputs.predictions, inputs.references, weights):
            a, b = (set(h.split()), set(r.split())) if self.config.mode == "words" else (set(h), set(r))
            out.append({"id": i, "score": self.config.scale * w * len(a & b) / max(len(a | b), 1)})
        return out

    def reduce_records(self, records: list[Record]) -> MetricResult:
        scores = [r["score"] for r in records]
        return MetricResult(self.name, scores, sum(scores) / len(scores), self.signature,
                            [{} for _ in records], {})


WRAPPER = '''
"""Toy wrapper, shaped like metrics/<name>/<name>.py."""
import evaluate

from nlgmetrics.integrations import evaluate as support

_CONFIGS = {"default": {}, "big": {"scale": 2.0}, "chars": {"mode": "chars"}}
_KWARGS_DESCRIPTION = support.kwargs_description("toyw", configs=_CONFIGS, inputs="""\\
    predictions (list of str): hypotheses.
    references (list of str): references.
""", returns="""\\
    score (float): mean.
""", examples="""\\
    >>> 1 + 1
    2
""")


@evaluate.utils.file_utils.add_start_docstrings("Toy.", _KWARGS_DESCRIPTION)
class ToyW(support.Metric):
    metric_name = "toyw"
    CONFIGS = _CONFIGS
    DESCRIPTION, CITATION, KWARGS_DESCRIPTION = "Toy.", "", _KWARGS_DESCRIPTION
'''


@pytest.fixture
def toy(monkeypatch, tmp_path):
    """The toy metric registered and its wrapper folder written: path of the folder."""
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toyw", (__name__, "ToyWeighted"))
    folder = tmp_path / "toyw"
    folder.mkdir()
    (folder / "toyw.py").write_text(textwrap.dedent(WRAPPER))
    return str(folder)


def jaccard(h: str, r: str) -> float:
    a, b = set(h.split()), set(r.split())
    return len(a & b) / len(a | b)


def test_compute_equals_hand_computed_scores_and_presets_apply(toy):
    out = evaluate.load(toy).compute(predictions=HYPS, references=REFS)
    expected = [jaccard(h, r) for h, r in zip(HYPS, REFS)]
    assert out["scores"] == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx([5 / 6, 2 / 4, 1 / 4])  # e.g. {it} of {it, rains, is, raining}
    big = evaluate.load(toy, "big").compute(predictions=HYPS, references=REFS)
    assert big["scores"] == pytest.approx([2 * s for s in expected], abs=1e-12)
    assert "|s:2|" in big["signature"] and "|s:" not in out["signature"]
    # a per-call option overrides the preset
    again = evaluate.load(toy, "big").compute(predictions=HYPS, references=REFS, scale=3.0)
    assert again["scores"] == pytest.approx([3 * s for s in expected], abs=1e-12)


def test_unknown_configuration_lists_the_configurations(toy):
    with pytest.raises(ValueError, match="unknown configuration 'bigg' for toyw; the configurations are: default, big, chars"):
        evaluate.load(toy, "bigg")


def test_a_preset_with_an_unknown_option_fails_at_load(toy, monkeypatch):
    script = Path(toy, "toyw.py")
    script.write_text(script.read_text().replace('{"scale": 2.0}', '{"scal": 2.0}'))
    with pytest.raises(ValueError, match="unknown option 'scal'; the options are: scale, mode"):
        evaluate.load(toy, "big")


@pytest.mark.parametrize("kwargs, message", [
    ({"predictions": "the cat sat", "references": "the cat sat"},
     r"predictions must be a list of strings, not a single str; wrap it in \[...\]"),
    ({"predictions": ["the cat sat"], "references": "the cat sat"},
     r"references must be a list of strings, not a single str"),
    ({"predictions": ["a", None], "references": ["a", "b"]}, r"predictions\[1\] is None"),
    ({"predictions": ["a", 3], "references": ["a", "b"]}, r"predictions\[1\] must be a str, got int"),
])
def test_bad_texts_get_the_cores_errors(toy, kwargs, message):
    module = evaluate.load(toy)
    with pytest.raises(ValueError, match=message):
        module.compute(**kwargs)
    with pytest.raises(ValueError, match=message):
        module.add_batch(**kwargs)


def test_add_batch_then_compute_equals_one_compute(toy):
    module = evaluate.load(toy)
    module.add_batch(predictions=HYPS[:2], references=REFS[:2])
    module.add_batch(predictions=HYPS[2:], references=REFS[2:])
    assert module.compute()["scores"] == pytest.approx([jaccard(h, r) for h, r in zip(HYPS, REFS)])


def test_per_call_inputs_reach_the_scorer(toy):
    module = evaluate.load(toy)
    out = module.compute(predictions=HYPS, references=REFS, weights=[1.0, 0.5, 0.0])
    assert out["scores"] == pytest.approx([5 / 6, 0.25, 0.0], abs=1e-12)
    with pytest.raises(ValueError, match="weights has 2 items but predictions has 3"):
        module.compute(predictions=HYPS, references=REFS, weights=[1.0, 0.5])


def test_unknown_option_lists_the_options(toy):
    with pytest.raises(ValueError, match="unknown option 'scal'; the options are: scale, mode"):
        evaluate.load(toy).compute(predictions=HYPS, references=REFS, scal=2.0)
    with pytest.raises(ValueError, match="unknown mode 'lines'; choose one of words, chars"):
        evaluate.load(toy).compute(predictions=HYPS, references=REFS, mode="lines")


def test_generated_documentation_names_every_field_extra_and_configuration(toy):
    module = evaluate.load(toy)
    doc = module.inputs_description
    for spec in WeightedConfig.specs():
        assert f"    {spec.name} ({spec.type_name()}, default" in doc
    assert "one of words, chars" in doc and "    weights (list of float, optional): a factor per segment" in doc
    assert "    big: scale=2.0" in doc and "    default: the defaults" in doc
    assert doc == type(module).KWARGS_DESCRIPTION and doc in type(module).__doc__


# -- the five real wrappers -----------------------------------------------------------------
def migrated(name: str) -> type:
    """The metric's scorer class, or skip while it is not on the configuration API (its
    module then fails to import, or it declares no Config)."""
    try:
        cls = nlgmetrics.scorer_class(name)
    except TypeError as err:
        pytest.skip(f"{name} is not on the configuration API yet: {err}")
    if cls.Config is MetricConfig:
        pytest.skip(f"{name} declares no Config yet")
    return cls


@pytest.mark.parametrize("name", NAMES)
def test_every_configuration_field_is_in_the_wrappers_documentation(name):
    cls = migrated(name)
    module = evaluate.load(nlgmetrics.metric_path(name))
    doc = type(module).__doc__
    for spec in cls.Config.specs():
        assert f"\n    {spec.name} ({spec.type_name()}, default" in doc, spec.name
        assert spec.doc in doc
    for extra in cls.extra_inputs:
        assert f"\n    {extra} (" in doc


@pytest.mark.parametrize("name", NAMES)
def test_every_named_configuration_is_valid_and_unknown_ones_fail(name):
    migrated(name)
    path = nlgmetrics.metric_path(name)
    module = evaluate.load(path)
    configs = type(module).CONFIGS
    assert next(iter(configs)) == "default" and configs["default"] == {}
    from nlgmetrics.integrations import evaluate as evaluate_support

    for config_name in configs:
        evaluate_support.config_options(name, config_name, configs)  # validated by the Config
    with pytest.raises(ValueError, match=f"the configurations are: {', '.join(configs)}"):
        evaluate.load(path, "no-such-configuration")


@pytest.mark.parametrize("name", NAMES)
def test_bare_strings_are_refused_by_every_wrapper(name):
    migrated(name)
    module = evaluate.load(nlgmetrics.metric_path(name))
    with pytest.raises(ValueError, match="predictions must be a list of strings, not a single str"):
        module.compute(**{field: "the cat sat" for field in module._feature_names()})


# -- the evaluate path scores what the core scores ------------------------------------------
#: a cheap offline configuration of each wrapper, and the options added to it
CHEAP = {"datscore": ("default", {"max_new_tokens": 8, "source_lang": "fr", "quiet": True}),
         "discotk": ("light", {}), "rome": ("lite-emd", {}), "sam": ("chrf", {}), "texteval": ("words", {})}
MULTI_REFERENCE = [name for name in NAMES if nlgmetrics.scorer_class(name).multi_reference]


def cheap(name: str, request: pytest.FixtureRequest) -> tuple[Any, Any, dict[str, Any]]:
    """The wrapper in its cheap configuration, the core scorer with the same options, and the
    per-call options (DATScore: the tiny local model)."""
    config, options = CHEAP[name]
    if name == "datscore":
        options = dict(options, model=request.getfixturevalue("tiny_m2m100"))
    module = evaluate.load(nlgmetrics.metric_path(name), config)
    core = nlgmetrics.load(name, **type(module).CONFIGS[config], **options)
    return module, core, options


def test_every_multi_reference_metric_has_a_cheap_configuration():
    assert set(MULTI_REFERENCE) >= {"rome", "texteval"} and set(CHEAP) == set(NAMES)


@pytest.mark.parametrize("name", MULTI_REFERENCE)
@pytest.mark.parametrize("references", [
    [["a cat sat", "the cat sat on the mat"], "a dog barked", "it is raining"],   # a list first
    ["the cat sat on the mat", ["a dog barked", "a dog"], "it is raining"],       # a string first
], ids=["list-first", "string-first"])
def test_mixed_references_give_the_cores_scores(name, references, request):
    module, core, options = cheap(name, request)
    expected = core.score(HYPS, references).scores
    assert module.compute(predictions=HYPS, references=references, **options)["scores"] == pytest.approx(expected)
    # in batches of different shapes: plain strings, then lists; and one at a time
    module.add_batch(predictions=HYPS[:1], references=["the cat sat on the mat"])
    module.add_batch(predictions=HYPS[1:], references=[["a dog barked", "a dog"], ["it is raining"]])
    two = core.score(HYPS, ["the cat sat on the mat", ["a dog barked", "a dog"], ["it is raining"]]).scores
    assert module.compute(**options)["scores"] == pytest.approx(two)
    module.add_batch(predictions=HYPS[:2], references=references[:2])
    module.add_batch(predictions=HYPS[2:], references=references[2:])
    assert module.compute(**options)["scores"] == pytest.approx(expected)
    for prediction, reference in zip(HYPS, references):
        module.add(prediction=prediction, reference=reference)
    assert module.compute(**options)["scores"] == pytest.approx(expected)


def test_mixed_references_change_rome_as_the_core_says():
    """The case of the report: a string beside lists was split into characters (0.07), a list
    beside strings read as one string "['a dog barked', 'x']" (0.70); the core gives 1.0."""
    module = evaluate.load(nlgmetrics.metric_path("rome"), "lite-emd")
    for references in ([["a cat sat", "the cat sat on the mat"], "a dog barked"],
                       ["the cat sat on the mat", ["a dog barked", "x"]]):
        assert module.compute(predictions=HYPS[:2], references=references)["scores"][1] == pytest.approx(1.0)


@pytest.mark.filterwarnings("ignore::UserWarning")  # DATScore's and DiscoTK's notes on two segments
@pytest.mark.parametrize("name,field", [(name, field) for name in NAMES for field in ("predictions", "references")]
                         + [("datscore", "sources")])  # the one metric that takes sources
def test_lone_surrogates_are_replaced_as_in_the_core(name, field, request):
    module, core, options = cheap(name, request)
    assert field in module._feature_names()
    texts = {"predictions": ["the cat sat on the mat", "a dog barked"], "references": ["the cat sat on a mat", "the dog barked"],
             "sources": ["le chat est assis", "un chien a aboy\u00e9"]}
    texts[field] = ["\ud800 " + texts[field][0], texts[field][1] + " \ud83d\ude00 \udfff"]  # lone; a split pair
    if name in MULTI_REFERENCE:
        texts["references"] = [[r, "a cat"] for r in texts["references"]]
    inputs = {k: v for k, v in texts.items() if k in module._feature_names()}
    expected = core.score(**inputs).scores
    assert module.compute(**inputs, **options)["scores"] == pytest.approx(expected)
    for i in range(2):
        module.add_batch(**{k: v[i:i + 1] for k, v in inputs.items()})
    assert module.compute(**options)["scores"] == pytest.approx(expected)


def test_an_option_named_like_evaluates_own_argument_warns_at_load(tmp_path):
    """DATScore's cache_dir (its translation cache) is also evaluate.load's cache_dir (the Arrow
    data directory): evaluate takes it, silently before; now a warning says it does not reach
    the scorer."""
    path = Path(__file__).resolve().parents[2] / "metrics" / "datscore"
    with pytest.warns(UserWarning, match="cache_dir given to evaluate.load is evaluate's own argument and does "
                                         "not reach datscore's option"):
        module = evaluate.load(str(path), "reference", cache_dir=str(tmp_path))
    assert "cache_dir" not in module.preset

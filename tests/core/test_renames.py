"""0.2.0 renames: the old names raise an error naming the new one (for one release)."""
from dataclasses import dataclass

import pytest

import nlgmetrics
from nlgmetrics.core.config import MetricConfig, option


def test_old_method_names_raise_naming_the_new_ones():
    config = nlgmetrics.scorer_class("sam").Config()
    with pytest.raises(TypeError, match=r"renamed to unused_options\(\)"):
        config.inert()
    assert config.unused_options() == {"profile", "dtype"}


def test_overriding_an_old_name_is_refused():
    with pytest.raises(TypeError, match="unused_options"):
        @dataclass(frozen=True)
        class Old(MetricConfig):
            x: int = option(1, "x")

            def inert(self) -> frozenset:
                return frozenset()


def test_old_class_names_raise_naming_the_new_ones():
    with pytest.raises(ImportError, match="renamed to ArgumentSyntax"):
        from nlgmetrics.core.inputs import Spelling  # noqa: F401

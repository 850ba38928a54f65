"""Nothing was released, so nothing keeps a never-released name alive: an old option, method or
class name fails as any unknown one does (no rename tables, no raising stand-ins)."""
import pytest

import nlgmetrics
from nlgmetrics.core import inputs
from nlgmetrics.core.config import MetricConfig


def test_no_rename_tables_or_stand_ins():
    assert not hasattr(MetricConfig, "RENAMED") and not hasattr(MetricConfig, "inert")
    assert not any(hasattr(nlgmetrics.scorer_class(name).Config, "RENAMED") for name in nlgmetrics.REGISTRY)
    assert not hasattr(inputs, "__getattr__")  # the module-level hook that refused old names
    import nlgmetrics.texteval as texteval

    assert not hasattr(texteval, "MODELS")


@pytest.mark.parametrize("metric, old", [("sam", "tagger"), ("rome", "ted_normalisation"), ("texteval", "model")])
def test_an_old_option_name_is_an_unknown_option(metric, old):
    with pytest.raises(ValueError, match=f"unknown option '{old}'; the options are: "):
        nlgmetrics.scorer_class(metric).Config.from_options(**{old: "x"})

"""Options and inputs of the evaluate wrappers (nlgmetrics.evaluate_support.Metric) beyond the
shared behaviour in test_evaluate_wrappers: options given at load, the module's name, errors
raised before evaluate drops the added batches, and missing fields."""
from __future__ import annotations

import pytest

import nlgmetrics

evaluate = pytest.importorskip("evaluate")

HYPS = ["the cat sat on the mat", "a dog barked"]
REFS = ["the cat sat on a mat", "the dog barked"]


@pytest.fixture(scope="module")
def emd_core():
    return nlgmetrics.load("rome", profile="lite", component="emd")


def test_options_given_at_load_apply_on_top_of_the_preset(emd_core):
    """evaluate.load(path, "lite", component="emd") used to score the full network silently."""
    module = evaluate.load(nlgmetrics.metric_path("rome"), "lite", component="emd")
    out = module.compute(predictions=HYPS, references=REFS)
    assert out["scores"] == pytest.approx(emd_core.score(HYPS, REFS).scores)
    assert out["signature"] == emd_core.signature
    assert module.preset == {"profile": "lite", "component": "emd"}


def test_bad_options_at_load_are_refused_at_load():
    with pytest.raises(ValueError, match="unknown option 'componnet'; the options are:"):
        evaluate.load(nlgmetrics.metric_path("rome"), "lite", componnet="emd")
    with pytest.raises(ValueError, match=r"base_scores is a per-segment input: pass it to compute\(\.\.\.\)"):
        evaluate.load(nlgmetrics.metric_path("sam"), "given", base_scores=[0.5])

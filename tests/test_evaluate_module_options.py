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


@pytest.fixture(scope="module")
def word_tok():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"the": 0, "a": 1, "cat": 2, "sat": 3, "</s>": 4, "dog": 5, "barked": 6, "on": 7, "mat": 8}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="the"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=raw, eos_token="</s>")


@pytest.mark.parametrize("name", sorted(nlgmetrics.REGISTRY))
def test_the_modules_name_is_the_metrics_name(name):
    """evaluate named the modules after their classes: ro_me, dat_score, disco_tk, text_eval."""
    assert evaluate.load(nlgmetrics.metric_path(name)).name == name


def test_the_hook_logs_an_evaluate_module_under_the_metrics_name(word_tok, emd_core):
    import numpy as np

    hyps = refs = ["the cat sat on the mat", "a dog barked"]
    enc = word_tok(hyps)["input_ids"]
    ids = np.array([row + [-100] * (6 - len(row)) for row in enc])
    module = evaluate.load(nlgmetrics.metric_path("rome"), "lite-emd")
    got = nlgmetrics.compute_metrics_fn(module, word_tok)((ids, ids))
    assert got == {"rome": pytest.approx(emd_core.score(hyps, refs).score)}
    combined = evaluate.combine([evaluate.load(nlgmetrics.metric_path("rome"), "lite-emd"),
                                 evaluate.load(nlgmetrics.metric_path("texteval"), "words")])
    out = combined.compute(predictions=hyps, references=refs)
    assert "rome_score" in out and "texteval_score" in out
    got = nlgmetrics.compute_metrics_fn(combined, word_tok)((ids, ids))
    assert got == {"rome": pytest.approx(out["rome_score"]), "texteval": pytest.approx(out["texteval_score"])}

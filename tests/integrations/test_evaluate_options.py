"""Options and inputs of the evaluate wrappers (nlgmetrics.integrations.evaluate.Metric) beyond the
shared behaviour in test_evaluate_wrappers: options given at load, the module's name, errors
raised before evaluate drops the added batches, and missing fields."""
from __future__ import annotations

from pathlib import Path

import pytest

import nlgmetrics

evaluate = pytest.importorskip("evaluate")

#: this checkout's wrappers (an editable install elsewhere may map metric_path to its own copy)
METRICS = Path(__file__).resolve().parents[2] / "metrics"


def metric_path(name: str) -> str:
    assert (METRICS / name / f"{name}.py").is_file()
    return str(METRICS / name)

HYPS = ["the cat sat on the mat", "a dog barked"]
REFS = ["the cat sat on a mat", "the dog barked"]


@pytest.fixture(scope="module")
def emd_core():
    return nlgmetrics.load("rome", profile="lite", component="emd")


def test_options_given_at_load_apply_on_top_of_the_preset(emd_core):
    """evaluate.load(path, "lite", component="emd") used to score the full network silently."""
    module = evaluate.load(metric_path("rome"), "lite", component="emd")
    out = module.compute(predictions=HYPS, references=REFS)
    assert out["scores"] == pytest.approx(emd_core.score(HYPS, REFS).scores)
    assert out["signature"] == emd_core.signature
    assert module.preset == {"profile": "lite", "component": "emd"}


def test_bad_options_at_load_are_refused_at_load():
    with pytest.raises(ValueError, match="unknown option 'componnet'; the options are:"):
        evaluate.load(metric_path("rome"), "lite", componnet="emd")
    with pytest.raises(ValueError, match=r"base_scores is a per-segment input: pass it to compute\(\.\.\.\)"):
        evaluate.load(metric_path("sam"), "given", base_scores=[0.5])


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
    assert evaluate.load(metric_path(name)).name == name


def test_the_hook_logs_an_evaluate_module_under_the_metrics_name(word_tok, emd_core):
    import numpy as np

    hyps = refs = ["the cat sat on the mat", "a dog barked"]
    enc = word_tok(hyps)["input_ids"]
    ids = np.array([row + [-100] * (6 - len(row)) for row in enc])
    module = evaluate.load(metric_path("rome"), "lite-emd")
    got = nlgmetrics.compute_metrics_fn(module, word_tok)((ids, ids))
    assert got == {"rome": pytest.approx(emd_core.score(hyps, refs).score)}
    combined = evaluate.combine([evaluate.load(metric_path("rome"), "lite-emd"),
                                 evaluate.load(metric_path("texteval"), "words")])
    out = combined.compute(predictions=hyps, references=refs)
    assert "rome_score" in out and "texteval_score" in out
    got = nlgmetrics.compute_metrics_fn(combined, word_tok)((ids, ids))
    assert got == {"rome": pytest.approx(out["rome_score"]), "texteval": pytest.approx(out["texteval_score"])}


def test_a_bad_compute_option_after_add_batch_keeps_the_batches():
    """compute(bse=1) failed inside _compute after evaluate had dropped the added batches; the
    retry said "Evaluation module cache file doesn't exist"."""
    module = evaluate.load(metric_path("texteval"), "words")
    module.add_batch(predictions=HYPS, references=REFS)
    with pytest.raises(ValueError, match="unknown option 'bse'; the options are:"):
        module.compute(bse=1)
    with pytest.raises(ValueError, match="ngram must be a number"):
        module.compute(ngram="x")
    expected = nlgmetrics.score("texteval", HYPS, REFS, features="words").scores
    assert module.compute()["scores"] == pytest.approx(expected)


def test_bad_per_segment_inputs_at_compute_keep_the_batches():
    module = evaluate.load(metric_path("sam"), "chrf")
    module.add_batch(predictions=HYPS, references=REFS)
    with pytest.raises(ValueError, match="base_scores has 1 items but predictions has 2"):
        module.compute(base_scores=[0.5])
    with pytest.raises(ValueError, match=r"base_scores\[1\]"):
        module.compute(base_scores=[0.5, 7.0])
    with pytest.raises(ValueError, match="base_scores must be a list of numbers"):
        module.compute(base_scores="0.5")
    for unordered in ({0.5, 0.25}, (x for x in (0.5, 0.25))):  # the core's rule (issue 44): no set, no generator
        with pytest.raises(ValueError, match="^base_scores must be an ordered sequence of numbers .*got (set|generator)"):
            module.compute(base_scores=unordered)
    out = module.compute(base_scores=[0.5, 0.25])
    expected = nlgmetrics.score("sam", HYPS, REFS, base="given", base_scores=[0.5, 0.25]).scores
    assert out["scores"] == pytest.approx(expected)
    # with the texts in the call, the length counts them (and nothing added before)
    with pytest.raises(ValueError, match="base_scores has 3 items but predictions has 2"):
        module.compute(predictions=HYPS, references=REFS, base_scores=[0.5, 0.25, 0.1])
    assert module.compute(predictions=HYPS, references=REFS, base_scores=[0.5, 0.25])["scores"] == pytest.approx(expected)


def test_a_missing_text_column_is_named():
    """compute(predictions=[...], references=None) failed with a TypeError inside evaluate;
    add(prediction=None, ...) with evaluate's format message."""
    module = evaluate.load(metric_path("texteval"), "words")
    with pytest.raises(ValueError, match="references is None but predictions is given; pass references too"):
        module.compute(predictions=["a"], references=None)
    with pytest.raises(ValueError, match="predictions is None but references is given"):
        module.add_batch(references=["a"])
    with pytest.raises(ValueError, match="prediction is None; pass an empty string for an empty text"):
        module.add(prediction=None, reference="x")
    with pytest.raises(ValueError, match="reference is None; pass an empty string"):
        module.add(prediction="x")
    datscore = evaluate.load(metric_path("datscore"))  # takes sources
    with pytest.raises(ValueError, match="sources is None but predictions is given"):
        datscore.add_batch(predictions=["a"], references=["b"])
    with pytest.raises(ValueError, match="source is None; pass an empty string"):
        datscore.add(prediction="a", reference="b", sources=None)
    module.add(prediction="a b", reference="a b")  # the module still works
    assert module.compute()["scores"] == pytest.approx(nlgmetrics.score("texteval", ["a b"], ["a b"], features="words").scores)

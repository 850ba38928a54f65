"""evaluate's ``Evaluator`` (``evaluate.evaluator(task).compute(model_or_pipeline=..., data=...,
metric=module)``) with each of the five modules, on a tiny local M2M-100 (tests/tiny_models.py)
and a tiny Dataset built here.

- Under transformers < 5 (the ``evaluator`` extra; the default install has transformers 5, so
  these skip there with the reason): the ``text2text-generation``, ``summarization`` and
  ``translation`` evaluators give the core's scores on the pipeline's outputs, and with
  ``strategy="bootstrap"`` (the module loaded with ``numbers_only=True``: evaluate bootstraps
  every key of the result, and a per-segment list or the signature is no number) scipy's
  bootstrap of the core's corpus score.
- Under any transformers: what the README promises instead, outputs generated without a
  pipeline scored by ``compute`` and bootstrapped by evaluate's own ``compute_metric``; under
  transformers 5, the Evaluator's tasks are gone (the error the README names).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import nlgmetrics

evaluate = pytest.importorskip("evaluate")
transformers = pytest.importorskip("transformers")
scipy_stats = pytest.importorskip("scipy.stats")

ROOT = Path(__file__).resolve().parents[2]
TRANSFORMERS_5 = int(transformers.__version__.split(".")[0]) >= 5
NEEDS_4 = pytest.mark.skipif(TRANSFORMERS_5, reason=f"evaluate's Evaluator builds text2text-generation, summarization "
                             f"and translation pipelines, which transformers 5 removed (installed: "
                             f"{transformers.__version__}); pip install 'nlgmetrics[evaluator]' runs these")
TEXTS = ["the cat sat on the mat", "a dog barked at the postman", "it rains today in paris", "she reads a book"]
LABELS = ["the cat sat on a mat", "the dog barked", "it is raining in paris today", "she is reading a book"]
#: the Evaluator's tasks, the pipeline's arguments and the key of its outputs
TASKS = {"text2text-generation": ({}, "generated_text"), "summarization": ({}, "summary_text"),
         "translation": ({"src_lang": "fr", "tgt_lang": "en"}, "translation_text")}
#: a cheap offline configuration of each module and the options loaded with it (DATScore: one
#: without sources, which the Evaluator does not pass; its model is the tiny one)
CHEAP = {"datscore": ("reference", {"max_new_tokens": 8, "source_lang": "fr"}), "discotk": ("light", {}),
         "rome": ("lite-emd", {}), "sam": ("chrf", {}), "texteval": ("words", {})}
GENERATION = {"max_new_tokens": 6, "no_repeat_ngram_size": 1}  # the random model repeats a token otherwise
RESAMPLES = 9


@pytest.fixture(scope="module")
def tiny(tiny_m2m100, one_torch_thread):
    return tiny_m2m100


def load(name: str, tiny_path: str, **switches) -> tuple:
    """The module in its cheap configuration, and the same options for the core."""
    config, options = CHEAP[name]
    if name == "datscore":
        options = dict(options, model=tiny_path)
    module = evaluate.load(str(ROOT / "metrics" / name), config, quiet=True, **options, **switches)
    return module, {**type(module).CONFIGS[config], **options, "quiet": True}


def core(name: str, options: dict, predictions, references):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DiscoTK's note on few segments
        return nlgmetrics.score(name, [str(p) for p in predictions], [str(r) for r in references], **options)


def bootstrap_of_the_core(name: str, options: dict, predictions, references) -> tuple:
    """scipy's bootstrap of the core's corpus score, drawn as evaluate draws (its
    ``Evaluator._compute_confidence_interval``: references then predictions, paired, seed 0)."""
    result = scipy_stats.bootstrap([list(references), list(predictions)],
                                   lambda r, p: core(name, options, p, r).score, paired=True, vectorized=False,
                                   n_resamples=RESAMPLES, random_state=0)
    return (result.confidence_interval.low, result.confidence_interval.high), result.standard_error


def assert_bootstrap(got: dict, name: str, options: dict, predictions, references, score: float) -> None:
    assert set(got) == {"score"}  # only the numbers: no per-segment list, no signature
    interval, error = bootstrap_of_the_core(name, options, predictions, references)
    assert got["score"]["score"] == pytest.approx(score, abs=1e-12)
    np.testing.assert_allclose(got["score"]["confidence_interval"], interval, rtol=1e-9, equal_nan=True)
    np.testing.assert_allclose(got["score"]["standard_error"], error, rtol=1e-9, equal_nan=True)
    assert np.isfinite(error) and error > 0  # the outputs differ: the resampled scores do too


@pytest.fixture(scope="module")
def generated(tiny):
    """Outputs of the tiny model generated without a pipeline (the README's way under
    transformers 5), greedy. The random model favours M2M-100's language tokens (``__hi__``),
    which transformers 5 no longer counts as special (``skip_special_tokens`` keeps them):
    they are not generated, so the outputs are words, different for each text."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny)
    model = AutoModelForSeq2SeqLM.from_pretrained(tiny).eval()
    languages = sorted(set(tokenizer.lang_code_to_id.values()))
    with torch.no_grad():
        ids = model.generate(**tokenizer(TEXTS, return_tensors="pt", padding=True), do_sample=False,
                             suppress_tokens=languages, **GENERATION)
    outputs = [text.strip() for text in tokenizer.batch_decode(ids, skip_special_tokens=True)]
    assert len(set(outputs)) == len(outputs) and all(outputs)  # e.g. "ynno est le园", "yn est leSfi"
    return outputs


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(CHEAP))
def test_generated_outputs_score_and_bootstrap_as_the_core(name, tiny, generated):
    """The alternative under transformers 5: ``compute`` on the generated outputs, and
    evaluate's bootstrap (the Evaluator's ``compute_metric``, which needs no pipeline) on a
    module loaded with ``numbers_only=True``."""
    from evaluate.evaluator import Text2TextGenerationEvaluator

    module, options = load(name, tiny)
    out = module.compute(predictions=generated, references=LABELS)
    expected = core(name, options, generated, LABELS)
    assert out["scores"] == pytest.approx(expected.scores, abs=1e-12) and out["signature"] == expected.signature
    score = expected.score
    numbers, _ = load(name, tiny, numbers_only=True)
    got = Text2TextGenerationEvaluator().compute_metric(
        numbers, {"references": LABELS, "predictions": generated}, strategy="bootstrap", n_resamples=RESAMPLES,
        random_state=0)
    assert_bootstrap(got, name, options, generated, LABELS, score)


@pytest.mark.skipif(not TRANSFORMERS_5, reason="the tasks exist under transformers < 5")
@pytest.mark.parametrize("task", sorted(TASKS))
def test_under_transformers_5_the_evaluators_tasks_are_gone(task):
    """What the README says: evaluate 0.4's Evaluator cannot build these pipelines under
    transformers 5 (when this fails, evaluate or transformers changed: update the README)."""
    with pytest.raises(KeyError, match=f"The task {task} has been removed from transformers"):
        evaluate.evaluator(task)


def test_the_evaluator_extra_bounds_transformers_below_5():
    """``pip install "nlgmetrics[evaluator]"`` (the README's way to the Evaluator) gives
    transformers < 5; the default install and ``all`` keep transformers 5 (gradio needs it)."""
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    extras = config["options.extras_require"]
    assert extras["evaluator"].split() == ["transformers>=4.40,<5"]
    assert "transformers>=4.40" in config["options"]["install_requires"].split()
    assert "transformers>=4.40,<5" not in extras["all"].split()


@NEEDS_4
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(CHEAP))
@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_evaluator_runs_every_module(task, name, tiny):
    import datasets
    from transformers import pipeline

    arguments, key = TASKS[task]
    pipe = pipeline(task, model=tiny, **arguments)
    data = datasets.Dataset.from_dict({"text": TEXTS, "label": LABELS})
    predictions = [o[key] for o in pipe(TEXTS, truncation=True, **GENERATION)]
    assert len(set(predictions)) == len(predictions)
    evaluator = evaluate.evaluator(task)
    module, options = load(name, tiny)
    out = evaluator.compute(model_or_pipeline=pipe, data=data, metric=module, generation_kwargs=GENERATION)
    expected = core(name, options, predictions, LABELS)
    assert out["scores"] == pytest.approx(expected.scores, abs=1e-12) and out["signature"] == expected.signature
    score = expected.score
    assert out["score"] == pytest.approx(score, abs=1e-12)
    numbers, _ = load(name, tiny, numbers_only=True)
    got = evaluator.compute(model_or_pipeline=pipe, data=data, metric=numbers, generation_kwargs=GENERATION,
                            strategy="bootstrap", n_resamples=RESAMPLES, random_state=0)
    assert_bootstrap({"score": got["score"]}, name, options, predictions, LABELS, score)

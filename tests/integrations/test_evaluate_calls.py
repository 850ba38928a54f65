"""A ``compute`` call of an evaluate module is a value: resolved once by the front door
(``nlgmetrics.registry.resolve``: one configuration built), handed to ``_compute`` and the scorer
(``registry.load_call``) as such, never kept on the module; the module looks its scorer class up
once, when loaded. Also ``numbers_only`` (the output evaluate's Evaluator can bootstrap) and the
install step, which finds the wrapper scripts without importing them."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import registry
from nlgmetrics.core.call import Call
from nlgmetrics.core.config import MetricConfig
from nlgmetrics.integrations import evaluate_install

evaluate = pytest.importorskip("evaluate")

ROOT = Path(__file__).resolve().parents[2]
HYPS = ["the cat sat on the mat", "a dog barked", "it rains"]
REFS = ["the cat sat on a mat", "the dog barked", "it is raining"]


def metric_path(name: str) -> str:
    """This checkout's wrapper folder (an editable install elsewhere may map metric_path to its own)."""
    assert (ROOT / "metrics" / name / f"{name}.py").is_file()
    return str(ROOT / "metrics" / name)


@pytest.fixture
def counts(monkeypatch):
    """Counters of the front door's calls (and the calls it returned), scorer-class look-ups, configuration builds (through
    ``from_options`` and any ``__init__``: ``__post_init__``) and the calls given to load_call."""
    seen: dict = {"resolve": 0, "calls": [], "scorer_class": 0, "from_options": 0, "post_init": 0, "load_call": []}
    resolve, scorer_class, load_call = registry.resolve, registry.scorer_class, registry.load_call
    from_options, post_init = MetricConfig.from_options.__func__, MetricConfig.__post_init__

    def counted_resolve(*args, **kwargs):
        seen["resolve"] += 1
        call = resolve(*args, **kwargs)
        seen["calls"].append(call)
        return call

    def counted_class(*args, **kwargs):
        seen["scorer_class"] += 1
        return scorer_class(*args, **kwargs)

    def counted_load(call, **kwargs):
        seen["load_call"].append(call)
        return load_call(call, **kwargs)

    def counted_options(cls, **options):
        seen["from_options"] += 1
        return from_options(cls, **options)

    def counted_post_init(self):
        seen["post_init"] += 1
        post_init(self)

    monkeypatch.setattr(registry, "resolve", counted_resolve)
    monkeypatch.setattr(registry, "scorer_class", counted_class)
    monkeypatch.setattr(registry, "load_call", counted_load)
    monkeypatch.setattr(MetricConfig, "from_options", classmethod(counted_options))
    monkeypatch.setattr(MetricConfig, "__post_init__", counted_post_init)

    def reset() -> dict:
        out = {k: (list(v) if isinstance(v, list) else v) for k, v in seen.items()}
        seen.update(resolve=0, calls=[], scorer_class=0, from_options=0, post_init=0, load_call=[])
        return out

    return reset


def no_call_kept(module) -> bool:
    return not any(isinstance(v, Call) for v in vars(module).values())


def test_one_compute_resolves_once_and_builds_one_configuration(counts):
    """On main a compute of SAM-chrF looked the scorer class up six times and handed the call
    over in ``self._call``; now the front door's look-up is the only one."""
    module = evaluate.load(metric_path("sam"), "chrf")
    expected = nlgmetrics.score("sam", HYPS, REFS, base="chrf", quiet=True)
    for options in ({}, {"eps_smoothing": True}):
        counts()
        out = module.compute(predictions=HYPS, references=REFS, quiet=True, **options)
        seen = counts()
        assert (seen["resolve"], seen["from_options"], seen["post_init"], seen["scorer_class"]) == (1, 1, 1, 1)
        assert len(seen["load_call"]) == 1 and seen["load_call"][0] is seen["calls"][0]
        assert seen["calls"][0].config.base == "chrf" and seen["calls"][0].config.eps_smoothing is bool(options)
        if not options:
            assert out["scores"] == pytest.approx(expected.scores, abs=1e-12) and out["signature"] == expected.signature
        assert no_call_kept(module)


def test_add_batch_then_compute_and_a_combine_resolve_once_per_module(counts):
    module = evaluate.load(metric_path("sam"), "chrf")
    counts()
    module.add_batch(predictions=HYPS[:2], references=REFS[:2])
    module.add(prediction=HYPS[2], reference=REFS[2])
    out = module.compute(quiet=True)
    seen = counts()
    assert (seen["resolve"], seen["from_options"], seen["post_init"], seen["scorer_class"]) == (1, 1, 1, 1)
    assert seen["load_call"] == seen["calls"]
    assert out["scores"] == pytest.approx(nlgmetrics.score("sam", HYPS, REFS, base="chrf", quiet=True).scores)
    combined = evaluate.combine([evaluate.load(metric_path("sam"), "chrf"), evaluate.load(metric_path("texteval"), "words")])
    counts()
    out = combined.compute(predictions=HYPS, references=REFS)
    seen = counts()
    assert [call.metric for call in seen["calls"]] == ["sam", "texteval"]
    assert (seen["from_options"], seen["post_init"], seen["scorer_class"]) == (2, 2, 2)
    assert seen["load_call"] == seen["calls"]
    assert out["texteval_scores"] == pytest.approx(nlgmetrics.score("texteval", HYPS, REFS, features="words").scores)


def test_the_scorer_class_is_looked_up_once_per_module(counts):
    counts()
    module = evaluate.load(metric_path("texteval"), "words")
    assert counts()["scorer_class"] == 1 and module.scorer_class is nlgmetrics.scorer_class("texteval")


def test_a_bad_option_is_refused_once_and_keeps_nothing(counts):
    module = evaluate.load(metric_path("sam"), "chrf")
    module.add_batch(predictions=HYPS, references=REFS)
    counts()
    with pytest.raises(ValueError, match="unknown base 'blue'"):
        module.compute(base="blue")
    assert counts()["resolve"] == 1 and no_call_kept(module)
    assert module.compute(base="bleu", quiet=True)["scores"] == pytest.approx(
        nlgmetrics.score("sam", HYPS, REFS, base="bleu", quiet=True).scores)


def test_compute_called_directly_resolves_its_own_keywords(counts):
    """``_compute`` with options (no resolved call) resolves them itself; with a call it takes no
    options besides."""
    module = evaluate.load(metric_path("sam"), "chrf")
    counts()
    out = module._compute(predictions=HYPS, references=REFS, base="bleu", quiet=True)
    assert counts()["resolve"] == 1
    assert out["scores"] == pytest.approx(nlgmetrics.score("sam", HYPS, REFS, base="bleu", quiet=True).scores)
    call = registry.resolve("sam", {"base": "bleu"})
    assert module._compute(predictions=HYPS, references=REFS, call=call, quiet=True)["scores"] == out["scores"]
    with pytest.raises(TypeError, match="takes the call resolved by compute, or options, not both"):
        module._compute(predictions=HYPS, references=REFS, call=call, base="chrf")
    with pytest.raises(TypeError, match="takes the call resolved by compute"):
        module._compute(predictions=HYPS, references=REFS, call=registry.resolve("texteval", {}))
    # compute takes a call resolved before (the Trainer hook's, resolved once at its construction)
    counts()
    assert module.compute(predictions=HYPS, references=REFS, call=call, quiet=True)["scores"] == out["scores"]
    assert counts()["resolve"] == 0
    with pytest.raises(TypeError, match="compute takes call=, a call resolved by this module's checked_call"):
        module.compute(predictions=HYPS, references=REFS, call=registry.resolve("texteval", {}))
    with pytest.raises(TypeError, match="or options, not both"):
        module.compute(predictions=HYPS, references=REFS, call=call, base="chrf")


def test_numbers_only_returns_the_corpus_score_alone():
    module = evaluate.load(metric_path("texteval"), "words")
    full = module.compute(predictions=HYPS, references=REFS)
    assert set(full) == {"score", "scores", "signature"}
    assert module.compute(predictions=HYPS, references=REFS, numbers_only=True) == {"score": full["score"]}
    loaded = evaluate.load(metric_path("texteval"), "words", numbers_only=True)
    assert loaded.compute(predictions=HYPS, references=REFS) == {"score": full["score"]}
    assert loaded.compute(predictions=HYPS, references=REFS, numbers_only=False) == full
    with pytest.raises(ValueError, match="numbers_only must be True or False, got 'yes'"):
        evaluate.load(metric_path("texteval"), "words", numbers_only="yes")
    module.add_batch(predictions=HYPS, references=REFS)  # refused before evaluate drops the batches
    with pytest.raises(ValueError, match="numbers_only returns the corpus score alone; return_details adds lists"):
        module.compute(numbers_only=True, return_details=True)
    with pytest.raises(ValueError, match="numbers_only must be True or False, got 1"):
        module.compute(numbers_only=1)
    assert module.compute(numbers_only=True) == {"score": full["score"]}
    assert "numbers_only (bool, default False)" in module.inputs_description


def test_the_install_finds_the_scripts_without_importing_the_modules(monkeypatch):
    """The install step imported ``nlgmetrics.evaluate_modules``, the layer above it; it finds
    the folder by the package's import spec."""
    monkeypatch.delitem(sys.modules, evaluate_install.MODULES_PACKAGE, raising=False)
    script = evaluate_install.module_script("sam")
    assert evaluate_install.MODULES_PACKAGE not in sys.modules
    assert script == Path(nlgmetrics.metric_path("sam"), "sam.py").resolve()
    for path in (ROOT / "shared" / "nlgmetrics" / "integrations").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
        assert not [n for n in names if "evaluate_modules" in n], path.name

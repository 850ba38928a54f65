"""DiscoTK robustness: a tiny LRU cache cannot lose an analysis mid-call, memory stays flat
over many calls, kernel normalisation survives float overflow, bad weights are refused, and
degenerate inputs get their documented results."""
from __future__ import annotations

import math
import random
import warnings

import pytest

import nlgmetrics
from nlgmetrics.core.trees import Tree
from nlgmetrics.discotk import REPRESENTATIONS, DiscoTK
from nlgmetrics.discotk import kernels as tree_kernels
from nlgmetrics.discotk.kernels import compile_tree, normalized_kernel, sst_kernel


def test_tiny_cache_does_not_lose_analyses():
    scorer = nlgmetrics.load("discotk", cache_size=3, quiet=True)
    first = scorer.score(["a cat sat.", "the dog ran."], ["a cat sat.", "a dog ran."])
    # four segments, one of them seen before: 8 texts through a cache of 3 (KeyError before)
    preds = ["a cat sat.", "birds sing loudly.", "it rained all day.", "we went home early."]
    refs = ["a cat sat.", "birds sang.", "it rained.", "we left early."]
    second = scorer.score(preds, refs)
    assert len(second.scores) == 4 and all(math.isfinite(s) for s in second.scores)
    assert len(scorer._cache) <= 3
    # the same pair gives the same raw features whatever was evicted in between
    assert second.details[0]["features"] == first.details[0]["features"]
    fresh = DiscoTK(variant="party", quiet=True).score(preds, refs)
    assert second.scores == pytest.approx(fresh.scores)


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_no_process_wide_production_table_and_flat_memory():
    # productions live inside compiled trees, nothing module-level grows
    assert not [name for name, v in vars(tree_kernels).items() if isinstance(v, dict) and not name.startswith("__")]
    scorer = DiscoTK(variant="light", normalization="none", cache_size=20, quiet=True)
    rng = random.Random(0)

    def call(k: int) -> None:
        words = [f"w{k}x{rng.randrange(10**6)}" for _ in range(12)]
        scorer.score([" ".join(words[:6]) + ".", " ".join(words[6:]) + "."],
                     [" ".join(words[3:9]) + ".", "because " + " ".join(words[:4]) + "."])

    for k in range(40):  # warm-up: parser, caches filling
        call(k)
    before = _rss_mib()
    for k in range(40, 240):
        call(k)
    assert len(scorer._cache) <= 20
    assert _rss_mib() - before < 20.0


def test_normalisation_survives_an_overflowing_product_of_self_kernels():
    # K(t, t) ~ 0.4 * 1.4 ** 1400 ~ 1e204 is finite, K(t, t) ** 2 is not
    words = [f"w{i}" for i in range(1400)]
    t = compile_tree(Tree("EDU", [Tree(w, [Tree("*")]) for w in words]))
    k = sst_kernel(t, t)
    assert math.isfinite(k) and math.isinf(k * k)
    assert normalized_kernel(t, t) == 1.0
    u = compile_tree(Tree("EDU", [Tree(w, [Tree("*")]) for w in words[:-1] + ["other"]]))
    value = normalized_kernel(t, u)
    expected = math.exp(math.log(sst_kernel(t, u)) - 0.5 * (math.log(k) + math.log(sst_kernel(u, u))))
    assert 0.0 < value < 1.0 and value == pytest.approx(expected)


def test_identical_long_texts_score_one_on_every_kernel():
    rng = random.Random(1)
    vocab = "the a cat dog house river city people said because when and but which often very".split()
    sentences = [" ".join(rng.choice(vocab) for _ in range(rng.randint(8, 14))).capitalize() + "."
                 for _ in range(45)]
    text = " ".join(sentences)
    assert 400 <= len(text.split()) <= 600
    scorer = DiscoTK(variant="light", normalization="none", quiet=True)
    features = scorer.score([text], [text]).details[0]["features"]
    assert features == {name: 1.0 for name in REPRESENTATIONS}


@pytest.mark.parametrize("weights", [{"bias": float("nan")}, {"dr-lex1": float("inf")}, {"dr-lex1": "1"},
                                     {"dr-lex1": True}, "", 3])
def test_non_finite_or_malformed_weights_are_refused(weights):
    with pytest.raises(ValueError):
        DiscoTK(variant="light", weights=weights, quiet=True)


def test_missing_weights_file_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="not a file"):
        DiscoTK(weights=str(tmp_path / "nope.json"), quiet=True)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        DiscoTK(weights=str(bad), quiet=True)


def test_identical_empty_texts_score_one_on_every_member():
    scorer = DiscoTK(variant="party", normalization="none", weights="uniform", quiet=True)
    result = scorer.score(["", "..."], ["", "!!!"])
    for d in result.details:
        assert d["features"] == {name: 1.0 for name in scorer.features_used}
    assert result.scores == [1.0, 1.0]


def test_one_segment_says_what_per_test_set_normalisation_does():
    scorer = DiscoTK(variant="light", quiet=True)
    with pytest.warns(UserWarning, match="1 segment"):
        result = scorer.score(["The cat sat on the mat."], ["A dog lay on the rug."])
    assert "every non-zero feature becomes 1.0" in result.corpus["note"]
    assert result.details[0]["note"] == result.corpus["note"]
    raw = result.details[0]["features"]
    assert result.scores[0] == pytest.approx(sum(1.0 for v in raw.values() if v > 0) / len(raw))
    with warnings.catch_warnings():  # no note for tuned weights or normalization="none"
        warnings.simplefilter("error")
        for quiet_scorer in (DiscoTK(variant="light", normalization="none", quiet=True), DiscoTK(quiet=True)):
            assert "note" not in quiet_scorer.score(["The cat sat."], ["A cat sat."]).corpus

"""Bounded caches of the core: models shared per process by (checkpoint, device, dtype) and
loaded once, the encoder's bounded cache of encoded inputs, the lexical per-word caches."""
import gc

import numpy as np
import pytest

from nlgmetrics.core import lexical, models
from nlgmetrics.core.cache import LRUCache
from nlgmetrics.core.embeddings import ContextualEncoder


def test_two_encoders_share_one_model_load():
    location = models.expand_alias("minilm")
    a = ContextualEncoder("minilm", device="cpu", quiet=True)
    key = ("AutoModel", location, "cpu", "torch.float32", ())
    assert models.LOADS[key] == 1  # loaded once in this process, whoever asked first
    before = dict(models.LOADS)
    b = ContextualEncoder("minilm", device="cpu", quiet=True, layer=3, batch_size=4)
    assert a.model is b.model and a.tokenizer is b.tokenizer
    assert dict(models.LOADS) == before  # the second encoder loaded nothing
    # another dtype is another model (one more load), the tokenizer is still shared
    bf16 = ("AutoModel", location, "cpu", "torch.bfloat16", ())
    c = ContextualEncoder("minilm", device="cpu", dtype="bf16", quiet=True)
    assert c.model is not a.model and c.tokenizer is a.tokenizer
    assert str(next(c.model.parameters()).dtype) == "torch.bfloat16"
    assert models.LOADS[bf16] == 1 and models.LOADS[key] == 1
    assert sum(models.LOADS.values()) - sum(before.values()) == (0 if bf16 in before else 1)


def test_shared_model_survives_while_used_and_cache_is_bounded():
    location = models.expand_alias("minilm")
    enc = ContextualEncoder("minilm", device="cpu", quiet=True)
    first = id(enc.model)
    for _ in range(3):
        assert id(ContextualEncoder("minilm", device="cpu", quiet=True).model) == first
    assert models.LOADS[("AutoModel", location, "cpu", "torch.float32", ())] == 1
    assert models._RECENT.max_entries == 8 and len(models._RECENT) <= 8
    gc.collect()
    assert models.loaded_models() <= len(models._RECENT) + len(models._LIVE)


def test_encoder_cache_gives_the_same_vectors_and_is_bounded():
    enc = ContextualEncoder("minilm", device="cpu", quiet=True, cache_entries=2)
    texts = ["the cat sat on the mat", "a dog", "rain since this morning"]
    fresh = ContextualEncoder("minilm", device="cpu", quiet=True).sentence_vectors(texts)
    again = enc.sentence_vectors(texts)
    np.testing.assert_array_equal(fresh, again)
    assert len(enc._cache) == 2  # bounded: the least recently used input was evicted
    hits = enc._cache.hits
    np.testing.assert_array_equal(enc.sentence_vectors(texts[1:]), fresh[1:])
    assert enc._cache.hits == hits + 2
    states = enc.layer_states(["a dog"])[0]
    assert not states.flags.writeable and states.base is None  # a read-only copy, not a batch view
    with pytest.raises(ValueError):
        states[0, 0, 0] = 1.0
    tiny = ContextualEncoder("minilm", device="cpu", quiet=True, cache_bytes=1)
    tiny.sentence_vectors(texts)
    assert len(tiny._cache) == 1  # bounded by memory too


def test_lexical_word_caches_are_bounded_lru():
    assert isinstance(lexical.STEMS, LRUCache) and isinstance(lexical.SYNONYMS, LRUCache)
    assert lexical.STEMS.max_bytes and lexical.SYNONYMS.max_bytes
    assert lexical._stem("running") == "run" and lexical.STEMS.get("running") == "run"
    assert "car" in lexical.wordnet_synonyms("automobile")
    assert lexical.wordnet_synonyms("automobile") is lexical.SYNONYMS.get("automobile")
    assert lexical.sentence_meteor("the automobile ran", "the car runs") > lexical.sentence_meteor(
        "the boat ran", "the car runs")


def test_resize_evicts_the_least_recent_now_and_live_caches_lists_each_cache():
    from nlgmetrics.core.cache import live_caches

    cache = LRUCache(max_entries=5)
    for k in "abcde":
        cache[k] = k
    assert cache.get("a") == "a"  # "b" is now the least recent
    cache.resize(max_entries=2)
    assert cache.keys() == ["e", "a"] and cache.max_entries == 2
    with pytest.raises(ValueError, match="max_entries >= 1"):
        cache.resize(max_entries=0)
    assert any(c is cache for c in live_caches())
    ident = id(cache)
    del cache
    gc.collect()
    assert all(id(c) != ident for c in live_caches())  # a dead cache is not kept alive


def test_get_or_compute_caches_falsy_values_and_counts():
    cache: LRUCache[str, bool] = LRUCache(max_entries=2)
    calls = []

    def compute(key: str) -> bool:
        calls.append(key)
        return False

    assert cache.get_or_compute("a", compute) is False and cache.get_or_compute("a", compute) is False
    assert calls == ["a"] and (cache.hits, cache.misses) == (1, 1)
    cache.get_or_compute("b", compute)
    cache.get_or_compute("c", compute)  # evicts "a", the least recently used
    assert "a" not in cache and cache.get_or_compute("a", compute) is False and calls == ["a", "b", "c", "a"]

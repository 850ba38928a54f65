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


# -- issue 37: caches bounded by the bytes they really hold --------------------------------------
def _nested(depth: int, payload: object) -> object:
    value = payload
    for k in range(depth):
        value = {"level": k, "items": [value, ("x" * 10, k)]}
    return value


def test_approx_size_counts_every_level_and_shared_objects_once():
    from nlgmetrics.core.cache import approx_size

    blob = b"b" * 1_000_000
    assert approx_size(_nested(8, blob)) > 1_000_000  # the old estimate stopped at depth 3 (under 2 KB)
    assert 1_000_000 < approx_size([blob, blob, (blob,)]) < 1_100_000  # one object, counted once
    assert approx_size(np.zeros(10_000)) >= 80_000
    assert approx_size(np.zeros(10_000)[:10]) >= 80_000  # a view holds its base
    assert approx_size([np.zeros(10_000)[:10], np.zeros(10)]) < 81_000  # the base once, plus the small array


def _traced_bytes(build):
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = build()
        gc.collect()
        return value, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_discotk_analyses_are_accounted_at_the_bytes_python_allocated_for_them():
    """Parity with an independent count: tracemalloc's bytes allocated while building the
    analyses (their parses cached first) against the cache's accounting of them."""
    from nlgmetrics.core.cache import approx_size
    from nlgmetrics.discotk import DiscoTK
    from nlgmetrics.discotk.scorer import CACHE_BYTES

    scorer = DiscoTK(variant="light", quiet=True)
    texts = [f"The council said on day {k} that the new plan would help small firms near the river." for k in range(30)]
    scorer.parser.analyzer.analyze(texts)  # parsed first: what is traced below is the analyses alone
    analyses, traced = _traced_bytes(lambda: scorer._analyze_new(texts))
    accounted = sum(approx_size(a) for a in analyses)
    assert traced > 30 * 10_000  # tens of KB each: what filled memory over calls
    assert 0.8 * traced <= accounted <= 3 * traced, (accounted, traced)
    assert scorer._cache.max_bytes == CACHE_BYTES <= 256 * 2**20


def test_a_cache_of_deep_values_stays_within_its_byte_bound_in_real_memory():
    cache: LRUCache[int, object] = LRUCache(max_entries=100_000, max_bytes=2 * 2**20)

    def fill():
        for k in range(400):  # 400 values of about 40 KB each: 16 MB if nothing were evicted
            cache[k] = _nested(6, ["word %d %d" % (k, j) for j in range(500)])
        return None

    _, traced = _traced_bytes(fill)
    assert cache.nbytes <= cache.max_bytes and 20 < len(cache) < 400
    assert traced <= 1.2 * cache.max_bytes, traced  # what is held is what was accounted


def test_spacy_vocabulary_is_renewed_once_it_learnt_too_many_strings(monkeypatch):
    from nlgmetrics.core import linguistic

    monkeypatch.setattr(linguistic, "MAX_NEW_STRINGS", 300)
    analyzer = linguistic.Analyzer("spacy")
    texts = [" ".join(f"zq{k}w{j}" for j in range(20)) + " ran home." for k in range(60)]  # 1,200 new words
    parsed = analyzer.analyze(texts)
    impl = analyzer._impl
    assert impl.renewals >= 1 and impl.new_strings() <= 300 + 20 * 64 * 2  # at most a batch past the bound
    fresh = linguistic.Analyzer("spacy").analyze(texts)
    assert [[(t.text, t.xpos, t.head) for t in p.tokens] for p in parsed] == \
        [[(t.text, t.xpos, t.head) for t in p.tokens] for p in fresh]

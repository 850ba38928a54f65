"""Streaming memory (issue 18): while ``nlgmetrics score`` streams chunks, every cache in the
process keeps at most a few chunks' worth of entries (what it keeps no longer grows with the
corpus), and the scores are those of scoring the corpus at once. The memory itself is measured by
``benchmarks/peers.py --streaming`` (results/peers_streaming.json), not here."""
import gc
import json

import pytest

from nlgmetrics import cli
from nlgmetrics.cli import score as cli_score
from nlgmetrics.core.cache import LRUCache


@pytest.fixture
def restore_caps():
    caches = [o for o in gc.get_objects() if issubclass(type(o), LRUCache)]
    saved = [(c, c.max_entries) for c in caches]
    yield
    for c, n in saved:
        c.max_entries = n


def test_bound_caches_caps_every_cache_and_keeps_the_most_recent(restore_caps):
    big, small = LRUCache(max_entries=1000), LRUCache(max_entries=3)
    for i in range(50):
        big[i] = str(i)
    small["a"] = 1
    assert cli_score.bound_caches(10) >= 1
    assert big.max_entries == 10 and big.keys() == list(range(40, 50))
    assert small.max_entries == 3 and small.keys() == ["a"]  # already smaller: untouched
    big[99] = "x"
    assert len(big) == 10 and 40 not in big


def test_streamed_chunks_with_capped_caches_score_as_the_whole_corpus(tmp_path, capsys, restore_caps):
    hyps = [f"the cat number {i} sat on the mat" for i in range(6)] + ["the cat number 0 sat on the mat"]
    refs = [f"a cat number {i} sat on a mat today" for i in range(7)]
    (tmp_path / "h").write_text("".join(h + "\n" for h in hyps))
    (tmp_path / "r").write_text("".join(r + "\n" for r in refs))
    argv = ["score", "sam", "-p", str(tmp_path / "h"), "-r", str(tmp_path / "r"), "-o", "base=chrf", "--json", "-q"]
    assert cli.main(argv + ["--chunk-size", "0"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert cli.main(argv + ["--chunk-size", "1"]) == 0  # caps: 4 chunks x 1 segment x 2 texts = 8 entries
    streamed = json.loads(capsys.readouterr().out)
    caches = [o for o in gc.get_objects() if issubclass(type(o), LRUCache)]
    assert caches and max(c.max_entries for c in caches) <= 8 and max(len(c) for c in caches) <= 8
    assert streamed["scores"] == whole["scores"] and streamed["score"] == whole["score"]
    assert streamed["details"] == whole["details"]

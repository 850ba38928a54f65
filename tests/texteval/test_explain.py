"""texteval.explain.segment_ranking is the scorer's own set ranking under the drawn names."""
import pytest

import nlgmetrics
from nlgmetrics.texteval.explain import segment_ranking


def test_segment_ranking_matches_rank_set():
    scorer = nlgmetrics.load("texteval", features="words", quiet=True)
    refs = ["the cat sat on the mat", "a cat sat on a mat", "the cat is on the mat"]
    names, ranking = segment_ranking(scorer, "the cat sat on the mat", refs)
    assert names == ["prediction", "ref 1", "ref 2", "ref 3"]
    direct = scorer.rank_set(["the cat sat on the mat", *refs], names=names)
    assert list(ranking.direct) == pytest.approx(list(direct.direct))

"""TextEval's work budget: a 1 MB text is cut to the token cap; scaling with one reference."""
import math
import warnings

import pytest

from nlgmetrics.texteval import TextEval
from nlgmetrics.texteval.config import BUDGET
from tests.budget_check import within_budget


def test_a_1mb_text_is_cut_and_scored_within_the_budget():
    scorer = TextEval(quiet=True)
    text = "the cat sat on the mat . " * 40_000
    result, _ = within_budget(lambda attempt: scorer.score([text, "a cat"], [text, "the cat"]), 2)
    assert result.details[0]["truncated"] is True and "truncated" not in result.details[1]
    assert BUDGET.count(BUDGET.cut(text)) == BUDGET.max_units


def test_scaling_with_one_reference_warns_and_scores_the_defined_zero():
    """Issue 37: every score was 0.0 with no warning. A scale of the prediction and one reference
    has no direction: the defined result is 0.0, r2 nan, reliable false, with one warning naming
    the segments; rows with two references are scored as before."""
    scorer = TextEval(approach="scaling", corpus="mean", features="words", quiet=True)
    preds = ["the cat sat on the mat", "a dog ran home", "the bird sang"]
    refs = [["the cat sat on a mat"], ["a dog ran to its home", "the dog ran home"], "the bird sang loudly"]
    with pytest.warns(UserWarning, match=r"needs at least 2 references per segment; 2 segment\(s\) have "
                                         r"fewer \(index 0, 2\)"):
        result = scorer.score(preds, refs)
    for i in (0, 2):
        assert result.scores[i] == 0.0 and math.isnan(result.details[i]["r2"]) and not result.details[i]["reliable"]
    assert result.scores[1] != 0.0 and result.details[1]["standard_set"] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TextEval(approach="direct", features="words", quiet=True).score(preds[:1], refs[:1])  # direct: no warning
        scorer.score(preds[1:2], refs[1:2])


def test_the_space_drawing_ranks_at_most_the_scored_references_and_each_pair_once(monkeypatch):
    """Issue 37: the TextEval Space with 4,000 reference lines ranked all of them for each drawn
    segment (199 s). Its drawing (texteval.explain.segment_ranking, which spaces/texteval/app.py
    calls with one pair cache per drawing) ranks the references the score used (the budget's
    first max_references) and computes the distance of each pair of texts once per drawing."""
    from nlgmetrics.texteval import analysis
    from nlgmetrics.texteval.config import MAX_REFERENCES
    from nlgmetrics.texteval.explain import segment_ranking

    scorer = TextEval(features="words", quiet=True)
    refs = [f"the cat number {k} sat on mat {k % 13}" for k in range(4_000)]
    preds = ["the cat sat on the mat", "a cat sat on a mat", "the dog sat"]
    calls = []
    real = analysis.pair_distance
    monkeypatch.setattr(analysis, "pair_distance", lambda *a: calls.append(1) or real(*a))
    cache: dict = {}
    drawn = [segment_ranking(scorer, pred, refs, cache) for pred in preds]
    n = MAX_REFERENCES + 1  # the prediction and the references scored
    assert all(len(names) == n and len(r.scaling) == n for names, r in drawn)
    assert len(cache) == n * (n - 1) // 2 + 2 * MAX_REFERENCES  # the set once, then one row per prediction
    assert len(calls) == len(cache) + 3 * n  # + each member's direct distance, per segment
    monkeypatch.setattr(analysis, "pair_distance", real)
    names, ranking = drawn[0]
    whole = scorer.rank_set([preds[0], *refs[:MAX_REFERENCES]], names=names)
    assert ranking.scaling == pytest.approx(whole.scaling) and ranking.direct == pytest.approx(whole.direct)

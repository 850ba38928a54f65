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

"""TextEval's work budget: a 1 MB text is cut to the token cap."""
from nlgmetrics.texteval import TextEval
from nlgmetrics.texteval.config import BUDGET
from tests.budget_check import within_budget


def test_a_1mb_text_is_cut_and_scored_within_the_budget():
    scorer = TextEval(quiet=True)
    text = "the cat sat on the mat . " * 40_000
    result, _ = within_budget(lambda attempt: scorer.score([text, "a cat"], [text, "the cat"]), 2)
    assert result.details[0]["truncated"] is True and "truncated" not in result.details[1]
    assert BUDGET.count(BUDGET.cut(text)) == BUDGET.max_units

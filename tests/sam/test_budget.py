"""SAM's work budget: METEOR's word alignment is quadratic, so texts are cut to the token cap
(the issue: 'good' x 20,000 against itself took 24.6 s)."""
import pytest

from nlgmetrics.sam import SAM
from nlgmetrics.sam.config import BUDGET
from tests.budget_check import within_budget


@pytest.mark.slow
@pytest.mark.parametrize("n", [20_000, 200_000], ids=["97KiB", "1MB"])
def test_a_long_repeated_word_is_cut_and_scored_within_the_budget(n):
    scorer = SAM(quiet=True)
    scorer.score(["good"], ["good"])
    texts = [" ".join([word] * n) for word in ("good", "nice")]  # a fresh text per attempt
    result, _ = within_budget(lambda attempt: scorer.score([texts[attempt]], [texts[attempt]]), 1)
    assert result.details[0]["truncated"] is True
    assert result.scores[0] == pytest.approx(1.0)  # a text against itself: METEOR's best, no sentiment gap


def test_the_cap_is_stated():
    assert BUDGET.describe() == "2,000 tokens or 20,000 characters per text and 100 references"

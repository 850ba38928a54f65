"""RoMe's work budget and option bounds (the issue: batch_size=16384 on one segment took
49.8 s and 5.4 GB, each batch filled up to batch_size)."""
import pytest

from nlgmetrics.rome import RoMe
from nlgmetrics.rome.config import MAX_WORDS, RoMeConfig
from tests.budget_check import within_budget


@pytest.mark.parametrize("bad", [{"batch_size": 16384}, {"max_words": MAX_WORDS + 1}])
def test_options_have_upper_bounds(bad):
    with pytest.raises(ValueError, match=f"{next(iter(bad))} must be in"):
        RoMeConfig(**bad)


@pytest.mark.slow
def test_a_1mb_text_is_cut_and_scored_within_the_budget(one_torch_thread):
    scorer = RoMe(profile="lite", batch_size=1024, quiet=True)
    texts = [f"the {animal} sat on the mat " * 45_000 for animal in ("cat", "dog")]  # a fresh text per attempt
    result, _ = within_budget(lambda attempt: scorer.score([texts[attempt]], [texts[attempt]]), 1)
    assert result.details[0]["truncated"] is True


@pytest.mark.parametrize("mark", ["\U0001F600", "!"])
def test_20000_marks_without_a_space_are_cut_with_a_warning(mark):
    """Issue 37: the budget counted whitespace words, so 20,000 emoji or punctuation marks were
    one word and RoMe parsed them all (126-172 s); now they are 20,000 tokens, cut to the cap."""
    from nlgmetrics.rome.config import BUDGET

    scorer = RoMe(profile="lite", quiet=True)
    with pytest.warns(UserWarning, match=r"budget of 1,000 tokens"):
        result = scorer.score([mark * 20_000, "a cat"], ["hello there", "a cat"])
    assert result.details[0]["truncated"] is True and "truncated" not in result.details[1]
    assert BUDGET.count(mark * 20_000) == 20_000 and len(BUDGET.cut(mark * 20_000)) == BUDGET.max_units

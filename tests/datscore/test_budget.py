"""DATScore's option bounds and work budget (the issue: max_new_tokens=10**9 ran over 180 s)."""
import pytest

from nlgmetrics.datscore import DATScore
from nlgmetrics.datscore.config import MAX_LENGTH, MAX_NEW_TOKENS, DATScoreConfig
from tests.budget_check import within_budget


@pytest.mark.parametrize("bad", [{"max_new_tokens": 10**9}, {"max_new_tokens": MAX_NEW_TOKENS + 1},
                                 {"max_length": MAX_LENGTH + 1}, {"batch_size": 16384}])
def test_options_have_upper_bounds(bad):
    with pytest.raises(ValueError, match=f"{next(iter(bad))} must be in"):
        DATScoreConfig(**bad)


def test_a_1mb_text_is_cut_and_scored_within_the_budget(tiny_m2m100):
    scorer = DATScore(model=tiny_m2m100, target_lang="en", max_new_tokens=8, quiet=True)
    scorer.score(["a cat"], ["the cat"])
    text = "the cat sat on the mat " * 45_000
    result, _ = within_budget(lambda attempt: scorer.score([text, "a cat"], [text, "the cat"]), 2)
    assert result.details[0]["truncated"] is True and "truncated" not in result.details[1]

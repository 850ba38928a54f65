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

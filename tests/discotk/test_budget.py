"""DiscoTK's work budget: tokens as its kernels see them, RST trees refused over their caps
(the issue's measurements: a hyphenated word bypassed max_words; RST input had no cap)."""
import pytest

from nlgmetrics.discotk import DiscoTK
from nlgmetrics.discotk.config import MAX_EDUS, MAX_EDUS_OTHER, MAX_RST_TOKENS, MAX_RST_TOKENS_OTHER, MAX_TOKENS, rst_caps
from nlgmetrics.discotk.discourse.rst import rst_size
from tests.budget_check import within_budget

REF = "The cat sat on the mat."


@pytest.fixture(scope="module")
def party():
    scorer = DiscoTK(quiet=True)
    scorer.score(["The cat sat."], ["A cat sat."])  # models loaded before any timing
    return scorer


@pytest.mark.slow
@pytest.mark.parametrize("hyp", ["-".join(["x"] * 4000), " ".join(["x"] * 999), "-".join(["x"] * 500_000)],
                         ids=["hyphenated-4000", "spaced-999", "hyphenated-1MB"])
def test_words_without_spaces_no_longer_bypass_the_cap(party, hyp):
    result, _ = within_budget(lambda attempt: party.clear_cache() or party.score([hyp], [REF]), 1)
    assert result.details[0]["truncated"] is True
    assert party.budget().count(party.analyze([party.budget().cut(hyp)])[0].plain) <= MAX_TOKENS


def test_the_cap_counts_tokens_and_is_bounded():
    scorer = DiscoTK(variant="light", max_words=5, quiet=True)
    assert scorer.budget().cut("x-x-x-x and more") == "x-x-x"
    with pytest.raises(ValueError, match=f"max_words must be in \\[1, {MAX_TOKENS}\\]"):
        DiscoTK(variant="light", max_words=1000, quiet=True)


def test_rst_size_counts_edus_and_their_tokens():
    assert rst_size("(Elaboration[N][S] _!The cat sat,!_ _!on-the mat!_)") == (2, 8)
    assert rst_size("no tree") == (0, 0)


@pytest.mark.parametrize("tree, what", [
    ("(Joint" + "[N]" * 2000 + " " + " ".join("_!x!_" for _ in range(2000)) + ")",
     "2,000 EDUs and 2,000 tokens in them; DiscoTK-light \\(flat layer\\) scores at most 200 EDUs and 2,000 tokens"),
    ("_!" + " ".join(["word"] * 3000) + "!_",
     "1 EDUs and 3,000 tokens in them; DiscoTK-light \\(flat layer\\) scores at most 200 EDUs and 2,000 tokens"),
    ("_!" + " ".join(["word"] * 50_000) + "!_", "250,003 characters; DiscoTK reads at most 100,000"),
], ids=["flat-2000-edus", "one-3000-word-edu", "one-50000-word-edu"])
def test_rst_trees_over_the_caps_are_refused_at_once(tree, what):
    scorer = DiscoTK(variant="light", quiet=True)
    with pytest.raises(ValueError, match=f"predictions\\[0\\]: an RST tree of {what}"):
        within_budget(lambda attempt: scorer.score([tree], [REF]), 1)


def test_the_rst_caps_per_configuration():
    # DiscoTK-light with the flat layer reads document trees (the fast kernel; issue 37's target);
    # party (TER and METEOR over the whole text) and the chain layer keep the sentence-level caps
    assert (MAX_EDUS, MAX_RST_TOKENS) == (200, 2_000) == rst_caps("light", "flat")
    assert (MAX_EDUS_OTHER, MAX_RST_TOKENS_OTHER) == (150, 220) == rst_caps("party", "flat") == rst_caps("light", "chain")
    tree = "(Joint" + "[N]" * 151 + " " + " ".join("_!x!_" for _ in range(151)) + ")"
    with pytest.raises(ValueError, match="151 EDUs and 151 tokens in them; DiscoTK-party \\(flat layer\\) scores at most "
                                         "150 EDUs and 220 tokens .*variant='light' with the flat layer reads up to 200 EDUs"):
        DiscoTK(variant="party", members="asiya", quiet=True).score([tree], [tree])


@pytest.mark.slow
def test_an_rst_tree_at_the_caps_is_scored_within_the_budget(party):
    tree = "(Joint" + "[N]" * MAX_EDUS_OTHER + " " + " ".join("_!x!_" for _ in range(MAX_EDUS_OTHER)) + ")"
    result, _ = within_budget(lambda attempt: party.clear_cache() or party.score([tree], [tree]), 1)
    assert "truncated" not in result.details[0]

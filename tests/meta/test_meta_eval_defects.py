"""The meta-evaluation defects of issue 40 and 37, each shown fixed: acc*_eq's item count, SPA's
near-ties, order and silent omission, seed and permutations recorded, DARR reported, two
systems warned about, the system level on each metric's own corpus score, systems keyed by
string form, and bounded memory on one large item."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from nlgmetrics.core import stats
from nlgmetrics.core.inputs import Inputs, Record
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer, mean_reduce
from nlgmetrics.core.significance import reduce_each
from nlgmetrics.meta.meta_eval import meta_evaluate
from nlgmetrics.meta.meta_system import score_systems
from nlgmetrics.meta.pairwise import darr_counts, soft_pairwise_accuracy, tie_calibrated_accuracy


def test_acc_eq_counts_only_items_with_a_pair():
    """60 items were reported where 44 were averaged: one-row items have no pair."""
    items = [0, 0, 1, 1, 2, 2, 3, 4]
    out = meta_evaluate([0.1, 0.2, 0.3, 0.1, 0.5, 0.6, 0.9, 0.4], [1, 2, 2, 1, 3, 4, 5, 0], items=items, bootstrap=0)
    assert out["item"]["tie_calibrated_accuracy"]["n_items"] == 3
    assert out["item"]["tie_calibrated_accuracy"]["value"] == 1.0


def test_spa_of_an_affine_copy_is_one_despite_floating_point_near_ties():
    """0.1 * h + 0.7 orders every permutation as h does; the sums' rounding made SPA 0.95."""
    h = np.array([[3.0, 2.0, 2.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 3.0], [2.0, 3.0, 2.0, 2.0, 3.0]])
    assert soft_pairwise_accuracy(0.1 * h + 0.7, h, 200, 0) == 1.0


def test_spa_does_not_depend_on_the_order_systems_come_in_and_is_never_silently_left_out():
    rng = np.random.default_rng(4)
    human = rng.integers(0, 3, (4, 6)).astype(float)
    metric = human + rng.integers(0, 2, (4, 6))  # ties on both sides
    rows = [(m, h, s, i) for s, (mr, hr) in enumerate(zip(metric, human)) for i, (m, h) in enumerate(zip(mr, hr))]
    values = set()
    for order in ([0, 1, 2, 3], [3, 1, 0, 2], [2, 3, 1, 0]):
        picked = [r for s in order for r in rows if r[2] == s]
        out = meta_evaluate([r[0] for r in picked], [r[1] for r in picked], [f"s{r[2]}" for r in picked],
                            [r[3] for r in picked], bootstrap=0, permutations=100)
        values.add(out["pairwise"]["soft_pairwise_accuracy"]["value"])
    assert len(values) == 1
    # no item that every system has: said, not silently dropped
    out = meta_evaluate([0.1, 0.2, 0.3, 0.4], [1, 2, 3, 4], ["a", "a", "b", "b"], [1, 2, 3, 4], bootstrap=0)
    assert out["pairwise"]["soft_pairwise_accuracy"] == {
        "value": None, "note": "left out: no item has a human-rated row of every system"}


def test_the_output_records_seed_bootstrap_permutations_and_how_systems_are_keyed():
    out = meta_evaluate([0.1, 0.5, 0.3, 0.2], [1, 3, 2, 2], ["1", 1, 1.0, 2], bootstrap=10, seed=7, permutations=30)
    assert (out["seed"], out["bootstrap"], out["permutations"]) == (7, 10, 30)
    assert out["n_systems"] == 2 and "string form" in out["systems_keyed_by"]  # 1, "1" and 1.0 are one system


def test_darr_is_reported_and_equals_the_pair_definition():
    rng = np.random.default_rng(1)
    items = [i for i in range(30) for _ in range(6)]
    human = rng.integers(0, 100, len(items)).astype(float)
    metric = np.round(human / 30 + rng.normal(0, 1, len(items)))  # metric ties happen
    out = meta_evaluate(metric.tolist(), human.tolist(), items=items, bootstrap=0)
    groups = [[(human[k], metric[k]) for k in range(len(items)) if items[k] == i] for i in range(30)]
    better, worse = stats.darr_pairs(groups, 25.0)
    assert out["item"]["darr"]["value"] == pytest.approx(stats.darr_tau(better, worse), abs=1e-15)
    assert out["item"]["darr"]["n_pairs"] == len(better) > 0
    assert darr_counts([0.9, 0.1, 0.5], [80, 10, 50], [1, 1, 1], 25) == (3, 0)
    assert darr_counts([0.5, 0.5], [80, 10], [1, 1], 25) == (0, 1)  # a metric tie is discordant


def test_two_systems_warn_and_get_no_interval():
    out = meta_evaluate([0.1, 0.2, 0.3, 0.5], [1.0, 2.0, 1.5, 3.0], ["a", "a", "b", "b"], bootstrap=50)
    assert out["system"]["pearson"]["value"] == pytest.approx(1.0) and out["system"]["pearson"]["ci95"] is None
    assert any("only 2 system(s)" in w for w in out["warnings"])


class MedianToy(Scorer):
    """Segment score = the number given; corpus score = the median (not a mean)."""

    name = "mediantoy"
    references_mode = "none"

    def score_segments(self, inputs: Inputs) -> list[Record]:
        return [{"id": i, "score": float(p)} for i, p in zip(inputs.ids, inputs.predictions)]

    def reduce_records(self, records: list[Record]) -> MetricResult:
        result = mean_reduce(self, records)
        result.score = float(np.median(result.scores))
        return result


def test_the_system_level_uses_each_systems_own_corpus_score_and_its_bootstrap_reruns_it():
    scorer = MedianToy()
    values = {"a": [0, 0, 0, 9], "b": [1, 1, 1, 1], "c": [2, 2, 2, 0], "d": [3, 3, 3, 0]}  # means 2.25 1 1.5 2.25
    systems = [s for s in values for _ in range(4)]
    preds = [str(v) for s in values for v in values[s]]
    human = [float(k) for k in range(4) for _ in range(4)]
    scores, by_system = score_systems(scorer, systems, preds, None)
    assert by_system.corpus == {"a": 0.0, "b": 1.0, "c": 2.0, "d": 3.0}
    out = meta_evaluate(scores, human, systems, bootstrap=20, system_scores=by_system)
    assert out["system"]["pearson"]["value"] == pytest.approx(1.0)  # medians 0 1 2 3 against humans 0 1 2 3
    assert meta_evaluate(scores, human, systems, bootstrap=0)["system"]["pearson"]["value"] < 0.5  # the means
    positions = np.array([[0, 0, 1, 3]])
    assert by_system.resamplers["a"](positions) == reduce_each(scorer, scorer.segment_records(
        scorer.validate(preds[:4])))(positions)


def test_one_item_of_many_rows_never_allocates_its_pairs():
    """20,000 rows of one item allocated n^2 pairs (MemoryError at 4.7 GB); 3,000 rows here
    hold 4.5 million pairs (~250 MB as before's arrays): the peak stays under 60 MB."""
    rng = np.random.default_rng(0)
    n = 3000
    human = rng.integers(0, 100, n).astype(float)
    metric = human + rng.normal(0, 20, n)
    tracemalloc.start()
    try:
        out = meta_evaluate(metric.tolist(), human.tolist(), ["s"] * n, ["one"] * n, bootstrap=0, permutations=10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 60 * 2**20, peak / 2**20
    acc = out["item"]["tie_calibrated_accuracy"]
    exact_at_zero = tie_calibrated_accuracy(metric[:600], human[:600])  # the exact path, for the invariant below
    assert 0.5 < acc["value"] <= 1.0 and acc["n_items"] == 1 and exact_at_zero[0] >= 0.5
    c, d = darr_counts(metric, human, ["one"] * n, 25.0)
    sub = slice(0, 400)
    better, worse = stats.darr_pairs([list(zip(human[sub], metric[sub]))], 25.0)
    assert darr_counts(metric[sub], human[sub], ["x"] * 400, 25.0)[0] == sum(b > w for b, w in zip(better, worse))
    assert c + d > 0


def test_the_candidate_search_of_a_large_item_equals_the_exact_search_at_its_thresholds(monkeypatch):
    import nlgmetrics.meta.pairwise as pairwise

    rng = np.random.default_rng(3)
    human = rng.integers(0, 5, 400).astype(float)
    metric = np.round(human + rng.normal(0, 1, 400), 1)  # few distinct gaps: the candidates cover them all
    items = [k % 3 for k in range(400)]
    exact = tie_calibrated_accuracy(metric, human, items)
    monkeypatch.setattr(pairwise, "EXACT_PAIRS", 10)
    monkeypatch.setattr(pairwise, "PAIR_BLOCK", 1000)
    approx = tie_calibrated_accuracy(metric, human, items)
    assert approx[0] == pytest.approx(exact[0], abs=1e-12) and approx[1] == pytest.approx(exact[1], abs=1e-9)


@pytest.mark.parametrize("value", [0.1, 1 / 3, 0.7, 2.2, -5.0])
def test_a_constant_row_has_no_pearson_correlation_as_in_scipy(value):
    """A constant row (or a constant human side) gives nan, as scipy's pearsonr: rounding of its
    centred sum used to leave it above 0 for some constants (0.7) and give 0.0; every other row
    equals scipy's value."""
    import numpy as np
    from scipy.stats import pearsonr

    from nlgmetrics.meta.batch_stats import pearson_rows

    rng = np.random.default_rng(7)
    rows = np.vstack([np.full(7, value), rng.normal(size=(3, 7))])
    human = rng.normal(size=7)
    got = pearson_rows(rows, human)
    assert np.isnan(got[0])
    assert got[1:] == pytest.approx([pearsonr(r, human)[0] for r in rows[1:]], abs=1e-12)
    assert np.isnan(pearson_rows(rows, np.full(7, value))).all()

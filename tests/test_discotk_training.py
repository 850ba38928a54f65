"""DiscoTK's weight training (nlgmetrics.training.discotk_weights): DARR pairs without identical
outputs, folds by source segment, the non-negative pairwise fit, C chosen by cross-validation,
byte-stable output, and the shipped weights file it wrote."""
from __future__ import annotations

import json

import numpy as np
import pytest

from nlgmetrics.core.resources import data_path
from nlgmetrics.discotk import DiscoTK, fit_pairwise
from nlgmetrics.training.discotk_weights import C_GRID, darr_index_pairs, fold_of, mean_lp_tau, model_columns, rounded, select_c


def test_identical_outputs_make_no_pair():
    row = {"hyps": {"A": {"hyp": "same", "human_raw": 90.0}, "B": {"hyp": "same", "human_raw": 10.0},
                    "C": {"hyp": "other", "human_raw": 40.0}}}
    assert darr_index_pairs(row) == [("A", "C"), ("C", "B")]


def test_folds_by_source_segment_are_fixed_and_balanced():
    segments = [f"de-en:{k // 3}" for k in range(30)]  # 10 segments, 3 outputs each
    folds = fold_of(segments, 5)
    assert folds == fold_of(list(reversed(segments)), 5)  # a function of the set of segments
    assert sorted(folds) == sorted(set(segments))
    assert sorted(np.bincount(list(folds.values()))) == [2] * 5


def test_nonnegative_fit_zeroes_a_harmful_feature():
    rng = np.random.default_rng(0)
    better, worse = rng.normal(size=(400, 3)), rng.normal(size=(400, 3))
    swap = (better - worse) @ np.array([2.0, -1.0, 0.0]) < 0
    better[swap], worse[swap] = worse[swap].copy(), better[swap].copy()
    free = fit_pairwise(better, worse, ("a", "b", "c"), c=10.0)
    bounded = fit_pairwise(better, worse, ("a", "b", "c"), c=10.0, nonnegative=True)
    assert free.weights[1] < 0
    assert bounded.weights[0] > 0 and bounded.weights[1] == 0.0 and min(bounded.weights) >= 0
    assert bounded.meta["nonnegative"] is True


def test_mean_lp_tau_and_c_selection_on_a_clean_signal():
    rng = np.random.default_rng(1)
    names = model_columns()["party+asiya+extra"]
    n = 300
    features = rng.uniform(size=(n, len(names)))
    quality = features[:, names.index("chrf")] + 0.5 * features[:, names.index("meteor")]
    lps = ["de-en" if k < n // 2 else "zh-en" for k in range(n)]
    segments = [f"{lps[k]}:{k // 6}" for k in range(n)]
    pairs = [(a, b) if quality[a] > quality[b] else (b, a)
             for a in range(n) for b in range(a + 1, n) if segments[a] == segments[b]]
    assert mean_lp_tau(quality, pairs, lps) == 1.0
    assert mean_lp_tau(-quality, pairs, lps) == -1.0
    c, tau, grid = select_c(features, pairs, lps, segments, names)
    assert c in C_GRID and set(grid) == {f"{x:g}" for x in C_GRID}
    assert round(tau, 4) == max(grid.values()) and tau > 0.7


def test_rounded_output_is_byte_stable():
    model = fit_pairwise(np.array([[1.0, 0.3], [0.8, 0.1]]), np.array([[0.2, 0.4], [0.1, 0.0]]), ("a", "b"))
    text = json.dumps(rounded(model))
    assert text == json.dumps(rounded(model))
    assert all(len(repr(w).replace("-", "").replace(".", "").lstrip("0")) <= 11 for w in rounded(model)["weights"])


def test_shipped_weights_are_what_the_script_writes():
    data = json.loads(data_path("discotk_weights.json").read_text())
    assert set(data) == set(model_columns())
    for key, columns in model_columns().items():
        entry = data[key]
        assert tuple(entry["features"]) == columns
        assert all(w >= 0 for w in entry["weights"])
        meta = entry["meta"]
        assert meta["c"] in C_GRID and meta["nonnegative"] is True
        assert meta["cv_tau"] == max(meta["cv_tau_by_c"].values())
        assert "same source segment" in meta["data"] and "identical outputs left out" in meta["data"]
    assert data["party+asiya+extra"]["meta"]["cv_tau"] > data["party"]["meta"]["cv_tau"]  # the default's members


def test_chain_layer_has_no_tuned_weights_and_combines_uniformly():
    scorer = DiscoTK(lexical_layer="chain", members="asiya", quiet=True)
    assert scorer.weights_name == "uniform" and scorer.model is None
    with pytest.raises(ValueError, match="no shipped tuned weights"):
        DiscoTK(lexical_layer="chain", members="asiya", weights="tuned", quiet=True)


def test_default_party_scores_one_segment_as_in_a_corpus():
    scorer = DiscoTK(quiet=True)  # party, asiya+extra, shipped tuned weights
    preds = ["The cat sat on the mat.", "A dog barked loudly at night.", "Completely unrelated words."]
    refs = ["The cat sat on the mat.", "The dog barked loudly all night.", "The cat sat on the mat."]
    together = scorer.score(preds, refs).scores
    alone = [scorer.score([p], [r]).scores[0] for p, r in zip(preds, refs)]
    assert alone == pytest.approx(together, abs=1e-6)
    assert together[0] > together[1] > together[2]
    model = scorer.model
    assert together[0] == pytest.approx(1 / (1 + np.exp(-(sum(model.weights) + model.bias))), abs=2e-3)

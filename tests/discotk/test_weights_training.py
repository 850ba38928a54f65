"""DiscoTK's weight training (shared/tools/training/discotk_weights.py): DARR pairs without identical
outputs, folds by source segment, the non-negative pairwise fit, C chosen by cross-validation,
byte-stable output, and the shipped weights file it wrote."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from training.discotk_weights import (
    C_GRID,
    DEFAULT_PER_LP,
    FOLDS,
    SEED,
    WMT21,
    darr_index_pairs,
    flatten,
    fold_of,
    mean_lp_tau,
    model_columns,
    read_jsonl_gz,
    rounded,
    sample_segments,
    select_c,
)

from nlgmetrics.core.resources import data_path
from nlgmetrics.discotk import DiscoTK, PairwiseModel, fit_pairwise


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
    data = rounded(model)
    # independently: each number printed with 10 significant digits and read back
    assert data["weights"] == [float(f"{w:.10g}") for w in model.weights]
    assert data["bias"] == float(f"{model.bias:.10g}")
    assert data["features"] == ["a", "b"] and data["meta"] == model.meta
    assert any(w != r for w, r in zip(model.weights + (model.bias,), data["weights"] + [data["bias"]]))  # it rounds
    # and the same bytes from a fresh process with another hash seed
    script = ("import json, numpy as np\n"
              "from nlgmetrics.discotk import fit_pairwise\n"
              "from training.discotk_weights import rounded\n"
              "m = fit_pairwise(np.array([[1.0, 0.3], [0.8, 0.1]]), np.array([[0.2, 0.4], [0.1, 0.0]]), ('a', 'b'))\n"
              "print(json.dumps(rounded(m), indent=1))\n")
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=os.pathsep.join(sys.path))  # shared/tools too
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
        assert out == json.dumps(data, indent=1) + "\n", seed


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


def test_shipped_weights_file_is_the_scripts_serialisation_byte_for_byte():
    # Rerunning the script needs the features of 4623 WMT21 outputs (about 7 minutes on 2 cores,
    # measured), too slow for a test; so: the file is exactly what the script's rounding and
    # json.dumps(out, indent=1) write for its own entries, in model_columns() order.
    text = data_path("discotk_weights.json").read_text()
    data = json.loads(text)
    assert list(data) == list(model_columns())
    out = {key: rounded(PairwiseModel.from_dict(data[key])) for key in model_columns()}
    assert json.dumps(out, indent=1) + "\n" == text
    for entry in data.values():  # every number already has at most 10 significant digits
        assert all(w == float(f"{w:.10g}") for w in entry["weights"] + [entry["bias"]])


def test_shipped_weights_count_the_scripts_training_sample(shared_data, monkeypatch):
    # the sample (segments, outputs, DARR pairs) the script draws from ../shared/data is the one
    # the shipped file records for every model (the script finds the data beside the checkout;
    # an installed package is elsewhere, so point it at the tests' copy)
    monkeypatch.setenv("NLGMETRICS_SHARED", str(shared_data.parent))
    segments = sample_segments(read_jsonl_gz(WMT21), "train", DEFAULT_PER_LP)
    hyps, _, pairs = flatten(segments)
    assert len({row["lp"] for row in segments}) == 7 and len(segments) == 7 * DEFAULT_PER_LP
    data = json.loads(data_path("discotk_weights.json").read_text())
    for key, entry in data.items():
        meta = entry["meta"]
        assert (meta["wmt21_segments"], meta["wmt21_outputs"], meta["wmt21_pairs"], meta["pairs"]) == (
            len(segments), len(hyps), len(pairs), len(pairs)), key
        assert f"{DEFAULT_PER_LP} per lp, seed {SEED}" in meta["data"] and meta["cv_folds"] == FOLDS


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

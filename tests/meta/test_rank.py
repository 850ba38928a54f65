"""Ranking many metrics on an mt-metrics-eval EvalSet (nlgmetrics.meta.rank, rank_sig,
rank_report, rank_figure, mtme.read_metric_scores) against google-research/mt-metrics-eval's
own output on the committed EvalSet (tests/meta/data, written by
shared/tools/mtme_reference/rank_reference.py): every statistic within 1e-12, every p-value and
draw count of the seven significance matrices EQUAL (the same random draws, no Monte-Carlo
tolerance), AssignRanks' clusters equal on the same p-values; hand-made cluster cases."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from nlgmetrics.core import stats
from nlgmetrics.meta import mtme
from nlgmetrics.meta.pairwise import item_grouped_correlation, pairwise_accuracy, tie_calibrated_accuracy
from nlgmetrics.meta.rank import rank_metrics, rank_published
from nlgmetrics.meta.rank_report import csv_rows, format_sig_matrix, format_table, to_json
from nlgmetrics.meta.rank_sig import STATISTICS, assign_ranks, sig_matrix, statistic

DATA = Path(__file__).parent / "data"
ROOT = DATA / "mtme_rank" / "wmt21sub"
REF = json.loads((DATA / "rank_reference.json").read_text(encoding="utf-8"))
TEST = dict(seed=REF["seed"], k=REF["k"], pval=REF["pval"], block_size=REF["block_size"],
            early_min=REF["early_min"], early_max=REF["early_max"])


@pytest.fixture(scope="module")
def result() -> dict:
    return rank_published(str(ROOT), "cs-en", ranked=["sys.pearson", "seg.pearson"], **TEST)


def test_every_statistic_equals_mt_metrics_eval(result: dict) -> None:
    assert result["systems"]["seg"] == REF["systems"] == result["systems"]["sys"]
    assert sorted(result["metrics"]) == sorted(REF["values"]) and len(REF["values"]) == 6
    for name, ref in REF["values"].items():
        ours = result["metrics"][name]
        for level in ("seg", "item", "sys"):
            for stat, value in ref[level].items():
                assert ours[f"{level}.{stat}"] == pytest.approx(value, abs=1e-12), (name, level, stat)
        assert ours["epsilon"] == pytest.approx(ref["epsilon"], abs=1e-12)
    # acc*_eq's epsilon search is exercised: one metric's best threshold is not 0
    assert REF["values"]["rawnoise-refA"]["epsilon"] == pytest.approx(0.072)


@pytest.mark.parametrize("key", list(REF["tables"]))
def test_significance_matrix_and_ranks_equal_mt_metrics_eval(key: str) -> None:
    ref = REF["tables"][key]
    ours = rank_published(str(ROOT), "cs-en", ranked=[key], **TEST)["rankings"][key]
    assert ours["metrics"] == ref["order"]
    np.testing.assert_allclose(ours["values"], ref["values"], rtol=0, atol=1e-12)
    assert ours["p_values"] == ref["p_matrix"]  # exact: the same draws, the same ties
    assert ours["draws"] == ref["k_used"]  # early stopping (every 50 draws) took the same turns
    assert ours["ranks"] == ref["ranks"]
    assert {50, 100} <= {d for row in ref["k_used"] for d in row} or key == "sys.soft_pairwise_accuracy"


@pytest.mark.parametrize("key", list(REF["tables"]))
def test_assign_ranks_on_their_p_values_gives_their_clusters(key: str) -> None:
    ref = REF["tables"][key]
    assert assign_ranks(np.array(ref["p_matrix"]), REF["pval"]) == ref["ranks"]


def test_assign_ranks_hand_made_cases() -> None:
    n = 4
    everything = np.triu(np.full((n, n), 0.001), 1)
    assert assign_ranks(everything) == [1, 2, 3, 4]
    nothing = np.triu(np.full((n, n), 0.9), 1)
    assert assign_ranks(nothing) == [1, 1, 1, 1]
    # not transitive: 2 is beaten by 0 only; 0 and 1, 1 and 2 are not told apart -> 2 starts rank 2
    p = np.array([[0, 0.5, 0.01], [0, 0, 0.5], [0, 0, 0]])
    assert assign_ranks(p) == [1, 1, 2]
    # a new rank starts at 1; 2 is compared with 1 only (not with 0, which beats it): it joins 1
    p = np.array([[0, 0.01, 0.01], [0, 0, 0.5], [0, 0, 0]])
    assert assign_ranks(p) == [1, 2, 2]
    # p equal to the threshold is significant (p <= pval), just above is not
    assert assign_ranks(np.array([[0, 0.05], [0, 0]]), 0.05) == [1, 2]
    assert assign_ranks(np.array([[0, 0.0501], [0, 0]]), 0.05) == [1, 1]
    assert assign_ranks(np.zeros((0, 0))) == []
    with pytest.raises(ValueError, match="square"):
        assign_ranks(np.zeros((2, 3)))


def _cells(rng: np.random.Generator, n_sys: int = 5, n_items: int = 40) -> np.ndarray:
    return rng.normal(size=(n_sys, n_items))


def test_sig_matrix_by_construction() -> None:
    rng = np.random.default_rng(3)
    human = _cells(rng)
    good, noise = human + 0.1 * _cells(rng), _cells(rng)
    stat = statistic("seg.pearson", human)
    p, used = sig_matrix(stat, np.stack([good, noise]), k=200, seed=1, block_size=200)
    assert p[0, 1] == 0.0 and used[0, 1] == 200 and p[1, 0] == 0 and used[1, 0] == 0
    # one metric twice: every draw ties the observed difference (0 >= 0): p = 1
    p, _ = sig_matrix(stat, np.stack([good, good]), k=50, seed=1)
    assert p[0, 1] == 1.0
    # early stopping: after the first block of 10 draws p = 0 < 0.02 stops the test
    p, used = sig_matrix(stat, np.stack([good, noise]), k=1000, seed=1, block_size=10)
    assert used[0, 1] == 10 and p[0, 1] == 0.0
    # k = 0: no test, zeros (mt-metrics-eval's ComputeSigMatrix)
    p, used = sig_matrix(stat, np.stack([good, noise]), k=0)
    assert not p.any() and not used.any()
    # the draws are numpy.random.RandomState(seed).binomial(1, .5, units) pair after pair:
    # a second pair's p depends on the first pair's draws, exactly as in ComputeSigMatrix
    three = np.stack([good, human + 2.0 * _cells(rng), human + 2.0 * _cells(rng)])  # 1 and 2 close
    p3, _ = sig_matrix(stat, three, k=100, seed=5, block_size=100)
    p2, _ = sig_matrix(stat, three[[1, 2]], k=100, seed=5, block_size=100)
    assert p2[0, 1] == _one_pair_p(stat, three[1], three[2], np.random.RandomState(5), 100)
    rs = np.random.RandomState(5)
    rs.binomial(1, 0.5, (200, stat.units.size))  # the draws of pairs (0, 1) and (0, 2)
    assert p3[1, 2] == _one_pair_p(stat, three[1], three[2], rs, 100) != p2[0, 1]
    assert 0.05 < p3[1, 2] < 0.95 and 0.05 < p2[0, 1] < 0.95


def _one_pair_p(stat: object, a: np.ndarray, b: np.ndarray, rs: np.random.RandomState, k: int) -> float:
    """PermutationSigDiff written out for one pair (z-scores, hybrids, c2 - c1 >= delta)."""
    za, zb = ((x.ravel() - x.mean()) / x.std() for x in (a, b))
    fn = stat.values  # type: ignore[attr-defined]
    delta = fn(za.reshape(1, *a.shape))[0] - fn(zb.reshape(1, *a.shape))[0]
    hits = 0
    for _ in range(k):
        w = rs.binomial(1, 0.5, za.size)
        m2, m1 = w * za + (1 - w) * zb, (1 - w) * za + w * zb
        hits += fn(m2.reshape(1, *a.shape))[0] - fn(m1.reshape(1, *a.shape))[0] >= delta
    return hits / k


def test_statistics_equal_the_projects_scalar_functions_with_missing_human_scores() -> None:
    rng = np.random.default_rng(8)
    human = np.round(rng.normal(size=(6, 30)), 1)
    human[rng.random(human.shape) < 0.15] = np.nan
    metrics = np.round(human + rng.normal(size=(3, 6, 30)), 2)
    metrics[np.isnan(metrics)] = 0.5
    keep = np.isfinite(human)
    items = np.broadcast_to(np.arange(30), human.shape)[keep].tolist()
    for key in STATISTICS:
        gold = human if STATISTICS[key] == "seg" else np.nanmean(human, axis=1, keepdims=True)
        mats = metrics if STATISTICS[key] == "seg" else metrics.mean(axis=2, keepdims=True)
        got = statistic(key, gold).values(mats)
        level, name = key.split(".", 1)
        for m, value in zip(mats, got):
            if key == "sys.soft_pairwise_accuracy":
                continue  # complete items only; checked against mt-metrics-eval above
            if level == "item" and name == "tie_calibrated_accuracy":
                want = tie_calibrated_accuracy(m[keep], human[keep], items)[0]
            elif level == "item":
                want = item_grouped_correlation(m[keep], human[keep], items, name)[0]
            elif name == "pairwise_accuracy":
                want = pairwise_accuracy(m.ravel(), gold.ravel())
            else:
                ok = np.isfinite(gold)
                want = stats.CORRELATIONS[name](m[ok], gold[ok])
            assert value == pytest.approx(want, abs=1e-12), key
    # SPA reads the items every system has: with one gap, one item fewer
    spa = statistic("sys.soft_pairwise_accuracy", human)
    assert spa.units.size == 6 * int(keep.all(axis=0).sum())


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "wmt21sub"
    shutil.copytree(ROOT, root)
    return root


def test_the_result_records_its_test_and_the_report_shows_it(result: dict) -> None:
    for field in ("seed", "k", "pval", "block_size", "early_min", "early_max"):
        assert result[field] == TEST[field]
    assert result["spa_permutations"] == 1000 and result["spa_seed"] == 4
    assert "AssignRanks" in result["procedure"] and result["human"] == "wmt-raw" and result["ref"] == "refA"
    assert result["system_human"] == "human-scores/cs-en.wmt-raw.sys.score"
    table = format_table(result)
    lines = table.splitlines()
    assert "k=100, seed=1234" in lines[0] and "sys pearson" in lines[1] and "seg pearson" in lines[1]
    top = lines[2].split()  # rawnoise-refA leads both rankings: avg rank 1.00
    assert top[0] == "rawnoise-refA" and top[1] == "1.00"
    seg = result["rankings"]["seg.pearson"]
    assert top[-1] == f"{seg['values'][0]:.4f}" and top[-2] == "1"
    cols, rows = csv_rows(result)
    assert cols[:5] == ["metric", "level", "statistic", "value", "rank"]
    assert len(rows) == 6 * len(STATISTICS)
    row = next(r for r in rows if r["metric"] == seg["metrics"][-1] and r["statistic"] == "pearson"
               and r["level"] == "seg")
    assert row["rank"] == seg["ranks"][-1] == 5 and row["value"] == seg["values"][-1] and row["ci95_low"] == ""
    assert next(r for r in rows if r["level"] == "item" and r["statistic"] == "pearson")["rank"] == ""
    back = json.loads(to_json(result))
    assert back["rankings"]["seg.pearson"]["p_values"] == seg["p_values"]
    matrix = format_sig_matrix(result, "seg.pearson").splitlines()
    assert matrix[1].split()[:2] == ["rawnoise-refA", "1"] and len(matrix) == 7
    with pytest.raises(ValueError, match="no ranking 'item.kendall'"):
        format_sig_matrix(result, "item.kendall")


def test_json_writes_an_undefined_value_as_null(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    seg = mtme.read_score_file(str(root / "metric-scores/cs-en/BLEU-refA.seg.score"), human=False)
    flat = {"seg": {s: [0.3] * len(v) for s, v in seg.items()}}  # the mean of 600 0.3s is not exactly 0.3
    es = mtme.read_evalset(str(root), "cs-en")
    out = rank_metrics(es, {"flat-refA": flat, "BLEU-refA": {"seg": seg}}, ranked=["seg.pearson"], k=10)
    assert out["rankings"]["seg.pearson"]["left_out"] == ["flat-refA"]  # constant: undefined
    assert out["rankings"]["seg.pearson"]["metrics"] == ["BLEU-refA"] and out["rankings"]["seg.pearson"]["ranks"] == [1]
    back = json.loads(to_json(out))["metrics"]["flat-refA"]
    assert back["seg.pearson"] is None and back["item.pearson"] is None and back["seg.kendall"] is None
    assert any("flat-refA has no sys scores" in w for w in out["warnings"])
    assert "left out of seg.pearson (undefined value): flat-refA" in format_table(out)


def test_bootstrap_intervals_for_segment_statistics_only() -> None:
    es = mtme.read_evalset(str(ROOT), "cs-en")
    scores = mtme.read_metric_scores(str(ROOT), "cs-en", ["noisyA-refA", "BLEU-refA"])
    out = rank_metrics(es, scores, ranked=["seg.pearson", "sys.pearson"], k=0, bootstrap=200, seed=2)
    seg = out["rankings"]["seg.pearson"]
    # k = 0: no test, and, as mt-metrics-eval's CompareMetrics, ranks in plain order
    assert seg["p_values"] == [[0.0, 0.0], [0.0, 0.0]] and seg["draws"] == [[0, 0], [0, 0]] and seg["ranks"] == [1, 2]
    for value, (lo, hi) in zip(seg["values"], seg["ci95"]):
        assert lo < value < hi
    assert out["rankings"]["sys.pearson"]["ci95"] == [None, None]
    again = rank_metrics(es, scores, ranked=["seg.pearson"], k=0, bootstrap=200, seed=2)
    assert again["rankings"]["seg.pearson"]["ci95"] == seg["ci95"]


def test_read_metric_scores(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    folder = root / "metric-scores" / "cs-en"
    shutil.copy(folder / "chrF-refA.seg.score", folder / "BLEURT-20-refA.seg.score")
    got = mtme.read_metric_scores(str(root), "cs-en", ["BLEURT-20-refA", "BLEU-refA"])
    assert list(got["BLEURT-20-refA"]) == ["seg"] and list(got["BLEU-refA"]) == ["seg", "sys"]
    assert got["BLEU-refA"]["sys"]["Online-A"] == [27.653628450875622]
    assert got["BLEURT-20-refA"]["seg"] == mtme.read_score_file(str(folder / "chrF-refA.seg.score"), human=False)
    assert sorted(mtme.read_metric_scores(str(root), "cs-en")) == sorted([*REF["values"], "BLEURT-20-refA"])
    assert list(mtme.read_metric_scores(str(root), "cs-en", ["BLEU-refA"], levels=("sys",))["BLEU-refA"]) == ["sys"]
    with pytest.raises(mtme.files.InputFileError, match=r"no COMET-refA.seg/sys.score \(metrics there: BLEU-refA"):
        mtme.read_metric_scores(str(root), "cs-en", ["COMET-refA"])
    for bad in ("../x-refA", "BLEU", ".hidden-refA"):
        with pytest.raises(ValueError, match="expected METRIC-REF"):
            mtme.read_metric_scores(str(root), "cs-en", [bad])
    with pytest.raises(ValueError, match="levels must be among"):
        mtme.read_metric_scores(str(root), "cs-en", levels=("domain",))
    (folder / "BLEU-refA.sys.score").write_text("Online-A None\n", encoding="utf-8")
    with pytest.raises(mtme.files.InputFileError, match="None in a metric score file"):
        mtme.read_metric_scores(str(root), "cs-en", ["BLEU-refA"])


def test_rank_published_picks_the_metrics_of_its_reference(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    folder = root / "metric-scores" / "cs-en"
    shutil.copy(folder / "chrF-refA.seg.score", folder / "chrF-refB.seg.score")
    out = rank_published(str(root), "cs-en", ranked=["seg.pearson"], k=5)
    assert "chrF-refB" not in out["metrics"] and {"coarse-src", "chrF-refA"} <= set(out["metrics"])
    out = rank_published(str(root), "cs-en", ["chrF-refB", "chrF-refA"], ranked=["seg.pearson"], k=5)
    assert out["rankings"]["seg.pearson"]["values"][0] == out["rankings"]["seg.pearson"]["values"][1]
    assert out["rankings"]["seg.pearson"]["metrics"] == ["chrF-refA", "chrF-refB"]  # a tie: by name


def test_systems_left_out_and_system_scores_without_a_sys_file(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    # an output named as the reference (a human translation) with human and metric scores
    shutil.copy(root / "references/cs-en.refA.txt", root / "system-outputs/cs-en/refA.txt")
    for path in [root / "human-scores/cs-en.wmt-raw.seg.score", *(root / "metric-scores/cs-en").glob("*.seg.score")]:
        text = path.read_text(encoding="utf-8")
        path.write_text(text + "".join(f"refA\t{50.0 + k % 7}\n" for k in range(100)), encoding="utf-8")
    (root / "human-scores/cs-en.wmt-raw.sys.score").unlink()
    es = mtme.read_evalset(str(root), "cs-en")
    scores = mtme.read_metric_scores(str(root), "cs-en", ["noisyA-refA"])
    out = rank_metrics(es, scores, ranked=["sys.pearson"], k=0)
    assert "refA" not in out["systems"]["seg"] and len(out["systems"]["sys"]) == 6
    assert out["system_human"].startswith("each system's mean human segment score")
    human = np.array([es.human["wmt-raw"]["seg"][s] for s in REF["systems"]]).mean(axis=1)
    metric = [scores["noisyA-refA"]["sys"][s][0] for s in REF["systems"]]
    assert out["metrics"]["noisyA-refA"]["sys.pearson"] == pytest.approx(stats.pearson(metric, human), abs=1e-12)


def test_bad_input_gives_one_clear_error(tmp_path: Path) -> None:
    es = mtme.read_evalset(str(ROOT), "cs-en")
    scores = mtme.read_metric_scores(str(ROOT), "cs-en", ["BLEU-refA"])
    with pytest.raises(ValueError, match="unknown statistic 'seg.bleu'"):
        rank_metrics(es, scores, ranked=["seg.bleu"])
    with pytest.raises(ValueError, match="no metrics to rank"):
        rank_metrics(es, {})
    with pytest.raises(ValueError, match="0 < pval < 1"):
        rank_metrics(es, scores, pval=1.5)
    with pytest.raises(ValueError, match="no human-scores/cs-en.mqm.seg.score"):
        rank_metrics(es, scores, human="mqm")
    with pytest.raises(ValueError, match="no references/cs-en.refB.txt"):
        rank_metrics(es, scores, ref="refB")
    short = {"seg": {s: v[:-1] for s, v in scores["BLEU-refA"]["seg"].items()}}
    with pytest.raises(ValueError, match="metric X-refA: 99 seg scores for system CUNI-Transformer2018, expected 100"):
        rank_metrics(es, {"X-refA": short})
    missing = {"sys": {s: v for s, v in scores["BLEU-refA"]["sys"].items() if s != "Online-Y"}}
    with pytest.raises(ValueError, match="metric X-refA: no sys scores for system Online-Y"):
        rank_metrics(es, {"X-refA": missing})
    with pytest.raises(ValueError, match="missing or non-finite seg score for system Online-A"):
        rank_metrics(es, {"X-refA": {"seg": {**scores["BLEU-refA"]["seg"], "Online-A": [None] * 100}}})


def test_the_figure(result: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    from nlgmetrics.meta.rank_figure import rank_figure

    png = rank_figure(result, "seg.pearson")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == rank_figure(result, "seg.pearson")  # no date inside
    svg = rank_figure(result, fmt="svg").decode("utf-8")
    assert "<svg" in svg and "rank 3" in svg and "coarse-src" in svg
    with pytest.raises(ValueError, match="png or svg"):
        rank_figure(result, fmt="pdf")
    with pytest.raises(ValueError, match="no ranking 'item.pearson'"):
        rank_figure(result, "item.pearson")
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="needs matplotlib, which is not installed: pip install matplotlib"):
        rank_figure(result)

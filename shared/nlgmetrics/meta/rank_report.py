"""What a metrics-task ranking (:func:`nlgmetrics.meta.rank.rank_metrics`) is written as: the
text table (a row per metric, a "rank value" column per ranked statistic, as WMT's tables and
mt-metrics-eval's ``tasks.MetricsTable`` show them), a ranking's significance matrix, JSON,
and CSV rows. Contents only: the files are written by the project's writer."""
from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Optional, Tuple

#: CSV columns, one row per metric and statistic
CSV_COLUMNS = ("metric", "level", "statistic", "value", "rank", "ci95_low", "ci95_high", "epsilon")


def _num(x: Any, fmt: str = ".4f") -> str:
    return format(x, fmt) if isinstance(x, (int, float)) and math.isfinite(x) else "-"


def _cells(result: Dict[str, Any]) -> Dict[str, Dict[str, Tuple[int, float]]]:
    """metric -> ranking key -> (rank, value)."""
    out: Dict[str, Dict[str, Tuple[int, float]]] = {}
    for key, r in result["rankings"].items():
        for name, rank, value in zip(r["metrics"], r["ranks"], r["values"]):
            out.setdefault(name, {})[key] = (rank, value)
    return out


def metric_order(result: Dict[str, Any]) -> List[str]:
    """Metrics by their mean rank over the rankings they are in, then by name; metrics in no
    ranking last."""
    cells = _cells(result)

    def mean_rank(name: str) -> float:
        ranks = [rank for rank, _ in cells.get(name, {}).values()]
        return sum(ranks) / len(ranks) if ranks else math.inf

    return sorted(result["metrics"], key=lambda n: (mean_rank(n), n))


def format_table(result: Dict[str, Any]) -> str:
    """The metrics-task table: per metric its mean rank and, per ranked statistic, its rank
    (significance cluster at ``pval``) and value; a note per metric left out of a ranking."""
    keys = list(result["rankings"])
    cells = _cells(result)
    names = metric_order(result)
    width = max([len("metric"), *(len(n) for n in names)])
    head = (f"{result['lp']}, human {result['human']}, reference {result['ref']}: {len(names)} metrics; "
            f"ranks are significance clusters at p <= {result['pval']} (Perm-Both, one-sided, "
            f"k={result['k']}, seed={result['seed']})")
    cols = [f"{result['rankings'][k]['level']} {result['rankings'][k]['statistic']}" for k in keys]
    colw = [max(12, len(c)) for c in cols]
    lines = [head, f"{'metric':{width}s}  {'avg rank':>8s}  " + "  ".join(f"{c:>{w}s}" for c, w in zip(cols, colw))]
    for name in names:
        got = cells.get(name, {})
        avg = sum(r for r, _ in got.values()) / len(got) if got else math.nan
        row = [f"{got[k][0]:>2d} {_num(got[k][1])}" if k in got else "-" for k in keys]
        lines.append(f"{name:{width}s}  {_num(avg, '8.2f'):>8s}  " + "  ".join(f"{c:>{w}s}" for c, w in zip(row, colw)))
    for key in keys:
        if result["rankings"][key]["left_out"]:
            lines.append(f"left out of {key} (undefined value): {', '.join(result['rankings'][key]['left_out'])}")
    lines += [f"note: {w}" for w in result.get("warnings", [])]
    return "\n".join(lines)


def format_sig_matrix(result: Dict[str, Any], key: str) -> str:
    """One ranking as mt-metrics-eval's ``PrintMetricComparison(probs=True)`` shows it: per metric
    its rank, value and the p-values of "it is better than" each metric below it."""
    if key not in result["rankings"]:
        raise ValueError(f"no ranking {key!r} (rankings: {', '.join(result['rankings']) or 'none'})")
    r = result["rankings"][key]
    width = max([len("metric"), *(len(n) for n in r["metrics"])])
    lines = [f"{key}: p[i, j] = p-value of 'row i is better than column j' (Perm-Both, one-sided, k={result['k']})"]
    for i, (name, rank, value) in enumerate(zip(r["metrics"], r["ranks"], r["values"])):
        ps = " ".join(["  .  "] * (i + 1) + [f"{p:5.3f}" for p in r["p_values"][i][i + 1:]])
        lines.append(f"{name:{width}s} {rank:>2d} {_num(value, '10.7f')}  {ps}")
    return "\n".join(lines)


def _plain(x: Any) -> Any:
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def to_json(result: Dict[str, Any]) -> str:
    """The whole result as JSON (an undefined value is ``null``)."""
    return json.dumps(_plain(result), indent=1, allow_nan=False) + "\n"


def csv_rows(result: Dict[str, Any]) -> Tuple[List[str], List[Dict[str, Any]]]:
    """``(columns, rows)``: one row per metric and statistic (:data:`CSV_COLUMNS`), the rank
    and interval where the statistic is ranked, empty cells where not."""
    rankings = result["rankings"]
    rows = []
    for name in metric_order(result):
        for key, value in result["metrics"][name].items():
            if key == "epsilon":
                continue
            level, stat = key.split(".", 1)
            row: Dict[str, Any] = {c: "" for c in CSV_COLUMNS}
            row.update(metric=name, level=level, statistic=stat, value=_plain(value))
            r: Optional[Dict[str, Any]] = rankings.get(key)
            if r is not None and name in r["metrics"]:
                i = r["metrics"].index(name)
                row["rank"] = r["ranks"][i]
                if r["ci95"][i]:
                    row["ci95_low"], row["ci95_high"] = r["ci95"][i]
            if stat == "tie_calibrated_accuracy":
                row["epsilon"] = result["metrics"][name].get("epsilon", "")
            rows.append({k: "" if v is None else v for k, v in row.items()})
    return list(CSV_COLUMNS), rows


__all__ = ["CSV_COLUMNS", "csv_rows", "format_sig_matrix", "format_table", "metric_order", "to_json"]

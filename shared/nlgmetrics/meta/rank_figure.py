"""The figure of one metrics-task ranking (:func:`nlgmetrics.meta.rank.rank_metrics`): the
metrics in rank order, each value with its 95 % bootstrap interval where the ranking has one,
and a line between significance clusters. matplotlib is imported only here, when a figure is
drawn (it is not a dependency of the package)."""
from __future__ import annotations

import io
import math
from typing import Any, Dict, Optional

FORMATS = ("png", "svg")


def _matplotlib() -> Any:
    try:
        from matplotlib import rc_context
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("drawing a ranking needs matplotlib, which is not installed: pip install matplotlib") from None
    return Figure, FigureCanvasAgg, rc_context


def rank_figure(result: Dict[str, Any], key: Optional[str] = None, fmt: str = "png") -> bytes:
    """The figure of ranking ``key`` (default: the first) as ``png`` or ``svg`` bytes: best
    metric on top, a dot per value, its interval as a bar, a dashed line where the rank
    changes, the rank on the right. The same result gives the same bytes (no date inside)."""
    if fmt not in FORMATS:
        raise ValueError(f"figure format must be png or svg, got {fmt!r}")
    rankings = result.get("rankings") or {}
    if key is None:
        if not rankings:
            raise ValueError("the result holds no ranking to draw")
        key = next(iter(rankings))
    if key not in rankings:
        raise ValueError(f"no ranking {key!r} (rankings: {', '.join(rankings) or 'none'})")
    r = rankings[key]
    if not r["metrics"]:
        raise ValueError(f"ranking {key!r} has no metric with a defined value")
    figure_cls, canvas_cls, rc_context = _matplotlib()
    n = len(r["metrics"])
    fig = figure_cls(figsize=(7.0, 1.2 + 0.38 * n), dpi=100)
    canvas_cls(fig)
    ax = fig.subplots()
    ys = list(range(n))[::-1]  # best on top
    for y, value, ci in zip(ys, r["values"], r["ci95"]):
        if ci:
            ax.plot(ci, [y, y], color="0.45", linewidth=2.0, solid_capstyle="butt")
        ax.plot([value], [y], "o", color="tab:blue", markersize=6)
    for i in range(1, n):
        if r["ranks"][i] != r["ranks"][i - 1]:
            ax.axhline(ys[i] + 0.5, color="tab:red", linestyle="--", linewidth=0.8)
    ax.set_yticks(ys, r["metrics"])
    ax.set_ylim(-0.6, n - 0.4)
    right = ax.twinx()
    right.set_ylim(ax.get_ylim())
    right.set_yticks(ys, [f"rank {rank}" for rank in r["ranks"]])
    finite = [v for v in r["values"] if isinstance(v, float) and math.isfinite(v)]
    ax.set_xlabel(f"{r['level']} {r['statistic']}" + ("  (bars: 95% bootstrap interval)" if any(r["ci95"]) else ""))
    ax.set_title(f"{result.get('lp', '')}: {key}, clusters at p <= {result['pval']}\n"
                 f"(Perm-Both, k={result['k']}, seed={result['seed']})", fontsize=9)  # two lines: fits beside long names
    if finite and min(finite) == max(finite):
        ax.set_xlim(min(finite) - 0.5, max(finite) + 0.5)
    ax.grid(axis="x", color="0.9")
    fig.tight_layout()
    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "nlgmetrics"}):  # SVG text as text, fixed ids
        fig.savefig(buf, format=fmt, metadata=meta)
    return buf.getvalue()


__all__ = ["FORMATS", "rank_figure"]

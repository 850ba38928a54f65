"""Drawings for the Spaces as plain HTML/SVG strings (no plotting library): numbers for the
page, titled sections, horizontal bar charts, colour-scaled tables (heatmaps), trees, and a
scroll container so that a wide drawing never clips at phone width. Every number drawn
carries its full-precision value in ``data-value`` for scripts and tests."""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: segments drawn in detail on the example tab (the score table lists them all)
MAX_DRAWN = 6
#: words per side drawn in a heatmap; longer sentences are cut (with a note)
MAX_HEATMAP = 40
#: leaves drawn in one tree; larger trees are cut (with a note)
MAX_LEAVES = 24


def scroll(body: str, role: str = "scroll") -> str:
    """``body`` in a box that scrolls sideways when wider than the page (phone width)."""
    return (f'<div class="nlgm-scroll" data-role="{html.escape(role)}" '
            f'style="overflow-x:auto;max-width:100%;-webkit-overflow-scrolling:touch">{body}</div>')


def note(text: str) -> str:
    """A small grey line under a drawing (what was cut, what a colour means)."""
    return f'<div class="nlgm-note" style="color:#555;font-size:13px;margin:4px 0">{html.escape(text)}</div>'


def fmt(value: Any, digits: int = 4) -> str:
    """A number for the page: ``nan``/``inf`` spelled out, else ``digits`` decimals."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return html.escape(str(value))
    if not math.isfinite(number):
        return "n/a" if math.isnan(number) else ("∞" if number > 0 else "-∞")
    return f"{number:.{digits}f}"


def shorten(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def section(title: str, body: str) -> str:
    """A titled block of the visual output."""
    return (f'<div class="nlgm-section" style="margin:10px 0 18px 0;max-width:100%"><div style="font-weight:600;'
            f'margin-bottom:6px">{html.escape(title)}</div>{scroll(body)}</div>')


def flex_row(parts: Sequence[str], gap: int = 32) -> str:
    """Blocks side by side, wrapping to the next line when the page is narrow."""
    cells = "".join(f'<div style="max-width:100%;min-width:0">{p}</div>' for p in parts if p)
    return f'<div style="display:flex;flex-wrap:wrap;gap:8px {gap}px;align-items:flex-start">{cells}</div>'


def bar_chart(items: Sequence[Tuple[str, float]], *, title: str = "", digits: int = 3,
              color: str = "#4c78a8", negative_color: str = "#e45756", width: int = 560,
              label_width: int = 170, domain: Optional[Tuple[float, float]] = None, role: str = "bars") -> str:
    """A horizontal bar chart as inline SVG; bars start at 0, so negative values (log
    probabilities) point left. ``domain`` fixes the axis (e.g. (0, 1) for similarities, so
    that charts compare), else it spans the values. Non-finite values draw no bar, ``n/a``."""
    values = [float(v) if v is not None and math.isfinite(float(v)) else float("nan") for _, v in items]
    finite = [v for v in values if not math.isnan(v)] or [0.0]
    lo, hi = min(0.0, *finite), max(0.0, *finite)
    if domain is not None:
        lo, hi = min(lo, domain[0]), max(hi, domain[1])
    span = (hi - lo) or 1.0
    plot = width - label_width - 70
    zero = label_width + plot * (0 - lo) / span
    bar_h, gap, top = 20, 8, 22 if title else 4
    height = top + len(items) * (bar_h + gap) + 4
    parts = [f'<svg class="nlgm-chart" data-role="{html.escape(role)}" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" style="font-family:sans-serif;'
             f'font-size:12px;max-width:100%;height:auto">']
    if title:
        parts.append(f'<text x="0" y="14" font-weight="bold">{html.escape(title)}</text>')
    for k, ((label, _), value) in enumerate(zip(items, values)):
        y = top + k * (bar_h + gap)
        parts.append(f'<text x="{label_width - 6}" y="{y + 14}" text-anchor="end">{html.escape(str(label))}</text>')
        if not math.isnan(value):
            x0 = label_width + plot * (min(value, 0) - lo) / span
            w = max(plot * abs(value) / span, 1.0)
            fill = negative_color if value < 0 else color
            parts.append(f'<rect x="{x0:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{fill}" '
                         f'data-label="{html.escape(str(label))}" data-value="{value!r}"/>')
            # positive values print at the bar's end, negative ones right of the zero line
            tx = x0 + w + 4 if value >= 0 else zero + 4
            parts.append(f'<text x="{tx:.1f}" y="{y + 14}">{fmt(value, digits)}</text>')
        else:
            parts.append(f'<text x="{zero + 4:.1f}" y="{y + 14}">n/a</text>')
    parts.append(f'<line x1="{zero:.1f}" y1="{top - 2}" x2="{zero:.1f}" y2="{height - 2}" stroke="#333"/>')
    parts.append("</svg>")
    return "".join(parts)


def _mix(value: float, lo: float, hi: float) -> str:
    """White to blue by ``value`` in [lo, hi]."""
    t = 0.0 if hi == lo or not math.isfinite(value) else min(max((value - lo) / (hi - lo), 0.0), 1.0)
    r, g, b = (int(255 + (c - 255) * t) for c in (33, 102, 172))
    return f"rgb({r},{g},{b})"


def heatmap(row_labels: Sequence[str], col_labels: Sequence[str], matrix: Sequence[Sequence[float]], *,
            marked: Sequence[Tuple[int, int]] = (), lo: float = 0.0, hi: float = 1.0, digits: int = 2,
            role: str = "heatmap", titles: Optional[Sequence[Sequence[str]]] = None) -> str:
    """A colour-scaled table (rows x columns); ``marked`` cells get a red frame and
    ``data-marked``."""
    marks = {(int(i), int(j)) for i, j in marked}
    head = "".join(f'<th style="padding:2px 4px;font-weight:500;writing-mode:vertical-rl;transform:rotate(180deg);'
                   f'text-align:left">{html.escape(c)}</th>' for c in col_labels)
    body = []
    for i, (label, row) in enumerate(zip(row_labels, matrix)):
        cells = []
        for j, value in enumerate(row):
            v = float(value)
            dark = math.isfinite(v) and hi > lo and (v - lo) / (hi - lo) > 0.55
            frame = "outline:3px solid #d62728;outline-offset:-3px;" if (i, j) in marks else ""
            tip = f' title="{html.escape(titles[i][j])}"' if titles is not None else ""
            mark = " data-marked" if (i, j) in marks else ""
            cells.append(f'<td data-i="{i}" data-j="{j}" data-value="{v!r}"{mark}{tip} '
                         f'style="background:{_mix(v, lo, hi)};color:{"#fff" if dark else "#222"};{frame}'
                         f'min-width:34px;text-align:center;padding:3px">{fmt(v, digits)}</td>')
        body.append(f'<tr><th style="text-align:right;padding-right:6px;font-weight:500">{html.escape(label)}</th>'
                    f'{"".join(cells)}</tr>')
    return (f'<table class="nlgm-heatmap" data-role="{html.escape(role)}" style="border-collapse:collapse;'
            f'font-size:12px"><tr><th></th>{head}</tr>{"".join(body)}</table>')


@dataclass
class TreeNode:
    """A node to draw: ``label`` (a leaf's may be long text: it is wrapped), ``children``,
    the ``edge`` label on the line from the parent and whether that line is ``strong``."""

    label: str
    children: List["TreeNode"] = field(default_factory=list)
    edge: str = ""
    strong: bool = True


def _wrap(text: str, width: int) -> List[str]:
    lines: List[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def count_leaves(node: TreeNode) -> int:
    return 1 if not node.children else sum(count_leaves(c) for c in node.children)


def tree_svg(root: TreeNode, *, leaf_width: int = 150, level_height: int = 62, role: str = "tree") -> str:
    """Inline SVG of a tree with all leaves on the bottom row (the way RST trees are drawn):
    inner nodes centred over their children, leaf text wrapped in boxes."""
    chars = max(leaf_width // 7, 8)
    leaves: List[TreeNode] = []
    depth: Dict[int, int] = {}

    def walk(node: TreeNode, d: int) -> int:
        depth[id(node)] = d
        if not node.children:
            leaves.append(node)
            return d
        return max(walk(c, d + 1) for c in node.children)

    max_depth = walk(root, 0)
    leaf_lines = {id(n): _wrap(n.label, chars)[:6] for n in leaves}
    leaf_h = 16 * max(len(v) for v in leaf_lines.values()) + 10
    xs: Dict[int, float] = {id(n): 10 + k * (leaf_width + 10) + leaf_width / 2 for k, n in enumerate(leaves)}

    def place(node: TreeNode) -> float:
        if node.children:
            xs[id(node)] = sum(place(c) for c in node.children) / len(node.children)
        return xs[id(node)]

    place(root)
    width = max(int(10 + len(leaves) * (leaf_width + 10)), 200)
    height = int(max_depth * level_height + leaf_h + 30)

    def y_of(node: TreeNode) -> float:
        return 20 + (max_depth if not node.children else depth[id(node)]) * level_height

    parts = [f'<svg class="nlgm-tree" data-role="{html.escape(role)}" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" style="font-family:sans-serif;'
             f'font-size:12px">']

    def draw(node: TreeNode) -> None:
        x, y = xs[id(node)], y_of(node)
        for child in node.children:
            cx, cy = xs[id(child)], y_of(child) - 8
            dash = "" if child.strong else ' stroke-dasharray="5,4"'
            parts.append(f'<line x1="{x:.1f}" y1="{y + 6}" x2="{cx:.1f}" y2="{cy}" stroke="#555" '
                         f'stroke-width="{2 if child.strong else 1.2}"{dash}/>')
            if child.edge:
                parts.append(f'<text x="{(x + cx) / 2 + 4:.1f}" y="{(y + cy) / 2 + 4:.1f}" fill="#777" '
                             f'font-size="11">{html.escape(child.edge)}</text>')
            draw(child)
        if node.children:
            parts.append(f'<text x="{x:.1f}" y="{y}" text-anchor="middle" font-weight="bold" '
                         f'data-role="node">{html.escape(node.label)}</text>')
        else:
            lines = leaf_lines[id(node)]
            parts.append(f'<rect x="{x - leaf_width / 2:.1f}" y="{y - 8}" width="{leaf_width}" height="{leaf_h}" '
                         f'rx="4" fill="#f3f6fa" stroke="#9aaabb" data-role="leaf"/>')
            for k, line in enumerate(lines):
                parts.append(f'<text x="{x:.1f}" y="{y + 8 + 16 * k}" text-anchor="middle">{html.escape(line)}</text>')

    draw(root)
    parts.append("</svg>")
    return "".join(parts)




def legend(entries: Sequence[Tuple[str, str]], title: str = "What the labels mean") -> str:
    """A list of ``label: meaning`` lines under a drawing (every component label explained)."""
    items = "".join(f'<li data-label="{html.escape(label)}"><code>{html.escape(label)}</code>: '
                    f"{html.escape(meaning)}</li>" for label, meaning in entries)
    return (f'<details class="nlgm-legend" data-role="legend" open style="font-size:13px;margin:4px 0">'
            f'<summary>{html.escape(title)}</summary><ul style="margin:4px 0;padding-left:18px">{items}</ul>'
            f"</details>")

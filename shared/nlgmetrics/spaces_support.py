"""What the five Gradio Spaces (``spaces/<name>/app.py``) share: the runtime choice (device,
dtype, the optional ZeroGPU ``spaces.GPU`` wrapper), scorers loaded once per configuration,
the page skeleton (settings, an example tab with the papers' examples, a batch tab that reads
CSV/JSONL and returns the scores as files), messages for bad input, and small HTML/SVG
drawings (bar charts, heatmaps, trees) so that the apps need no plotting library.

An app describes itself with a :class:`SpaceSpec` (its settings, its visual outputs and how
to fill them from a :class:`~nlgmetrics.core.result.MetricResult`) and calls
:func:`build_space`, which returns the ``gr.Blocks`` without launching it.
"""
from __future__ import annotations

import csv
import functools
import html
import importlib
import inspect
import json
import math
import os
import re
import tempfile
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import gradio as gr

import nlgmetrics
from nlgmetrics.core.result import MetricResult

#: the gradio version the Spaces are written for (their README's ``sdk_version``)
GRADIO_SDK_VERSION = "6.31.0"
#: segments drawn in detail on the example tab (the score table lists them all)
MAX_DRAWN = 6
#: lines accepted on the example tab; more go through the batch tab
MAX_EXAMPLE_LINES = 64
#: rows accepted in one uploaded batch file
MAX_BATCH_ROWS = 5000
#: separator of several references on one line (multi-reference metrics)
REFERENCE_SEPARATOR = "|||"

Factory = Callable[..., Any]


# -- runtime: device, dtype, ZeroGPU -----------------------------------------------------------
@dataclass(frozen=True)
class Runtime:
    """Where models run: ``device`` (``cuda``/``mps``/``cpu``), the default ``dtype`` for it and
    whether the ZeroGPU ``spaces.GPU`` decorator is present."""

    device: str
    dtype: str
    zero_gpu: bool

    def describe(self) -> str:
        where = "ZeroGPU" if self.zero_gpu else self.device
        return f"device {where} · dtype {self.dtype}"


def zero_gpu_decorator() -> Optional[Callable[..., Any]]:
    """``spaces.GPU`` when the Hugging Face ``spaces`` package is installed, else ``None``
    (a folder named ``spaces`` on the path imports as an empty namespace package: no ``GPU``)."""
    try:
        module = importlib.import_module("spaces")
    except ImportError:
        return None
    decorator = getattr(module, "GPU", None)
    return decorator if callable(decorator) else None


def on_zero_gpu() -> bool:
    """A ZeroGPU Space: the ``spaces`` package is there and the Hub set ``SPACES_ZERO_GPU``."""
    return zero_gpu_decorator() is not None and os.environ.get("SPACES_ZERO_GPU", "").lower() in ("1", "true")


def detect_runtime(gpu_dtypes: Sequence[str] = ("bf16", "fp16")) -> Runtime:
    """CUDA when present (then the first of ``gpu_dtypes`` the GPU supports: bf16 needs
    compute capability 8+; ZeroGPU's GPUs all have it, and are not queried at start-up), else
    the CPU in fp32. An empty ``gpu_dtypes`` keeps fp32 for a metric whose scores would
    suffer from half precision."""
    from nlgmetrics.core.models import resolve_device

    device = resolve_device("auto").type
    zero = on_zero_gpu()
    dtype = "fp32"
    if device == "cuda":
        import torch

        for candidate in gpu_dtypes:
            if candidate == "bf16" and not zero and not torch.cuda.is_bf16_supported():
                continue
            dtype = candidate
            break
    return Runtime(device, dtype, zero)


def on_gpu(fn: Callable[..., Any], duration: int = 120) -> Callable[..., Any]:
    """``fn`` wrapped with ``spaces.GPU(duration=...)`` when the ``spaces`` package is there
    (the decorator does nothing outside ZeroGPU); ``fn`` unchanged without it."""
    decorator = zero_gpu_decorator()
    return decorator(duration=duration)(fn) if decorator is not None else fn


def default_profile(profiles: Sequence[str]) -> str:
    """``paper`` when the hub is reachable (its checkpoints download), ``lite`` offline."""
    from nlgmetrics.core.models import is_offline

    if "lite" in profiles and (is_offline() or "paper" not in profiles):
        return "lite"
    return "paper" if "paper" in profiles else profiles[0]


_CORE_DEFAULT = object()


class InitialValues:
    """Initial values of an app's settings: the caller's ``options``, else the given default,
    else the scorer's own default (so that the page follows the core)."""

    def __init__(self, metric: str, options: Mapping[str, Any]) -> None:
        self.params = inspect.signature(nlgmetrics.scorer_class(metric).__init__).parameters
        self.options = dict(options)

    def __call__(self, option: str, default: Any = _CORE_DEFAULT) -> Any:
        if option in self.options:
            return self.options[option]
        return self.params[option].default if default is _CORE_DEFAULT else default


# -- scorers, loaded once -------------------------------------------------------------------
class ScorerPool:
    """Scorers by configuration, built once with ``factory(**options)``; the options a metric
    does not take (``device``, ``dtype``, ``quiet``) are dropped. Scoring is serialised: one
    request at a time uses the models."""

    def __init__(self, metric: str, factory: Optional[Factory] = None) -> None:
        self.metric = metric
        self.cls = nlgmetrics.scorer_class(metric)
        self.factory = factory or functools.partial(nlgmetrics.load, metric)
        self.lock = threading.RLock()
        params = inspect.signature(self.cls.__init__).parameters
        self.accepted = {p for p in params if p not in ("self", "args", "kwargs")}

    @property
    def uses_models(self) -> bool:
        return "device" in self.accepted

    def options(self, options: Mapping[str, Any], runtime: Runtime) -> Dict[str, Any]:
        out = {k: v for k, v in options.items() if v is not None and v != ""}
        if self.uses_models:
            out.setdefault("device", runtime.device)
            out.setdefault("dtype", runtime.dtype)
        out["quiet"] = True
        unknown = sorted(set(out) - self.accepted)
        for key in ("device", "dtype", "quiet"):
            if key in unknown:
                out.pop(key)
        unknown = sorted(set(out) - self.accepted)
        if unknown:
            raise ValueError(f"{self.metric} does not take option(s) {', '.join(unknown)}")
        return out

    def get(self, options: Mapping[str, Any]) -> Any:
        with self.lock:
            return self.factory(**dict(options))


# -- messages -------------------------------------------------------------------------------
def message_html(text: str, kind: str = "error") -> str:
    """A message box in the page (``error``, ``warning`` or ``info``)."""
    colours = {"error": ("#fdecea", "#b3261e"), "warning": ("#fff4e5", "#8a5300"), "info": ("#e8f1fb", "#174ea6")}
    bg, fg = colours[kind]
    return (f'<div class="nlgm-message nlgm-{kind}" data-kind="{kind}" style="background:{bg};color:{fg};'
            f'border-left:4px solid {fg};padding:8px 12px;border-radius:4px;white-space:pre-wrap">'
            f"{html.escape(text)}</div>")


def explain_error(err: BaseException) -> str:
    """One readable line for the page: the message of input errors as it is, the type for
    anything unexpected."""
    if isinstance(err, (ValueError, FileNotFoundError)):
        return str(err)
    from nlgmetrics.core.models import ModelUnavailableError

    if isinstance(err, ModelUnavailableError):
        return str(err)
    return f"{type(err).__name__}: {err}"


# -- inputs from the page and from files ------------------------------------------------------
def _lines(text: Optional[str]) -> List[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _reference_line(line: str, multi: bool) -> Any:
    parts = [p.strip() for p in line.split(REFERENCE_SEPARATOR)]
    if multi and len(parts) > 1:
        return [p for p in parts if p]
    return line


def example_inputs(cls: Any, predictions: str, references: Optional[str], sources: Optional[str],
                   reference_set: bool = False) -> Dict[str, Any]:
    """The example tab's text boxes as scorer inputs: one segment per line, lines aligned.
    With ``reference_set`` every prediction is rated against all reference lines (TextEval's
    standard set). Multi-reference metrics take several references on a line separated by
    ``|||``."""
    preds = _lines(predictions)
    if not preds:
        raise ValueError("Enter at least one prediction (one segment per line).")
    if len(preds) > MAX_EXAMPLE_LINES:
        raise ValueError(f"{len(preds)} prediction lines: the example tab takes at most {MAX_EXAMPLE_LINES}; "
                         "use the batch tab for more.")
    out: Dict[str, Any] = {"predictions": preds, "references": None, "sources": None}
    if cls.references_mode != "none":
        refs = _lines(references)
        if not refs and cls.references_mode == "required":
            raise ValueError("Enter the reference(s): this metric compares each prediction with a reference.")
        if refs and reference_set:
            out["references"] = [list(refs) for _ in preds]
        elif refs:
            if len(refs) != len(preds):
                raise ValueError(f"{len(preds)} prediction line(s) but {len(refs)} reference line(s): give one "
                                 "reference line per prediction line.")
            out["references"] = [_reference_line(r, cls.multi_reference) for r in refs]
    if cls.sources_mode != "none":
        srcs = _lines(sources)
        if srcs and len(srcs) != len(preds):
            raise ValueError(f"{len(preds)} prediction line(s) but {len(srcs)} source line(s): give one source "
                             "line per prediction line, or none.")
        if not srcs and cls.sources_mode == "required":
            raise ValueError("Enter the source(s): this metric needs the source of each prediction.")
        out["sources"] = srcs or None
    return out


ALIASES = {"predictions": ("prediction", "predictions", "hypothesis", "hyp", "candidate", "output"),
           "references": ("reference", "references", "ref", "refs"),
           "sources": ("source", "sources", "src")}
_REF_COLUMN = re.compile(r"^(?:references?|refs?)(?:[ _-]?\d+)?$")


def _pick(keys: Sequence[str], field_name: str) -> Optional[str]:
    lowered = {k.strip().lower(): k for k in keys}
    for alias in ALIASES[field_name]:
        if alias in lowered:
            return lowered[alias]
    return None


def read_batch(path: str, cls: Any, max_rows: int = MAX_BATCH_ROWS) -> Dict[str, Any]:
    """Scorer inputs from an uploaded file.

    CSV (with a header): a ``prediction`` column, ``reference`` (several columns
    ``reference_1``, ``reference_2`` ... for multi-reference metrics) and ``source``.
    JSONL (one object a line) or JSON (a list of objects): the same keys; a reference may be a
    list of strings. ``hypothesis``/``hyp``, ``ref`` and ``src`` are accepted as names too.
    """
    suffix = Path(path).suffix.lower()
    if suffix == ".csv" or suffix == ".tsv":
        return _read_csv(path, cls, max_rows, "\t" if suffix == ".tsv" else ",")
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _read_json(path, cls, max_rows)
    raise ValueError(f"cannot read {Path(path).name}: upload a .csv, .tsv, .jsonl or .json file")


def _too_many(n: int, max_rows: int) -> None:
    if n == 0:
        raise ValueError("the file holds no rows")
    if n > max_rows:
        raise ValueError(f"the file holds {n} rows; this Space scores at most {max_rows} at once "
                         "(use the Python package or the CLI for more)")


def _read_csv(path: str, cls: Any, max_rows: int, delimiter: str) -> Dict[str, Any]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh, delimiter=delimiter)
        columns = list(reader.fieldnames or [])
        rows = list(reader)
    pred_col = _pick(columns, "predictions")
    if pred_col is None:
        raise ValueError(f"the file has no 'prediction' column (columns found: {', '.join(columns) or 'none'})")
    _too_many(len(rows), max_rows)
    ref_cols = [c for c in columns if _REF_COLUMN.match(c.strip().lower())]
    src_col = _pick(columns, "sources")
    out: Dict[str, Any] = {"predictions": [r[pred_col] or "" for r in rows], "references": None, "sources": None}
    if ref_cols and cls.references_mode != "none":
        if len(ref_cols) > 1 and not cls.multi_reference:
            raise ValueError(f"{cls.name} takes one reference per segment; the file has {len(ref_cols)} "
                             f"reference columns ({', '.join(ref_cols)})")
        if cls.multi_reference:
            out["references"] = [[r[c] for c in ref_cols if (r[c] or "").strip()] or [""] for r in rows]
        else:
            out["references"] = [r[ref_cols[0]] or "" for r in rows]
    if src_col is not None and cls.sources_mode != "none":
        out["sources"] = [r[src_col] or "" for r in rows]
    return _check_required(out, cls, columns)


def _read_json(path: str, cls: Any, max_rows: int) -> Dict[str, Any]:
    text = Path(path).read_text(encoding="utf-8-sig")
    try:
        if Path(path).suffix.lower() == ".json":
            rows = json.loads(text)
            if not isinstance(rows, list):
                raise ValueError("a .json file must hold a list of objects")
        else:
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as err:
        raise ValueError(f"cannot read {Path(path).name}: {err.msg} at line {err.lineno}") from None
    if any(not isinstance(r, dict) for r in rows):
        raise ValueError("every row must be a JSON object such as {\"prediction\": ..., \"reference\": ...}")
    _too_many(len(rows), max_rows)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    out: Dict[str, Any] = {"predictions": None, "references": None, "sources": None}
    for field_name in out:
        key = _pick(keys, field_name)
        if key is None or (field_name == "references" and cls.references_mode == "none") or \
                (field_name == "sources" and cls.sources_mode == "none"):
            continue
        values = [r.get(key) for r in rows]
        if field_name == "references" and not cls.multi_reference:
            values = [v[0] if isinstance(v, list) and len(v) == 1 else v for v in values]
        out[field_name] = values
    if out["predictions"] is None:
        raise ValueError(f"the rows have no 'prediction' key (keys found: {', '.join(keys) or 'none'})")
    return _check_required(out, cls, keys)


def _check_required(out: Dict[str, Any], cls: Any, names: Sequence[str]) -> Dict[str, Any]:
    if out["references"] is None and cls.references_mode == "required":
        raise ValueError(f"{cls.name} needs references: add a 'reference' column or key "
                         f"(found: {', '.join(names)})")
    if out["sources"] is None and cls.sources_mode == "required":
        raise ValueError(f"{cls.name} needs sources: add a 'source' column or key (found: {', '.join(names)})")
    return out


def _flat(details: Mapping[str, Any]) -> Dict[str, Any]:
    """Scalar details as columns; one level of nested scalars as ``key.sub``; the rest as JSON."""
    out: Dict[str, Any] = {}
    for key, value in details.items():
        if isinstance(value, Mapping) and all(not isinstance(v, (Mapping, list)) for v in value.values()):
            for sub, v in value.items():
                out[f"{key}.{sub}"] = v
        elif isinstance(value, (Mapping, list, tuple)):
            out[key] = json.dumps(value, ensure_ascii=False, default=_plain)
        else:
            out[key] = value
    return out


def _plain(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else str(value)


def write_batch(result: MetricResult, inputs: Mapping[str, Any], directory: Optional[str] = None) -> List[str]:
    """``<metric>_scores.csv`` (one row per segment: id, prediction, score, flattened details)
    and ``<metric>_result.json`` (the full result); returns their paths."""
    out_dir = Path(directory or tempfile.mkdtemp(prefix="nlgmetrics-"))
    rows = []
    for i, (pred, score) in enumerate(zip(inputs["predictions"], result.scores)):
        details = result.details[i] if i < len(result.details) else {}
        row = {"id": i, "prediction": pred, "score": score}
        row.update({k: v for k, v in _flat(details).items() if k not in ("id", "score")})
        rows.append(row)
    columns = list(dict.fromkeys(k for r in rows for k in r))
    csv_path = out_dir / f"{result.metric}_scores.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    json_path = out_dir / f"{result.metric}_result.json"
    json_path.write_text(result.to_json(indent=1), encoding="utf-8")
    return [str(csv_path), str(json_path)]


# -- score display and drawings ---------------------------------------------------------------
def fmt(value: Any, digits: int = 4) -> str:
    """A number for the page: ``nan``/``inf`` spelled out, else ``digits`` decimals."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return html.escape(str(value))
    if not math.isfinite(number):
        return "n/a" if math.isnan(number) else ("∞" if number > 0 else "-∞")
    return f"{number:.{digits}f}"


def score_html(result: MetricResult, predictions: Sequence[str], note: str = "") -> str:
    """The corpus score (large), the per-segment scores and the signature. Every number
    carries its full-precision value in ``data-value`` for scripts and tests."""
    rows = "".join(
        f'<tr><td>{i + 1}</td><td class="nlgm-seg" data-role="segment" data-index="{i}" data-value="{s!r}">'
        f'<b>{fmt(s)}</b></td><td>{html.escape(shorten(p))}</td></tr>'
        for i, (p, s) in enumerate(zip(predictions, result.scores)))
    note_html = f'<div style="color:#555;margin-top:4px">{html.escape(note)}</div>' if note else ""
    return (
        f'<div class="nlgm-score">'
        f'<div style="font-size:14px;color:#555">{html.escape(result.metric)} corpus score</div>'
        f'<div data-role="corpus" data-value="{result.score!r}" style="font-size:34px;font-weight:700">'
        f"{fmt(result.score)}</div>{note_html}"
        f'<table style="margin-top:8px;border-collapse:collapse;font-size:14px">'
        f"<tr><th>#</th><th>score</th><th>prediction</th></tr>{rows}</table>"
        f'<div data-role="signature" style="font-family:monospace;font-size:12px;color:#666;margin-top:6px;'
        f'word-break:break-all">{html.escape(result.signature)}</div></div>')


def shorten(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def section(title: str, body: str) -> str:
    """A titled block of the visual output."""
    return (f'<div class="nlgm-section" style="margin:10px 0 18px 0"><div style="font-weight:600;'
            f'margin-bottom:6px">{html.escape(title)}</div>{body}</div>')


def flex_row(parts: Sequence[str], gap: int = 32) -> str:
    """Blocks side by side, wrapping to the next line when the page is narrow."""
    cells = "".join(f"<div>{p}</div>" for p in parts if p)
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
             f'font-size:12px">']
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
            role: str = "heatmap") -> str:
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
            cells.append(f'<td data-i="{i}" data-j="{j}" data-value="{v!r}"{" data-marked" if (i, j) in marks else ""} '
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


# -- the page skeleton ----------------------------------------------------------------------
@dataclass
class SpaceSpec:
    """What an app tells :func:`build_space`.

    ``settings(initial)`` creates the metric's setting components inside the page (with
    ``initial(option)`` as their values) and returns them by scorer-option name;
    ``visuals()`` creates the output components; ``explain(scorer, result, inputs)`` returns
    one value per visual component. ``examples`` are rows of
    (predictions, references, sources) texts, one segment per line. ``reference_set``: the
    references box is one standard set shared by every prediction (TextEval).
    ``gpu_dtypes``: half-precision dtypes the metric allows on a GPU, in preference order.
    ``fixed_options``: scorer options the page always sets (e.g. to return what it draws).
    """

    metric: str
    title: str
    intro: str
    settings: Callable[[InitialValues], Dict[str, Any]]
    visuals: Callable[[], List[Any]]
    explain: Callable[[Any, MetricResult, Dict[str, Any]], List[Any]]
    examples: List[Dict[str, str]]
    reference_set: bool = False
    gpu_dtypes: Tuple[str, ...] = ("bf16", "fp16")
    labels: Dict[str, str] = field(default_factory=dict)
    note: Callable[[MetricResult], str] = lambda result: ""
    fixed_options: Dict[str, Any] = field(default_factory=dict)


def _dtype_choices(runtime: Runtime) -> List[str]:
    return ["fp32", "bf16"] + (["fp16"] if runtime.device == "cuda" else [])


def _status_html(runtime: Runtime, uses_models: bool, preloaded: bool, error: Optional[BaseException]) -> str:
    """The line under the settings: where models run, and whether they loaded at start-up."""
    where = runtime.describe() if uses_models else "no neural model: runs on the CPU"
    loaded = " · loaded at start-up" if preloaded and error is None else ""
    line = f'<div style="color:#555;font-size:13px">{html.escape(where + loaded)}</div>'
    if error is None:
        return line
    return line + message_html(f"The models of the initial settings could not be loaded: {explain_error(error)}",
                               "warning")


def build_space(spec: SpaceSpec, scorer_factory: Optional[Factory] = None,
                options: Optional[Mapping[str, Any]] = None, preload: bool = True) -> gr.Blocks:
    """The ``gr.Blocks`` of a metric's Space (not launched). ``scorer_factory(**options)``
    builds scorers (default :func:`nlgmetrics.load`, cached per configuration); ``options``
    are the initial setting values; with ``preload`` the initial configuration's models load
    now, at start-up, and a failure shows as a message in the page."""
    pool = ScorerPool(spec.metric, scorer_factory)
    cls = pool.cls
    runtime = detect_runtime(spec.gpu_dtypes)
    initial = dict(options or {})
    labels = {"predictions": "Predictions (one segment per line)",
              "references": "References (one per line, aligned with the predictions)",
              "sources": "Sources (one per line; optional)", **spec.labels}

    with gr.Blocks(title=spec.title, analytics_enabled=False) as demo:
        gr.Markdown(f"# {spec.title}\n\n{spec.intro}")
        with gr.Accordion("Settings", open=True):
            with gr.Row():
                setting_components = spec.settings(InitialValues(spec.metric, initial))
                if pool.uses_models:
                    setting_components["dtype"] = gr.Dropdown(
                        _dtype_choices(runtime), value=initial.get("dtype", runtime.dtype), label="dtype",
                        info=f"models run on {runtime.device}; bf16/fp16 halve memory on a GPU",
                        elem_id="setting-dtype")
            status = gr.HTML(elem_id="runtime")
        names = list(setting_components)
        setting_list = [setting_components[n] for n in names]

        def current_options(values: Sequence[Any]) -> Dict[str, Any]:
            return pool.options({**dict(zip(names, values)), **spec.fixed_options}, runtime)

        error = None
        if preload:
            try:
                pool.get(current_options([getattr(c, "value", None) for c in setting_list]))
            except Exception as err:  # noqa: BLE001 - shown in the page, the app still starts
                error = err
        status.value = _status_html(runtime, pool.uses_models, preload, error)

        with gr.Tab("Example", elem_id="tab-example"):
            keys = ["predictions"] + [k for k, mode in (("references", cls.references_mode),
                                                        ("sources", cls.sources_mode)) if mode != "none"]
            text_boxes = [gr.Textbox(lines=2 if k == "sources" else 3, label=labels[k], elem_id=f"input-{k}")
                          for k in keys]
            if spec.examples:
                gr.Examples([[ex.get(k, "") for k in keys] for ex in spec.examples], inputs=text_boxes,
                            label="Examples from the paper (click one, then Score)", elem_id="examples")
            run_button = gr.Button("Score", variant="primary", elem_id="run")
            message = gr.HTML(elem_id="message")
            score = gr.HTML(elem_id="score")
            visuals = spec.visuals()

        with gr.Tab("Batch", elem_id="tab-batch"):
            gr.Markdown(
                "Upload a **CSV** (header row: `prediction`, `reference` — or `reference_1`, `reference_2`, ... "
                "for several — and `source` where the metric uses it) or a **JSONL** file (one object a line "
                "with the same keys; a reference may be a list). The settings above apply. Download one row "
                f"of scores per segment (CSV) and the full result (JSON). At most {MAX_BATCH_ROWS} rows.")
            upload = gr.File(label="CSV or JSONL file", file_types=[".csv", ".tsv", ".jsonl", ".json"],
                             elem_id="batch-upload")
            batch_button = gr.Button("Score file", variant="primary", elem_id="batch-run")
            batch_message = gr.HTML(elem_id="batch-message")
            batch_score = gr.HTML(elem_id="batch-score")
            download = gr.File(label="Scores", file_count="multiple", interactive=False, elem_id="batch-download")

        n_text = len(text_boxes)

        def score_example(*values: Any) -> List[Any]:
            texts = dict(zip(keys, values[:n_text]))
            blank = [None] * len(visuals)
            try:
                inputs = example_inputs(cls, texts.get("predictions"), texts.get("references"),
                                        texts.get("sources"), spec.reference_set)
                scorer = pool.get(current_options(values[n_text:]))
                with pool.lock:
                    result = scorer.score(inputs["predictions"], inputs["references"], inputs["sources"])
                    drawn = list(spec.explain(scorer, result, inputs))
            except Exception as err:  # noqa: BLE001 - every failure becomes a message in the page
                traceback.print_exc()
                return [message_html(explain_error(err)), ""] + blank
            more = "" if len(inputs["predictions"]) <= MAX_DRAWN else \
                message_html(f"The first {MAX_DRAWN} segments are drawn below; all are scored.", "info")
            return [more, score_html(result, inputs["predictions"], spec.note(result))] + drawn

        def score_file(path: Optional[str], *values: Any) -> List[Any]:
            try:
                if not path:
                    raise ValueError("Upload a CSV or JSONL file first.")
                inputs = read_batch(path, cls)
                scorer = pool.get(current_options(values))
                with pool.lock:
                    result = scorer.score(inputs["predictions"], inputs["references"], inputs["sources"])
                files = write_batch(result, inputs)
            except Exception as err:  # noqa: BLE001
                traceback.print_exc()
                return [message_html(explain_error(err)), "", None]
            info = message_html(f"Scored {len(result)} segments from {Path(path).name}.", "info")
            return [info, score_html(result, inputs["predictions"], spec.note(result)), files]

        run_button.click(on_gpu(score_example), inputs=text_boxes + setting_list,
                         outputs=[message, score] + visuals, api_name="score")
        batch_button.click(on_gpu(score_file, duration=300), inputs=[upload] + setting_list,
                           outputs=[batch_message, batch_score, download], api_name="score_file")
    return demo


def launch(demo: gr.Blocks, **kwargs: Any) -> Any:
    """Launch a Space app (``python app.py``): the server name and port from the usual
    ``GRADIO_SERVER_NAME``/``GRADIO_SERVER_PORT`` variables."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    return demo.launch(**kwargs)

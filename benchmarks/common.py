"""Helpers for the benchmark scripts: reading ../shared/data, timing, peak memory, and writing
results to benchmarks/results/<name>.json in the one format benchmarks/report.py renders.

Result file format::

    {"benchmark": "rome_quality", "created": "...", "machine": {...}, "command": "...",
     "tables": [{"title": "...", "columns": ["...", ...], "rows": [[...], ...], "note": "..."}],
     "notes": ["..."]}
"""
from __future__ import annotations

import gc
import gzip
import json
import os
import platform
import resource
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("NLGMETRICS_SHARED", ROOT.parent / "shared")) / "data"
RESULTS = ROOT / "benchmarks" / "results"


def read_jsonl(name: str, limit: Optional[int] = None) -> List[Dict[str, Any]]:
    """Rows of ``../shared/data/<name>`` (.jsonl or .jsonl.gz)."""
    path = SHARED_DATA / name
    if not path.exists():
        sys.exit(f"{path} not found: the benchmarks need ../shared/data beside the checkout")
    opener = gzip.open if path.suffix == ".gz" else open
    rows = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
                if limit is not None and len(rows) >= limit:
                    break
    return rows


def parse_options(items: List[str]) -> Dict[str, Any]:
    """``key=value`` strings (repeatable ``--option``) as a dict; a value is read as JSON when it
    parses (numbers, booleans, lists), else kept as the string."""
    options: Dict[str, Any] = {}
    for item in items:
        key, value = item.split("=", 1)
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def machine() -> Dict[str, Any]:
    import torch

    return {"python": platform.python_version(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "torch": torch.__version__, "torch_threads": torch.get_num_threads()}


@contextmanager
def timer() -> Iterator[Dict[str, float]]:
    """Wall ``seconds`` of the block, and the garbage collector's part in them: ``gc_seconds``
    (every collection inside the block) and ``full_gc`` (how many collections of the oldest
    generation, which walk the process's whole heap, ran inside it)."""
    out: Dict[str, float] = {}
    collector = {"since": 0.0, "seconds": 0.0, "full": 0}

    def on_gc(phase: str, info: Dict[str, int]) -> None:
        if phase == "start":
            collector["since"] = time.perf_counter()
            return
        collector["seconds"] += time.perf_counter() - collector["since"]
        collector["full"] += info["generation"] == 2

    gc.callbacks.append(on_gc)
    start = time.perf_counter()
    try:
        yield out
    finally:
        out["seconds"] = time.perf_counter() - start
        gc.callbacks.remove(on_gc)
        out["gc_seconds"], out["full_gc"] = collector["seconds"], collector["full"]


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (MiB): VmHWM, its own address space's high
    water mark. Not ru_maxrss where /proc is there: Linux keeps that across exec, so a child
    process (multiprocessing spawn, subprocess) would report at least its parent's peak."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def table(title: str, columns: List[str], rows: List[List[Any]], note: str = "") -> Dict[str, Any]:
    return {"title": title, "columns": columns, "rows": rows, "note": note}


def write_results(name: str, tables: List[Dict[str, Any]], notes: Optional[List[str]] = None,
                  extra: Optional[Dict[str, Any]] = None) -> Path:
    """Write benchmarks/results/<name>.json and print the tables as markdown."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": name, "created": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "machine": machine(), "command": " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
               "tables": tables, "notes": notes or []}
    if extra:
        payload.update(extra)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=1, default=float) + "\n")
    for t in tables:
        print(markdown_table(t))
        print()
    print(f"wrote {path}")
    return path


def fmt(value: Any) -> str:
    if isinstance(value, float):
        return "n/a" if value != value else f"{value:.3f}"
    return str(value)


def markdown_table(t: Dict[str, Any]) -> str:
    lines = [f"**{t['title']}**", "", "| " + " | ".join(t["columns"]) + " |",
             "|" + "---|" * len(t["columns"])]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in t["rows"]]
    if t.get("note"):
        lines += ["", t["note"]]
    return "\n".join(lines)

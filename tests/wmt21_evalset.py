"""The WMT21 to-English rows of ../shared/data as a small EvalSet in mt-metrics-eval's exact
layout: the tests' (tests/meta/test_mtme.py) and the workbench benchmark's
(benchmarks/workbench.py), one reader and one writer."""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Collection, Dict, List, Optional, Sequence, Tuple

#: the systems every row kept has
SYSTEMS = ("Facebook-AI", "Online-A", "Online-B", "Online-W")
FILE = "wmt21_da_seg_toen_grouped.jsonl.gz"


def read_rows(path: Path, lp: str = "de-en", n: int = 12) -> List[Dict[str, Any]]:
    """The first ``n`` rows of ``lp`` in ``path`` (the grouped WMT21 file) that every system in
    SYSTEMS has, with a single-line source."""
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["lp"] == lp and all(s in row["hyps"] for s in SYSTEMS) and "\n" not in row["src"]:
                out.append(row)
                if len(out) == n:
                    break
    return out


def write_evalset(root: Path, rows: Sequence[Dict[str, Any]], lp: str = "de-en", *,
                  missing: Collection[Tuple[str, int]] = (), documents: Optional[Sequence[str]] = None,
                  ref_as_output: bool = True) -> Path:
    """``rows`` in mt-metrics-eval's layout under ``root`` (a test-set folder): sources, the
    reference ``refA`` (also among the system outputs with ``ref_as_output``), each system's
    outputs, ``documents`` (one name per row, when given) and the DA z-scores as ``wmt-z``;
    ``missing``: (system, segment) pairs whose human score is None."""
    for sub in ("sources", "references", f"system-outputs/{lp}", "documents", "human-scores"):
        (root / sub).mkdir(parents=True, exist_ok=True)

    def lines(path: Path, texts: Sequence[str]) -> None:
        path.write_text("".join(f"{t}\n" for t in texts), encoding="utf-8")

    lines(root / "sources" / f"{lp}.txt", [r["src"] for r in rows])
    lines(root / "references" / f"{lp}.refA.txt", [r["ref"] for r in rows])
    if ref_as_output:
        lines(root / "system-outputs" / lp / "refA.txt", [r["ref"] for r in rows])
    for s in SYSTEMS:
        lines(root / "system-outputs" / lp / f"{s}.txt", [r["hyps"][s]["hyp"] for r in rows])
    if documents is not None:
        lines(root / "documents" / f"{lp}.docs", documents)
    lines(root / "human-scores" / f"{lp}.wmt-z.seg.score",
          [f"{s}\t{'None' if (s, k) in missing else repr(r['hyps'][s]['human'])}"
           for s in SYSTEMS for k, r in enumerate(rows)])
    return root

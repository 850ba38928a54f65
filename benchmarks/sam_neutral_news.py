"""SAM on neutral text: news translations whose sentiment is mostly not at stake.

Inputs: WMT17 cs-en DA segments (``wmt17_da_seg.jsonl.gz``, the first ``--segments`` rows of
cs-en in file order). Measured: the segment-level Pearson correlation with the DA z-scores of
chrF alone and of SAM on top of chrF (SAM's defaults: lexicon, matching, no damping), and how
many segments SAM lowers by more than 10 % of their chrF. A quick check (seconds), run once.

    python benchmarks/sam_neutral_news.py [--segments 200]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import read_jsonl, table, timer, write_results  # noqa: E402

import nlgmetrics  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=200)
    args = parser.parse_args()
    rows = [r for r in read_jsonl("wmt17_da_seg.jsonl.gz") if r["lp"] == "cs-en"][:args.segments]
    hyps, refs = [r["hyp"] for r in rows], [r["ref"] for r in rows]
    human = np.array([float(r["human"]) for r in rows])
    with timer() as clock:
        chrf = nlgmetrics.score("sam", hyps, refs, base="chrf", damping="off")
    base = np.array([d["base"] for d in chrf.details])
    sam = np.array(chrf.scores)
    lost = int(np.sum(sam < 0.9 * base))
    result = [["chrF", len(rows), round(float(np.corrcoef(base, human)[0, 1]), 3), "-"],
              ["SAM + chrF", len(rows), round(float(np.corrcoef(sam, human)[0, 1]), 3), lost]]
    tab = table(f"WMT17 cs-en news, first {len(rows)} segments: Pearson with DA z-scores",
                ["metric", "segments", "Pearson", "segments lowered by more than 10 %"], result,
                f"SAM signature: {chrf.signature}")
    write_results("sam_neutral_news", [tab], [f"Seconds: {clock['seconds']:.1f}"])


if __name__ == "__main__":
    main()

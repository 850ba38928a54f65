"""Is the CPU path any slower than a base commit? This checkout against ``--base`` (default
0b9b9b9, before the 0.2.0 layout and GPU work), interleaved in one run: each round times every
case once in a fresh process per tree (A B, then B A), so machine noise hits both sides alike.
The ratio reported is the median over rounds of (this checkout's seconds / the base's).

    python benchmarks/cpu_regression.py [--base REV] [--rounds 4]

Cases: DATScore on a tiny random M2M-100 (tests/tiny_models.py; seq2seq batching), SAM with
the BERTScore base on MiniLM (the encoder + greedy-matching path RoMe and DiscoTK share),
RoMe-lite, DiscoTK party (its default members), and SAM-BERTScore on one long segment alone (eight WMT sentences joined: the cost
of a pass's filling copies). Both trees run with this venv's packages; the base tree is a ``git archive`` of REV
on a temporary directory, put first on ``PYTHONPATH``. Scores must agree (checked).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, read_jsonl, table, write_results  # noqa: E402

CASE_CODE = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
import torch
torch.set_num_threads(1)
import scipy.stats  # imported on first use since the lazy packages (DATScore's first weights): not a scoring cost
import nlgmetrics
spec = json.loads(sys.argv[1])
scorer = nlgmetrics.load(spec["metric"], quiet=True, **spec["options"])
args = [spec["predictions"], spec["references"]] + ([spec["sources"]] if spec.get("sources") else [])
warm = spec.get("warmup")  # warm up: models, caches of other texts
scorer.score(*([warm, warm] if warm else [a[:2] for a in args]))
start = time.perf_counter()
result = scorer.score(*args)
print(json.dumps({"seconds": time.perf_counter() - start, "score": result.score, "file": nlgmetrics.__file__}))
"""


def cases(tiny: str, n: int):
    rows = [r for r in read_jsonl("wmt17_da_seg.jsonl.gz") if r["lp"] == "de-en"][:n]
    hyps, refs, srcs = [r["hyp"] for r in rows], [r["ref"] for r in rows], [r["src"] for r in rows]
    return {
        "datscore-tiny": {"metric": "datscore", "options": {"model": tiny, "source_lang": "de", "target_lang": "en",
                                                            "max_new_tokens": 12, "beam_size": 2},
                          "predictions": hyps[: n // 4], "references": refs[: n // 4], "sources": srcs[: n // 4]},
        "sam-bertscore-lite": {"metric": "sam", "options": {"base": "bertscore", "profile": "lite"},
                               "predictions": hyps, "references": refs},
        "rome-lite": {"metric": "rome", "options": {"profile": "lite"},
                      "predictions": hyps[: n // 2], "references": refs[: n // 2]},
        # party's default members: kernels, TER, METEOR, parses, chrF, BLEU and MiniLM BERTScore
        "discotk-party": {"metric": "discotk", "options": {"variant": "party"},
                          "predictions": hyps[: n // 4], "references": refs[: n // 4]},
        # one long segment alone (a Space's or a training loop's single call): the encoder's
        # passes of its width, filled with copies up to batch_size rows before 0.2.0
        "sam-bertscore-lite-one-long": {"metric": "sam", "options": {"base": "bertscore", "profile": "lite"},
                                        "predictions": [" ".join(hyps[:8])], "references": [" ".join(refs[:8])],
                                        "warmup": ["A short text.", "Another short one."]},
    }


def run_case(tree: Path, spec: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "shared"), HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    out = subprocess.run([sys.executable, "-c", CASE_CODE, json.dumps(spec)], env=env, capture_output=True,
                         text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["file"].startswith(str(tree)), (result["file"], tree)  # the tree asked for, not the venv's
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="0b9b9b9")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--segments", type=int, default=200)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from tiny_models import build_tiny_m2m100

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = Path(tmp) / "base.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), args.base, "shared"], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(base, filter="data")
        tiny = build_tiny_m2m100(Path(tmp) / "tiny", d_model=64, layers=2)
        specs = cases(tiny, args.segments)
        times: dict = {name: {"base": [], "this": []} for name in specs}
        scores: dict = {}
        for r in range(args.rounds):
            order = [("base", base), ("this", ROOT)] if r % 2 == 0 else [("this", ROOT), ("base", base)]
            for name, spec in specs.items():
                for side, tree in order:
                    res = run_case(tree, spec)
                    times[name][side].append(res["seconds"])
                    scores.setdefault(name, {})[side] = res["score"]
                    print(f"round {r + 1} {name} {side}: {res['seconds']:.2f} s", flush=True)
    rows = []
    for name, t in times.items():
        ratios = [a / b for a, b in zip(t["this"], t["base"])]
        diff = abs(scores[name]["this"] - scores[name]["base"])
        rows.append([name, round(statistics.median(t["base"]), 3), round(statistics.median(t["this"]), 3),
                     round(statistics.median(ratios), 3), round(min(ratios), 3), round(max(ratios), 3), f"{diff:.1e}"])
    load = os.getloadavg()
    write_results("cpu_regression", [table(
        f"CPU: this checkout against {args.base} ({args.rounds} interleaved rounds, one torch thread)",
        ["case", "base s (median)", "this s (median)", "ratio this/base (median)", "min", "max", "|score diff|"], rows,
        note=f"ratio < 1: this checkout is faster. Load average at the end: {load[0]:.1f}.")])


if __name__ == "__main__":
    main()

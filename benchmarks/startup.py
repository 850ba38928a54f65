"""Start-up of the command line from a cold process: `nlgmetrics --help`, `list`, `score sam
--help`, and scoring one line with SAM-chrF (each a fresh `python -m nlgmetrics.cli`; the
median of --rounds runs, interleaved), with what each imports of torch, transformers, spaCy
and scipy.stats. Targets (issue 38): help paths under 0.5 s, one SAM-chrF line under 2 s.

    python benchmarks/startup.py --rounds 5 [--baseline ANOTHER_CHECKOUT]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import table, write_results

HEAVY = ("torch", "transformers", "spacy", "scipy.stats")
PROBE = """
import runpy, sys
sys.argv = ["nlgmetrics"] + {argv!r}
try:
    runpy.run_module("nlgmetrics.cli", run_name="__main__")
except SystemExit:
    pass
sys.stderr.write("HEAVY " + ",".join(m for m in {heavy!r} if m in sys.modules) + "\\n")
"""


def cases(folder: Path) -> dict:
    hyp, ref = folder / "hyp.txt", folder / "ref.txt"
    hyp.write_text("The cat sat on the mat.\n", encoding="utf-8")
    ref.write_text("A cat was sitting on the mat.\n", encoding="utf-8")
    return {"--help": ["--help"], "list": ["list"], "score sam --help": ["score", "sam", "--help"],
            "score rome --help": ["score", "rome", "--help"],
            "one line, SAM-chrF": ["score", "sam", "-p", str(hyp), "-r", str(ref), "--base", "chrf", "-q"]}


def run(argv: list, package_dir: str = "") -> tuple:
    """(seconds, heavy libraries imported) of one fresh process; ``package_dir``: import
    nlgmetrics from that folder (another checkout's ``shared``) instead of the installed one."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if package_dir:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_dir, env.get("PYTHONPATH", "")]))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], capture_output=True,
                          text=True, env=env)
    seconds = time.perf_counter() - start
    heavy = [line[6:] for line in done.stderr.splitlines() if line.startswith("HEAVY ")]
    return seconds, (heavy[-1] if heavy else "?") or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", metavar="CHECKOUT",
                        help="also time the SAM-chrF line with another checkout's package (its shared/ folder "
                             "first on PYTHONPATH), in the same interleaved rounds")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        todo = cases(Path(tmp))
        runs = {name: (argv, "") for name, argv in todo.items()}
        if args.baseline:
            label = subprocess.run(["git", "-C", args.baseline, "rev-parse", "--short", "HEAD"], capture_output=True,
                                   text=True).stdout.strip() or args.baseline
            runs[f"one line, SAM-chrF, at {label}"] = (todo["one line, SAM-chrF"],
                                                       str(Path(args.baseline).resolve() / "shared"))
        times: dict = {name: [] for name in runs}
        imported: dict = {}
        for _ in range(args.rounds):
            for name, (argv, package_dir) in runs.items():
                seconds, heavy = run(argv, package_dir)
                times[name].append(seconds)
                imported[name] = heavy
    rows = [[name, round(statistics.median(t), 3), round(min(t), 3), round(max(t), 3), imported[name]]
            for name, t in times.items()]
    note = (f"{args.rounds} interleaved rounds, each a fresh process; load average {load_before:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs")
    if args.baseline:
        ours, theirs = times["one line, SAM-chrF"], times[list(runs)[-1]]
        note += (f"; the SAM-chrF line takes {statistics.median(a / b for a, b in zip(ours, theirs)):.2f}x the "
                 f"baseline's time (median of per-round ratios)")
    write_results("startup", [table("Command-line start-up, cold process (seconds)",
                                    ["command", "median s", "min s", "max s", "heavy libraries imported"], rows, note)])


if __name__ == "__main__":
    main()

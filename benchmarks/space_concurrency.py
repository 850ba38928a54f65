"""Does a heavy request slow a normal one on a Space? The DiscoTK Space (variant party) is
launched on 127.0.0.1 and called through gradio_client, as a visitor's browser would: a normal
request (one sentence pair, a fresh text each time, so no cache answers it) is timed alone,
then again while a heavy request (24 segments of the kernels' worst case at the token cap)
is being scored. Each round runs in a fresh process, once with requests scored in threads of
the server (``NLGMETRICS_SPACE_PROCESSES=0``, before 0.2.0's worker processes) and once in
worker processes (the default on the CPU), alternating which goes first. Issue 32's target:
the normal request within 2x its time alone.

    python benchmarks/space_concurrency.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, table, write_results  # noqa: E402

#: the normal request's sentence pair ({k}: a fresh text each time)
NORMAL = ("He stayed home {k} times because it rained, although he wanted to go out.",
          "Because it rained {k} times, he stayed at home, although he wanted to go out.")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_round() -> dict:
    """In this process: launch the Space, time the requests, close it."""
    sys.path.insert(0, str(ROOT / "shared" / "tools"))
    import publish
    from gradio_client import Client

    from nlgmetrics.discotk.config import MAX_TOKENS

    demo = publish.load_app(ROOT / "spaces" / "discotk" / "app.py").build_demo()
    port = _free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        client = Client(url, verbose=False)

        def normal(k: int) -> float:
            start = time.perf_counter()
            client.predict(predictions=[NORMAL[0].format(k=k)], references=[NORMAL[1].format(k=k)], variant="party",
                           api_name="/score")
            return time.perf_counter() - start

        normal(0)  # warm-up: models, the reading's anchors
        alone = statistics.median(normal(k) for k in (1, 2, 3))
        worst = [" ".join(["x"] * MAX_TOKENS)] * 24
        heavy_s: dict = {}

        def heavy() -> None:
            start = time.perf_counter()
            Client(url, verbose=False).predict(predictions=worst, references=worst, variant="party", api_name="/score")
            heavy_s["s"] = time.perf_counter() - start

        thread = threading.Thread(target=heavy)
        thread.start()
        time.sleep(3)  # the heavy request is being scored
        together = normal(4)
        running = thread.is_alive()
        thread.join(timeout=600)
        return {"alone": alone, "together": together, "heavy_running": running, "heavy_s": heavy_s.get("s")}
    finally:
        demo.close()


def run_mode(processes: bool) -> dict:
    env = dict(os.environ, NLGMETRICS_SPACE_PROCESSES="1" if processes else "0", HF_HUB_OFFLINE="1",
               TOKENIZERS_PARALLELISM="false")
    out = subprocess.run([sys.executable, __file__, "--one-round"], env=env, capture_output=True, text=True,
                         check=True, timeout=900)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one-round", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_round:
        print(json.dumps(one_round()))
        return
    modes = {"threads": False, "processes": True}
    runs: dict = {name: [] for name in modes}
    load_before = os.getloadavg()[0]
    for r in range(args.rounds):
        order = list(modes) if r % 2 == 0 else list(reversed(modes))
        for name in order:
            res = run_mode(modes[name])
            runs[name].append(res)
            print(f"round {r + 1} {name}: alone {res['alone']:.3f} s, together {res['together']:.3f} s, "
                  f"heavy {res['heavy_s']:.1f} s (running: {res['heavy_running']})", flush=True)
    rows = []
    for name, results in runs.items():
        ratios = [x["together"] / x["alone"] for x in results]
        rows.append([name, round(statistics.median(x["alone"] for x in results), 3),
                     round(statistics.median(x["together"] for x in results), 3),
                     round(statistics.median(ratios), 2), round(min(ratios), 2), round(max(ratios), 2),
                     round(statistics.median(x["heavy_s"] for x in results), 1),
                     all(x["heavy_running"] for x in results)])
    load_after = os.getloadavg()[0]
    write_results("space_concurrency", [table(
        f"DiscoTK Space (party): a normal request alone and beside a heavy one ({args.rounds} rounds per mode)",
        ["scoring in", "alone s (median)", "beside heavy s (median)", "ratio (median)", "min", "max",
         "heavy request s", "heavy still running"], rows,
        note=f"Target (issue 32): ratio <= 2. Load average {load_before:.1f} before, {load_after:.1f} after, "
             f"on {os.cpu_count()} CPUs.")])


if __name__ == "__main__":
    main()

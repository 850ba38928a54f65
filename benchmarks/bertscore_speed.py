"""BERTScore speed on the CPU: nlgmetrics' ``core.embeddings.bertscore`` against bert_score
0.3.13 itself, same local all-MiniLM-L6-v2 (layer 6), same pairs, in one run.

Pairs: WMT21 de-en, the first ``--refs`` source segments (default 100) times ``--systems``
MT systems (default 8, the first by name that translated all of them): 800 pairs sharing 100
references, as a system-level evaluation scores them. Both sides run with ``batch_size``
64 on ``--threads`` torch threads (default 2). bert_score runs from a ``BERTScorer`` built once
(model loaded before the clock); nlgmetrics from a fresh ``ContextualEncoder`` per round (the
model is shared, the encoding cache empty), so neither side keeps vectors between rounds.
Rounds alternate the order (A B, then B A); reported are the medians and the median of the
per-round speed ratios, of wall time and of the process's CPU time (all threads; less sensitive
than wall time to other jobs on a shared machine, though not immune: a descheduled thread
makes its partner wait), and the machine's load before and after. The largest |F1| difference
between the two is recorded too.

The row-wise floor: the encoder's work on each token alone (the dense products: query, key,
value, attention output, both feed-forward layers; the GELU; the two layer norms), run with
the model's own modules on as many rows as the distinct texts have real tokens (special tokens
included), in the packed path's group size, timed in each round. An exact fp32 encoder cannot
skip this work; bert_score's time divided by it bounds the speed ratio any exact CPU path can
reach on this machine, were attention, embeddings, tokenizing and matching free.
``--no-write`` prints the tables without writing the result.

    python benchmarks/bertscore_speed.py [--rounds 3] [--threads 2] [--refs 100] [--systems 8] [--no-write]
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Callable, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch  # noqa: E402
from common import markdown_table, peak_rss_mb, read_jsonl, table, timer, write_results  # noqa: E402

from nlgmetrics.core.embeddings import ContextualEncoder, bertscore  # noqa: E402
from nlgmetrics.core.models import lite_encoder_path  # noqa: E402


def wmt21_pairs(n_refs: int, n_systems: int) -> Tuple[List[str], List[str]]:
    """(hypotheses, references): ``n_systems`` systems x the first ``n_refs`` de-en segments."""
    rows = [r for r in read_jsonl("wmt21_da_seg_toen_grouped.jsonl.gz") if r["lp"] == "de-en"][:n_refs]
    systems = sorted(s for s in set.intersection(*(set(r["hyps"]) for r in rows)) if s != "HUMAN")[:n_systems]
    hyps = [r["hyps"][s]["hyp"] for s in systems for r in rows]
    refs = [r["ref"] for _ in systems for r in rows]
    return hyps, refs


def row_floor(encoder: ContextualEncoder, texts: List[str]) -> Tuple[int, Callable[[], None]]:
    """(real tokens of the distinct ``texts``, a function running only the row-wise work of
    every layer on that many rows, in groups of the packed path's size)."""
    from nlgmetrics.core.packed import group_tokens, packed_parts

    parts = packed_parts(encoder.model, encoder.tokenizer)
    if parts is None:
        raise SystemExit("the packed path does not apply to this encoder")
    tokens = sum(len(ids) for ids in encoder.tokenizer(list(dict.fromkeys(texts)))["input_ids"])
    size = group_tokens(parts, 1)
    groups = [torch.randn(min(size, tokens - start), parts.config.hidden_size) for start in range(0, tokens, size)]

    def run() -> None:
        with torch.inference_mode():
            for x in groups:
                for layer in parts.layers:
                    sa, out = layer.attention.self, layer.attention.output
                    for dense in (sa.query, sa.key, sa.value):
                        dense(x)
                    attended = out.LayerNorm(out.dense(x) + x)
                    hidden = layer.intermediate.intermediate_act_fn(layer.intermediate.dense(attended))
                    layer.output.LayerNorm(layer.output.dense(hidden) + attended)
    return tokens, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--refs", type=int, default=100)
    parser.add_argument("--systems", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--no-write", action="store_true", help="print the tables, write no result file")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    torch.set_num_threads(args.threads)
    import bert_score

    hyps, refs = wmt21_pairs(args.refs, args.systems)
    n = len(hyps)
    path = lite_encoder_path()
    reference = bert_score.BERTScorer(model_type=path, num_layers=6, batch_size=args.batch_size, device="cpu")
    reference.score(hyps[:4], refs[:4])  # first-call overheads
    ContextualEncoder("minilm", device="cpu", batch_size=args.batch_size, quiet=True)  # loads the model
    scores: Dict[str, List[float]] = {}

    def run_bert_score() -> None:
        scores["bert_score"] = reference.score(hyps, refs)[2].tolist()

    def run_nlgmetrics() -> None:
        encoder = ContextualEncoder("minilm", device="cpu", batch_size=args.batch_size, quiet=True)
        scores["nlgmetrics"] = bertscore(hyps, refs, encoder)["f1"]

    tokens, run_floor = row_floor(ContextualEncoder("minilm", device="cpu", quiet=True), hyps + refs)
    run_floor()  # first-call overheads
    runs: Dict[str, Callable[[], None]] = {"bert_score 0.3.13": run_bert_score, "nlgmetrics": run_nlgmetrics}
    times: Dict[str, List[float]] = {name: [] for name in runs}
    cpu: Dict[str, List[float]] = {name: [] for name in runs}
    floor: List[float] = []
    load_before = os.getloadavg()[0]
    for rnd in range(args.rounds):
        for name in (list(runs) if rnd % 2 == 0 else list(runs)[::-1]):
            gc.collect()
            started = time.process_time()
            with timer() as t:
                runs[name]()
            cpu[name].append(time.process_time() - started)
            times[name].append(t["seconds"])
        with timer() as t:
            run_floor()
        floor.append(t["seconds"])
    ratios = [b / a for a, b in zip(times["nlgmetrics"], times["bert_score 0.3.13"])]
    cpu_ratios = [b / a for a, b in zip(cpu["nlgmetrics"], cpu["bert_score 0.3.13"])]
    bound = statistics.median(times["bert_score 0.3.13"]) / statistics.median(floor)
    diff = max(abs(a - b) for a, b in zip(scores["nlgmetrics"], scores["bert_score"]))
    rows = [[name, statistics.median(ts), n / statistics.median(ts), ", ".join(f"{s:.2f}" for s in ts),
             statistics.median(cpu[name])] for name, ts in times.items()]
    speed = table(f"BERTScore on {n} WMT21 de-en pairs ({args.systems} systems x {args.refs} references), CPU",
                  ["implementation", "seconds (median)", "pairs/s", "seconds per round", "CPU seconds (median)"],
                  rows,
                  f"{args.rounds} interleaved rounds; torch threads {args.threads}; batch size {args.batch_size}; "
                  f"all-MiniLM-L6-v2 layer 6, no idf. Speed ratio nlgmetrics / bert_score (median of per-round "
                  f"ratios): {statistics.median(ratios):.2f}x (CPU time: {statistics.median(cpu_ratios):.2f}x); largest "
                  f"|F1 difference| {diff:.1e}.")
    notes = [f"Per-round speed ratios: {', '.join(f'{r:.2f}' for r in ratios)}; of CPU time: "
             f"{', '.join(f'{r:.2f}' for r in cpu_ratios)}.",
             f"Machine load (1-minute average) before and after: {load_before:.1f}, {os.getloadavg()[0]:.1f} on "
             f"{os.cpu_count()} CPUs (shared with other jobs).", f"Peak RSS {peak_rss_mb():.0f} MiB.",
             f"Row-wise floor: the dense products, GELU and layer norms alone on the {tokens:,} real tokens of the distinct texts take "
             f"{statistics.median(floor):.2f} s (median; per round {', '.join(f'{s:.2f}' for s in floor)}), "
             f"{statistics.median(floor) / statistics.median(times['nlgmetrics']):.0%} of nlgmetrics' time; an exact fp32 "
             f"path can reach at most {bound:.2f}x bert_score here, were attention, embeddings, tokenizing and "
             f"matching free."]
    extra = {"speed_ratio": statistics.median(ratios), "cpu_time_ratio": statistics.median(cpu_ratios),
             "max_f1_difference": diff, "real_tokens": tokens, "row_floor_seconds": statistics.median(floor),
             "exact_ratio_bound": bound}
    if args.no_write:
        print(markdown_table(speed), *notes, extra, sep="\n")
        return
    write_results("bertscore_speed", [speed], notes, extra=extra)


if __name__ == "__main__":
    main()

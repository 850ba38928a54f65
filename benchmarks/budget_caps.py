"""Worst-case time per segment at each metric's work-budget caps (issue 32).

Each case is one segment built to make the metric's expensive step as slow as its caps allow
(identical tokens for DiscoTK's subset-tree kernels and SAM's METEOR alignment, a flat RST
tree of the most EDUs, ...), scored once after a warm-up call on the same scorer, plus a 1 MB
text of the same kind (which the budget cuts to the caps first). The time budget is about 2 s
per segment on two cores; the machine's load average is recorded with the times, since other
processes slow every number down.

    python benchmarks/budget_caps.py            # writes benchmarks/results/budget_caps.json
    python benchmarks/budget_caps.py --only rst # reruns the RST tree cases only (other rows kept)
"""
from __future__ import annotations

import json
import os
import random
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import table, write_results  # noqa: E402

import nlgmetrics  # noqa: E402
from nlgmetrics.discotk.config import MAX_EDUS, MAX_EDUS_OTHER, MAX_RST_TOKENS, MAX_RST_TOKENS_OTHER, MAX_TOKENS  # noqa: E402
from nlgmetrics.discotk.discourse import DiscourseTree, to_dis  # noqa: E402
from nlgmetrics.rome.config import MAX_WORDS as ROME_MAX_WORDS  # noqa: E402
from nlgmetrics.sam.config import BUDGET as SAM_BUDGET  # noqa: E402
from nlgmetrics.texteval.config import BUDGET as TEXTEVAL_BUDGET  # noqa: E402

MB = 1_000_000
RESULT = Path(__file__).resolve().parent / "results" / "budget_caps.json"
Case = Tuple[str, str, Any, Callable[[], Tuple[List[str], List[str]]]]


def _flat_rst(n: int, words: int = 1) -> str:
    edus = " ".join(f"_!{' '.join(['x'] * words)}!_" for _ in range(n))
    return f"(Joint{'[N]' * n} {edus})" if n > 1 else edus


def _document(seed: int, edus: int, words: int, vocabulary: int = 300) -> str:
    """A .dis document tree: ``edus`` EDUs of ``words`` words drawn from a Zipf-like vocabulary
    (``vocabulary=1``: the word x only), joined two neighbours at a time by random relations."""
    rng = random.Random(seed)
    pool = [f"w{k}" for k in range(vocabulary)]
    nodes = [DiscourseTree.edu(" ".join(pool[min(int(rng.paretovariate(1.0)) - 1, vocabulary - 1)]
                                        for _ in range(words))) for _ in range(edus)]
    relations = ("Elaboration", "Attribution", "Joint", "Contrast", "Background", "Cause", "Same-Unit")
    while len(nodes) > 1:
        k = rng.randrange(len(nodes) - 1)
        pair = DiscourseTree(rng.choice(relations), nodes[k:k + 2], rng.choice([("N", "S"), ("S", "N"), ("N", "N")]))
        nodes[k:k + 2] = [pair]
    return to_dis(nodes[0])


def cases() -> List[Case]:
    hyphen = "-".join(["x"] * ((MAX_TOKENS + 1) // 2))
    xs = " ".join(["x"] * MAX_TOKENS)
    good = " ".join(["good"] * SAM_BUDGET.max_units)
    rome_words = " ".join(["cat"] * ROME_MAX_WORDS)
    te = " ".join(["the"] * TEXTEVAL_BUDGET.max_units)
    return [
        ("discotk", "party", {}, lambda: ([hyphen], ["The cat sat on the mat."])),
        ("discotk", "party", {}, lambda: ([xs], [xs])),
        ("discotk", "light", {"variant": "light"}, lambda: ([xs], [xs])),
        ("discotk", "party", {}, lambda: ([_flat_rst(MAX_EDUS_OTHER)], [_flat_rst(MAX_EDUS_OTHER)])),
        ("discotk", "party", {}, lambda: ([_flat_rst(1, MAX_RST_TOKENS_OTHER)], [_flat_rst(1, MAX_RST_TOKENS_OTHER)])),
        ("discotk", "party", {}, lambda: (["-".join(["x"] * (MB // 2))], ["The cat sat on the mat."])),
        ("sam", "meteor", {}, lambda: ([good], [good])),
        ("sam", "meteor", {}, lambda: ([("good " * (MB // 5))], [("good " * (MB // 5))])),
        ("rome", "lite", {"profile": "lite", "max_words": ROME_MAX_WORDS}, lambda: ([rome_words], [rome_words])),
        ("rome", "lite", {"profile": "lite"}, lambda: ([("cat " * (MB // 4))], [("cat " * (MB // 4))])),
        ("texteval", "default", {}, lambda: ([te], [te])),
        ("texteval", "default", {}, lambda: ([("the " * (MB // 4))], [("the " * (MB // 4))])),
        # RST documents at DiscoTK-light's caps (flat layer), and the chain layer at the other caps
        ("discotk", "light", {"variant": "light"}, lambda: (
            [_document(1, MAX_EDUS, MAX_RST_TOKENS // MAX_EDUS)], [_document(2, MAX_EDUS, MAX_RST_TOKENS // MAX_EDUS)])),
        ("discotk", "light", {"variant": "light"}, lambda: (
            [_document(1, MAX_EDUS, MAX_RST_TOKENS // MAX_EDUS, 1)], [_document(2, MAX_EDUS, MAX_RST_TOKENS // MAX_EDUS, 1)])),
        ("discotk", "light", {"variant": "light"}, lambda: (
            [_document(1, MAX_EDUS, MAX_RST_TOKENS // MAX_EDUS, 1)], [_document(1, MAX_EDUS, MAX_RST_TOKENS // MAX_EDUS, 1)])),
        ("discotk", "light", {"variant": "light"}, lambda: ([_flat_rst(MAX_EDUS, MAX_RST_TOKENS // MAX_EDUS)],
                                                            [_flat_rst(MAX_EDUS, MAX_RST_TOKENS // MAX_EDUS)])),
        ("discotk", "light", {"variant": "light"}, lambda: ([_flat_rst(1, MAX_RST_TOKENS)], [_flat_rst(1, MAX_RST_TOKENS)])),
        ("discotk", "light chain", {"variant": "light", "lexical_layer": "chain"}, lambda: (
            [_document(1, MAX_EDUS_OTHER, 1, 1)], [_document(1, MAX_EDUS_OTHER, 1, 1)])),
        ("discotk", "light chain", {"variant": "light", "lexical_layer": "chain"}, lambda: (
            [_flat_rst(1, MAX_RST_TOKENS_OTHER)], [_flat_rst(1, MAX_RST_TOKENS_OTHER)])),
    ]


DESCRIBE = {0: "hyphenated x at the token cap vs a short sentence", 1: "x repeated to the token cap, vs itself",
            2: "x repeated to the token cap, vs itself", 3: "flat RST tree at the EDU cap, vs itself",
            4: "one RST EDU at the EDU-token cap, vs itself", 5: "1 MB hyphenated x (cut to the cap)",
            6: "'good' repeated to the token cap, vs itself", 7: "1 MB of 'good' vs itself (cut to the cap)",
            8: "'cat' repeated to max_words' upper bound, vs itself", 9: "1 MB of 'cat' vs itself (cut)",
            10: "'the' repeated to the token cap, vs itself", 11: "1 MB of 'the' vs itself (cut)",
            12: "RST document at the light caps (EDUs of 10 Zipf words) vs another",
            13: "RST document at the light caps, every word x, vs another",
            14: "RST document at the light caps, every word x, vs itself",
            15: "flat RST tree at the light caps (10 x per EDU), vs itself",
            16: "one RST EDU at the light EDU-token cap, vs itself",
            17: "RST document at the EDU cap (party, chain), one x per EDU, vs itself",
            18: "one RST EDU at the EDU-token cap (party, chain), vs itself"}
#: the cases ``--only rst`` reruns
RST_CASES = (3, 4, 12, 13, 14, 15, 16, 17, 18)


def spaceless_and_reference_rows(scorers: dict) -> List[list]:
    """Issue 37's cases, each ``[metric, options, segment, characters, seconds, CPU seconds,
    truncated, load]``: RoMe on emoji without a space (the budget counts them as tokens, not as one
    whitespace word) at its cap and 20,000 of them, and TextEval's scaling with references at its
    cap per segment and 20,000 of them (cut to the first ones)."""
    from nlgmetrics.rome.config import BUDGET as ROME_BUDGET
    from nlgmetrics.texteval.config import MAX_REFERENCES

    emoji = "\U0001F600"
    refs = [f"the cat number {k} sat on the mat of house {k % 7}" for k in range(20_000)]
    todo = [("rome", "lite", {"profile": "lite"}, f"{ROME_BUDGET.max_units:,} emoji without a space (the token cap)",
             [emoji * ROME_BUDGET.max_units], ["hello there"]),
            ("rome", "lite", {"profile": "lite"}, "20,000 emoji without a space (cut to the token cap)",
             ["\U0001F601" * 20_000], ["hello there"]),  # another emoji: no parse cached from the row above
            ("texteval", "scaling", {"approach": "scaling"}, f"{MAX_REFERENCES} references (the cap per segment)",
             ["the cat sat on the mat"], [refs[:MAX_REFERENCES]]),
            ("texteval", "scaling", {"approach": "scaling"}, "20,000 references (cut to the cap)",
             ["the cat sat on the mat"], [refs])]
    rows = []
    for metric, label, options, what, preds, refs_ in todo:
        key = (metric, tuple(sorted(options.items())))
        if key not in scorers:
            scorers[key] = nlgmetrics.load(metric, quiet=True, **options)
            scorers[key].score(["The cat sat."], [["A cat sat.", "The cat sat down."]])  # warm-up
        timing = timed(scorers[key], preds, refs_)
        rows.append([metric, label, what, sum(map(len, refs_[0])) if metric == "texteval" else len(preds[0]), *timing])
        print(rows[-1], flush=True)
    return rows


def timed(scorer: Any, preds: list, refs: list) -> list:
    """One scoring of a worst case, caches cleared first: [wall s, CPU s, truncated, load average
    just before]."""
    if hasattr(scorer, "clear_cache"):
        scorer.clear_cache()
    load = os.getloadavg()[0]
    start, cpu = time.perf_counter(), time.process_time()
    result = scorer.score(preds, refs)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    truncated = bool(result.details and result.details[0].get("truncated"))
    return [round(seconds, 2), round(cpu, 2), truncated, round(load, 1)]


def main() -> None:
    import torch

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)  # CPU seconds = the time of one core, whatever the load
    only_rst = sys.argv[1:] == ["--only", "rst"]
    rows = []
    scorers: dict = {}
    for k, (metric, label, options, make) in enumerate(cases()):
        if only_rst and k not in RST_CASES:
            continue
        key = (metric, tuple(sorted(options.items())))
        if key not in scorers:
            scorers[key] = nlgmetrics.load(metric, quiet=True, **options)
            scorers[key].score(["The cat sat."], ["A cat sat."])  # warm-up: models loaded, kernels built
        preds, refs = make()
        rows.append([metric, label, DESCRIBE[k], len(preds[0]), *timed(scorers[key], preds, refs)])
        print(rows[-1], flush=True)
    if only_rst:  # keep the other cases' rows of the last full run, in case order
        kept = json.loads(RESULT.read_text())["tables"][0]["rows"]
        rerun = {DESCRIBE[k] for k in RST_CASES}
        order = {d: k for k, d in DESCRIBE.items()}
        rows = sorted([r for r in kept if r[2] not in rerun] + rows, key=lambda r: order.get(r[2], len(order)))
    else:
        rows += spaceless_and_reference_rows(scorers)
    write_results("budget_caps", [table(
        "Worst-case time of one segment at the work-budget caps", ["metric", "options", "segment", "characters",
                                                                  "seconds", "CPU seconds", "truncated", "load average (1 min)"],
        rows, note="time budget: about 2 s per segment on two cores; the load average is that of the machine "
                   "just before the call (other processes share the two cores, so wall seconds run up to load/2 "
                   "times the CPU seconds of this process; torch runs on one thread, so CPU seconds are the time "
                   "of one free core)")])


if __name__ == "__main__":
    main()

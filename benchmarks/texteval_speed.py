"""TextEval throughput: texts per second for each multinomial model (words, tags, classes),
for featurisation alone and for ``score()`` end to end (direct and scaling approaches), on
WMT21 system outputs.

Inputs: the first ``--groups`` source segments of wmt21 de-en (20 systems each); each system
output is a prediction whose standard set is the other outputs of the same source (so every
row has its own standard set of ~18 texts, the expensive case). Tags are parsed by the
project's spaCy pipeline in batches; the analyzer is re-created (untimed) before each tags
run, so its parse cache is empty and the timings include parsing. One-time loads (spaCy
model, WordNet) are timed separately.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import peak_rss_mb, read_jsonl, table, timer, write_results  # noqa: E402

from nlgmetrics.core.linguistic import get_analyzer  # noqa: E402
from nlgmetrics.core.resources import wordnet  # noqa: E402
from nlgmetrics.texteval import FEATURES, TextEval  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=60)
    args = parser.parse_args()
    groups = [r for r in read_jsonl("wmt21_da_seg_toen_grouped.jsonl.gz") if r["lp"] == "de-en"][:args.groups]
    preds, refs = [], []
    for g in groups:
        outputs = [h["hyp"] for h in g["hyps"].values()]
        for i, hyp in enumerate(outputs):
            preds.append(hyp)
            refs.append(outputs[:i] + outputs[i + 1:])
    texts = list(dict.fromkeys(preds))
    words = sum(len(t.split()) for t in texts)
    with timer() as t_wn:
        wordnet()
    with timer() as t_spacy:
        get_analyzer()
    rows = []
    for model in FEATURES:
        for approach in ("featurise", "direct", "scaling"):
            if model == "tags":
                get_analyzer.cache_clear()  # the scorer loads a fresh analyzer (untimed), empty parse cache
            scorer = TextEval(features=model, approach="direct" if approach == "featurise" else approach,
                              corpus="mean", quiet=True)
            if approach == "featurise":
                with timer() as t:
                    scorer.counts(texts)
                n = len(texts)
            else:
                with timer() as t:
                    scorer.score(preds, refs)
                n = len(preds)
            rows.append([model, approach, n, t["seconds"], n / t["seconds"]])
            print(rows[-1], file=sys.stderr)
    tables = [
        table("TextEval throughput (texts per second)", ["model", "work", "texts", "seconds", "texts/s"], rows,
              note=f"{len(groups)} wmt21 de-en sources, {len(preds)} predictions ({len(texts)} unique, "
                   f"{words / len(texts):.1f} words each), each rated against the other outputs of its source "
                   f"(~{sum(map(len, refs)) / len(refs):.0f} texts); 'featurise' = counts of the unique texts only "
                   "(tags: spaCy parse included); score() includes featurising the references."),
        table("One-time loads (seconds)", ["resource", "seconds"],
              [["WordNet (nltk reader, classes model)", t_wn["seconds"]],
               ["spaCy pipeline (tags model)", t_spacy["seconds"]]]),
    ]
    write_results("texteval_speed", tables, notes=[f"peak RSS {peak_rss_mb():.0f} MiB",
                                                   "2 CPU cores shared with other jobs; single process"])


if __name__ == "__main__":
    main()

"""RoMe's F_grammar on text without final punctuation: does adding a full stop
(``grammar_punctuation="full-stop"``) keep the CoLA head's judgements when the sentence-final
mark is missing, as it often is in system output and user input?

    python benchmarks/rome_grammar_punctuation.py

Most of CoLA's sentences end in . ! or ? (about 4% of the train split have no final mark;
the script prints the share per split). Each split is scored
three ways with the shipped lite head: the sentences as they are, with their final punctuation
removed (``as-is`` on those), and removed then restored by the option's rule (``full-stop``).
Rule, declared before the first run: ``full-stop`` becomes the default if, on the selection
split (the fixed 10% of CoLA's train split that picked the head's epoch and threshold; training
data), it raises the MCC of the stripped sentences by more than 0.02 over ``as-is``. The dev
splits are reported, never used for the choice.
"""
from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from common import read_jsonl, table, timer, write_results
from training.rome_grammar import SEED, evaluate

import nlgmetrics
from nlgmetrics.rome.features import SENTENCE_ENDS
from nlgmetrics.rome.grammar import CLOSING_MARKS, with_end_punctuation


def strip_final(text: str) -> str:
    """``text`` without trailing whitespace, closing quotes or brackets, or final . ! ? …"""
    return text.rstrip().rstrip(CLOSING_MARKS + "".join(SENTENCE_ENDS)).rstrip()


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    rows = read_jsonl("cola_public.jsonl.gz")
    texts = [r["sentence"] for r in rows]
    labels = np.array([int(r["label"]) for r in rows])
    split = np.array([r["split"] for r in rows])
    train = np.flatnonzero(split == "in_domain_train")
    selection = np.random.default_rng(SEED).permutation(train)[: len(train) // 10]  # as rome_grammar.py
    splits = {"selection (10% of train)": selection, "in-domain dev": np.flatnonzero(split == "in_domain_dev"),
              "out-of-domain dev": np.flatnonzero(split == "out_of_domain_dev")}
    head = nlgmetrics.load("rome", profile="lite", component="grammar", grammar_punctuation="as-is", device="cpu",
                           quiet=True)
    wanted = sorted({int(k) for idx in splits.values() for k in idx})
    stripped = {k: strip_final(texts[k]) for k in wanted}
    variants = {"sentences as they are": [texts[k] for k in wanted],
                "final punctuation removed, as-is": [stripped[k] for k in wanted],
                "final punctuation removed, full-stop": [with_end_punctuation(stripped[k]) for k in wanted]}
    with timer() as t:
        probs = {name: dict(zip(wanted, head.f_grammar(v))) for name, v in variants.items()}
    out: list[list[Any]] = []
    mccs: dict[tuple[str, str], float] = {}
    for split_name, idx in splits.items():
        ends = float(np.mean([texts[k].rstrip().rstrip(CLOSING_MARKS)[-1:] in ".!?" for k in idx]))
        for name in variants:
            m = evaluate(np.array([probs[name][int(k)] for k in idx]), labels[idx])
            mccs[(split_name, name)] = m["mcc"]
            out.append([split_name, name, m["n"], round(ends, 3), m["accuracy"], m["majority"], m["mcc"], m["auc"]])
    gain = (mccs[("selection (10% of train)", "final punctuation removed, full-stop")]
            - mccs[("selection (10% of train)", "final punctuation removed, as-is")])
    verdict = "full-stop" if gain > 0.02 else "as-is"
    result = table("F_grammar (lite head) with and without sentence-final punctuation, CoLA",
                   ["split", "input", "n", "share ending in . ! ?", "accuracy", "majority class", "MCC", "ROC AUC"],
                   out, note=f"Selection-split MCC gain of full-stop over as-is on stripped sentences: {gain:+.4f} "
                             f"(rule: > 0.02) -> default {verdict}. {head.signature}; {t['seconds']:.1f} s.")
    write_results("rome_grammar_punctuation", [result], extra={"selection_gain": round(gain, 4), "default": verdict})


if __name__ == "__main__":
    main()

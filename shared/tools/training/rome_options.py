"""Choose RoMe-lite's departures from the specification by measurement on training data only:
for each combination of ``alignment``, ``emd_unaligned``, ``emd_weights``, ``emd_antonyms`` and ``emd_names`` (F_EMD),
``ted_tree`` and ``ted_vectors`` (F_TED), fit the monotone network on the self-supervised training pairs (:mod:`.rome_scorer`) and measure
its accuracy on the held-out synthetic pairs (never on a benchmark).

    python shared/tools/training/rome_options.py [--cache /tmp/rome_options.npz]

Prints one line per combination: overall held-out accuracy, accuracy on role reversals, and
the ranking the options target: the share of (correct paraphrase -- passive, clause reordering
or other template --, role reversal of a fact) held-out pairs in which the paraphrase scores
higher (a Mann-Whitney AUC). The chosen combination maximises the mean of the overall accuracy
and that ranking share.
"""
from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from nlgmetrics.rome import RoMe, RoMeConfig, emd_similarity
from nlgmetrics.rome.fit import accuracy_by_kind, train_network
from nlgmetrics.rome.pairs import make_pairs

ALIGNMENTS = ("argmax", "thresholded")
UNALIGNED = ("one", "cosine")
WEIGHTS = ("tfidf", "content")
ANTONYMS = ("off", "wordnet")
NAMES = ("off", "capitalised")
TREES = ("lemma", "roles", "roles_copula")
VECTORS = ("contextual", "static")


def _texts(rows: Sequence[Any]) -> tuple:
    return [r[1] for r in rows], [r[0] for r in rows]


def word_vectors(hyps: Sequence[str], refs: Sequence[str]) -> dict[str, Any]:
    """Per text, the lite encoder's words, word vectors and name flags, from one pass (F_EMD's
    options do not change them)."""
    scorer = RoMe(profile="lite", component="emd", emd_names="capitalised", device="cpu", quiet=True)
    return scorer._analyse(list(hyps) + list(refs), {"emd"})


def emd_column(sent: dict[str, Any], hyps: Sequence[str], refs: Sequence[str], **options: Any) -> np.ndarray:
    """F_EMD of each (hypothesis, reference) pair under ``options`` of :func:`emd_similarity`."""
    return np.array([emd_similarity(sent[h].words, sent[r].words, sent[h].vectors, sent[r].vectors,
                                    hyp_opaque=sent[h].opaque, ref_opaque=sent[r].opaque,
                                    hyp_names=sent[h].names, ref_names=sent[r].names, **options)[0]
                     for h, r in zip(hyps, refs)])


def emd_variants(hyps: Sequence[str], refs: Sequence[str]) -> dict[str, np.ndarray]:
    """F_EMD of every (alignment, emd_unaligned, emd_weights, emd_antonyms, emd_names)
    combination, keyed ``emd_<alignment>_<unaligned>_<weights>_<antonyms>_<names>``, from one
    pass of the encoder."""
    sent = word_vectors(hyps, refs)
    return {emd_key(*combo): emd_column(sent, hyps, refs, alignment=combo[0], unaligned=combo[1], weights=combo[2],
                                        antonyms=combo[3], names=combo[4])
            for combo in itertools.product(ALIGNMENTS, UNALIGNED, WEIGHTS, ANTONYMS, NAMES)}


def emd_key(alignment: str, unaligned: str, weights: str, antonyms: str, names: str) -> str:
    """The cache key of one F_EMD combination (the key before the name rule existed when it is off)."""
    return f"emd_{alignment}_{unaligned}_{weights}_{antonyms}" + ("" if names == "off" else f"_{names}")


def function_weight_sweep(weights: Sequence[float], cached: dict[str, np.ndarray], pairs: dict,
                          hyps: Sequence[str], refs: Sequence[str]) -> list[dict[str, Any]]:
    """The default options with F_EMD's function-word weight set to each of ``weights``: the
    network fitted on the training pairs, measured on the held-out ones."""
    cfg = RoMeConfig(profile="lite")
    sent = word_vectors(hyps, refs)
    n_train = len(pairs["train"])
    y = np.array([r[3] for r in pairs["train"] + pairs["test"]], dtype=np.float32)
    out = []
    for weight in weights:
        emd = emd_column(sent, hyps, refs, alignment=cfg.alignment, unaligned=cfg.emd_unaligned, weights="content",
                         antonyms=cfg.emd_antonyms, names=cfg.emd_names, function_weight=weight)
        x = np.column_stack([cached["grammar"], cached[f"ted_{cfg.ted_tree}_{cfg.ted_vectors}"], emd])
        out.append({"function_weight": weight, **fit_and_measure(x, y, n_train, pairs["test"])})
        print(f"function_weight={weight:g} held-out accuracy {out[-1]['accuracy']['all']:.4f} paraphrase>reversal "
              f"{out[-1]['paraphrase_over_reversal']:.4f} criterion {out[-1]['criterion']:.4f}", flush=True)
    return out


def fit_and_measure(x: np.ndarray, y: np.ndarray, n_train: int, test_rows: Sequence[Any]) -> dict[str, Any]:
    """Fit the monotone network on the first ``n_train`` rows of features ``x`` (labels ``y``)
    and measure it on the rest (``test_rows``): held-out accuracy by kind, paraphrase > role
    reversal, and their mean (the criterion)."""
    net = train_network(x[:n_train], y[:n_train])
    with torch.no_grad():
        prob = torch.sigmoid(net(torch.tensor(x[n_train:], dtype=torch.float32))).numpy()
    acc = accuracy_by_kind(prob, test_rows)
    rank = paraphrase_over_reversal(prob, test_rows)
    return {"accuracy": acc, "paraphrase_over_reversal": rank, "criterion": round((acc["all"] + rank) / 2, 4)}


def paraphrase_over_reversal(prob: np.ndarray, rows: Sequence[Any]) -> float:
    """Share of (paraphrase, role reversal) pairs of ``rows`` in which the paraphrase's score
    is higher (ties count one half)."""
    para = np.array([p for p, r in zip(prob, rows) if r[2] == "paraphrase"])
    rev = np.array([p for p, r in zip(prob, rows) if r[2] == "role_reversal"])
    if not len(para) or not len(rev):
        return float("nan")
    diff = para[:, None] - rev[None, :]
    return round(float(((diff > 0) + 0.5 * (diff == 0)).mean()), 4)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=None, help="an .npz of computed features (reused when present)")
    parser.add_argument("--output", type=Path, default=None, help="write the results as JSON")
    parser.add_argument("--function-weights", default=None,
                        help="instead of the grid: the default options with these comma-separated F_EMD "
                             "function-word weights (e.g. 0.05,0.1,0.2,0.35,0.5,1)")
    args = parser.parse_args(argv)
    pairs = make_pairs()
    rows = pairs["train"] + pairs["test"]
    hyps, refs = _texts(rows)
    cached: dict[str, np.ndarray] = {}
    if args.cache and args.cache.exists():
        with np.load(args.cache) as data:
            cached = {k: data[k] for k in data.files}
    def save() -> None:
        if args.cache:
            np.savez(args.cache, **cached)  # type: ignore[arg-type]

    if not all(emd_key(*combo) in cached for combo in itertools.product(ALIGNMENTS, UNALIGNED, WEIGHTS, ANTONYMS, NAMES)):
        cached.update(emd_variants(hyps, refs))
        save()
    for tree, vectors in itertools.product(TREES, VECTORS):
        if f"ted_{tree}_{vectors}" not in cached:
            scorer = RoMe(profile="lite", component="ted", ted_tree=tree, ted_vectors=vectors, device="cpu",
                          quiet=True)
            cached[f"ted_{tree}_{vectors}"] = scorer.f_ted(hyps, refs)
            save()
    if "grammar" not in cached:
        cached["grammar"] = RoMe(profile="lite", component="grammar", device="cpu", quiet=True).f_grammar(hyps)
        save()
    if args.function_weights:
        sweep = function_weight_sweep([float(w) for w in args.function_weights.split(",")], cached, pairs, hyps,
                                      refs)
        if args.output:
            args.output.write_text(json.dumps({"function_weight_sweep": sweep}, indent=1) + "\n")
        return {"function_weight_sweep": sweep}
    n_train = len(pairs["train"])
    y = np.array([r[3] for r in rows], dtype=np.float32)
    results: list[dict[str, Any]] = []
    for alignment, unaligned, weights, antonyms, names, tree, vectors in itertools.product(
            ALIGNMENTS, UNALIGNED, WEIGHTS, ANTONYMS, NAMES, TREES, VECTORS):
        x = np.column_stack([cached["grammar"], cached[f"ted_{tree}_{vectors}"],
                             cached[emd_key(alignment, unaligned, weights, antonyms, names)]])
        results.append({"alignment": alignment, "emd_unaligned": unaligned, "emd_weights": weights,
                        "emd_antonyms": antonyms, "emd_names": names, "ted_tree": tree, "ted_vectors": vectors,
                        **fit_and_measure(x, y, n_train, pairs["test"])})
        acc, rank = results[-1]["accuracy"], results[-1]["paraphrase_over_reversal"]
        print(f"alignment={alignment:11s} emd_unaligned={unaligned:6s} emd_weights={weights:7s} "
              f"emd_antonyms={antonyms:7s} emd_names={names:11s} "
              f"ted_tree={tree:5s} ted_vectors={vectors:10s} held-out accuracy "
              f"{acc['all']:.4f} role reversal {acc.get('role_reversal', float('nan')):.4f} "
              f"paraphrase>reversal {rank:.4f}", flush=True)
    best = max(results, key=lambda r: r["criterion"])
    print("best:", json.dumps(best))
    if args.output:
        args.output.write_text(json.dumps({"results": results, "best": best}, indent=1) + "\n")
    return {"results": results, "best": best}


if __name__ == "__main__":
    main()

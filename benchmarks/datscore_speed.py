"""DATScore speed: this implementation against the straightforward one, with a mid-size random
M2M-100 on CPU, in two cases: a multi-system corpus (several systems sharing sources and
references) and a single system (what most users score: nothing shared between segments).

Straightforward = every direction scored separately for every segment (a full encoder +
decoder forward per direction and segment, batched in corpus order, BARTScore-style), and the
augmented translations made for every segment (each system's copy of a source or reference
translated again). It is written here with plain transformers calls, independently of
``nlgmetrics.datscore.seq2seq``, so the comparison also checks the scores (same to <= 1e-5).

Each implementation runs in its own fresh process (spawned one after the other), so their
peak memory (ru_maxrss) is measured separately. The machine is shared, so absolute seconds
drift; the two implementations alternate (``--repeats`` rounds of straightforward then
nlgmetrics) and each ratio is the median over rounds of the ratio within a round.

Corpus: WMT21 de-en (../shared/data/wmt21_da_seg_toen_grouped.jsonl.gz), ``--sources``
source segments of at most ``--max-words`` words, each translated by the same ``--systems``
systems. Model: random M2M-100, d_model 512, 6 + 6 layers, 8 heads, FFN 2048, SentencePiece
vocabulary trained on the language pair's texts (``--vocab`` pieces, far below M2M-100's
128k, which would make the vocabulary projection dominate both implementations alike).
A random model's translations are random token strings, so generation is capped at
``--max-new-tokens`` new tokens (documented; the real model stops at </s>).

    nice python benchmarks/datscore_speed.py [--case both --repeats 3 --threads 1]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from common import RESULTS, peak_rss_mb, read_jsonl, table, timer, write_results  # noqa: E402

SOURCE_LANG, TARGET_LANG = "de", "en"


def build_corpus(n_systems: int, n_sources: int, max_words: int) -> Dict[str, Any]:
    """Rows of WMT21 de-en whose source and reference are short, scored for the same systems."""
    rows = [r for r in read_jsonl("wmt21_da_seg_toen_grouped.jsonl.gz") if r["lp"] == "de-en"]
    short = [r for r in rows if len(r["src"].split()) <= max_words and len(r["ref"].split()) <= max_words]
    counts: Dict[str, int] = {}
    for r in short:
        for system in r["hyps"]:
            if system != "HUMAN":
                counts[system] = counts.get(system, 0) + 1
    systems = sorted(counts, key=lambda s: (-counts[s], s))[:n_systems]
    chosen = [r for r in short if all(s in r["hyps"] for s in systems)][:n_sources]
    if len(chosen) < n_sources or len(systems) < n_systems:
        sys.exit(f"not enough rows: {len(chosen)} sources x {len(systems)} systems")
    srcs, refs, hyps, sys_names = [], [], [], []
    for system in systems:
        for r in chosen:
            srcs.append(r["src"])
            refs.append(r["ref"])
            hyps.append(r["hyps"][system]["hyp"])
            sys_names.append(system)
    texts = [t for r in rows for t in (r["src"], r["ref"])]
    return {"sources": srcs, "references": refs, "predictions": hyps, "systems": sys_names, "vocab_texts": texts}


# -- the straightforward implementation -------------------------------------------------
def naive_translate(model, tokenizer, texts: Sequence[str], src: str, tgt: str, beam: int, max_new: int,
                    batch_size: int) -> List[str]:
    """Every text translated (duplicates included), batches in corpus order."""
    import torch

    tokenizer.src_lang = src
    skip = set(tokenizer.lang_code_to_id.values()) | set(tokenizer.all_special_ids)
    out: List[str] = []
    for start in range(0, len(texts), batch_size):
        chunk = list(texts[start:start + batch_size])
        enc = tokenizer(chunk, return_tensors="pt", padding=True).to(model.device)
        with torch.inference_mode():
            gen = model.generate(**enc, num_beams=beam, max_new_tokens=max_new,
                                 forced_bos_token_id=tokenizer.get_lang_id(tgt))
        # empty texts translate to "" (as in the metric); drop special and language tokens
        out += ["" if not text.strip() else tokenizer.decode([t for t in row if t not in skip]).strip()
                for text, row in zip(chunk, gen.tolist())]
    return out


def naive_direction(model, tokenizer, xs: Sequence[str], x_lang: str, ys: Sequence[str], y_lang: str,
                    weighting: str, batch_size: int) -> List[float]:
    """Score(X -> Y) for every segment with a full forward pass per batch (corpus order)."""
    import torch

    tokenizer.src_lang, tokenizer.tgt_lang = x_lang, y_lang
    scores: List[float] = []
    for start in range(0, len(xs), batch_size):
        enc = tokenizer(list(xs[start:start + batch_size]), text_target=list(ys[start:start + batch_size]),
                        return_tensors="pt", padding=True).to(model.device)
        labels = enc["labels"]
        with torch.inference_mode():
            logits = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], labels=labels).logits
        logp = torch.log_softmax(logits.float(), dim=-1)
        token_logp = logp.gather(-1, labels.clamp(min=0)[..., None])[..., 0]
        entropy = -(logp.exp() * logp).sum(-1)
        mask = (labels != tokenizer.pad_token_id).float()
        mask[:, 0] = 0.0  # the forced language token is given, not scored
        weights = mask * (entropy if weighting == "entropy" else 1.0)
        scores += ((weights * token_logp).sum(1) / weights.sum(1)).tolist()
    return scores


def run_naive(model_dir: str, corpus: Dict[str, Any], args: argparse.Namespace) -> Dict[str, Any]:
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from nlgmetrics.datscore import ALL_DIRECTIONS, augmentation_languages

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSeq2SeqLM.from_pretrained(model_dir).eval()
    base = peak_rss_mb()
    a, b = augmentation_languages(SOURCE_LANG, TARGET_LANG)
    with timer() as t_translate:
        trans1 = naive_translate(model, tokenizer, corpus["sources"], SOURCE_LANG, a, args.beam,
                                 args.max_new_tokens, args.batch_size)
        trans2 = naive_translate(model, tokenizer, corpus["references"], TARGET_LANG, b, args.beam,
                                 args.max_new_tokens, args.batch_size)
    texts = {"src": (corpus["sources"], SOURCE_LANG), "ref": (corpus["references"], TARGET_LANG),
             "hypo": (corpus["predictions"], TARGET_LANG), "trans1": (trans1, a), "trans2": (trans2, b)}
    directions = {}
    with timer() as t_score:
        for name in ALL_DIRECTIONS:
            x, y = name.split("->")
            directions[name] = naive_direction(model, tokenizer, *texts[x], *texts[y], "entropy", args.batch_size)
    return {"translate_seconds": t_translate["seconds"], "score_seconds": t_score["seconds"],
            "peak_rss_mb": peak_rss_mb(), "base_rss_mb": base, "directions": directions,
            "trans1": trans1, "trans2": trans2}


# -- this implementation ----------------------------------------------------------------
def run_fast(model_dir: str, corpus: Dict[str, Any], args: argparse.Namespace) -> Dict[str, Any]:
    from nlgmetrics.datscore import DATScore

    scorer = DATScore(model=model_dir, source_lang=SOURCE_LANG, target_lang=TARGET_LANG, beam_size=args.beam,
                      max_new_tokens=args.max_new_tokens, batch_size=args.batch_size, device="cpu",
                      return_translations=True, quiet=True)
    base = peak_rss_mb()

    def translate() -> None:  # the step score() starts with; later calls are served by the cache
        scorer.lm.translate(corpus["sources"], SOURCE_LANG, scorer.trans1_lang, beam_size=args.beam,
                            max_new_tokens=args.max_new_tokens)
        scorer.lm.translate(corpus["references"], TARGET_LANG, scorer.trans2_lang, beam_size=args.beam,
                            max_new_tokens=args.max_new_tokens)

    with timer() as t_translate:
        translate()
    with timer() as t_score:
        result = scorer.score(corpus["predictions"], corpus["references"], corpus["sources"])
    peak = peak_rss_mb()
    with timer() as again:
        translate()
    names = result.corpus["directions"]
    return {"translate_seconds": t_translate["seconds"], "score_seconds": t_score["seconds"],
            "cached_translation_seconds": again["seconds"], "peak_rss_mb": peak, "base_rss_mb": base,
            "directions": {d: [det["directions"][d] for det in result.details] for d in names},
            "trans1": [det["translations"]["trans1"] for det in result.details],
            "trans2": [det["translations"]["trans2"] for det in result.details],
            "scores": result.scores, "weights": result.corpus["direction_weights"], "signature": result.signature}


def _child(kind: str, model_dir: str, corpus: Dict[str, Any], args: argparse.Namespace, queue) -> None:
    import torch

    torch.set_num_threads(args.threads)
    out = (run_naive if kind == "naive" else run_fast)(model_dir, corpus, args)
    out["torch_threads"] = torch.get_num_threads()  # what the run really used
    queue.put(out)


def in_fresh_process(kind: str, model_dir: str, corpus: Dict[str, Any], args: argparse.Namespace) -> Dict[str, Any]:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(kind, model_dir, corpus, args, queue))
    proc.start()
    out = queue.get()
    proc.join()
    if proc.exitcode:
        sys.exit(f"{kind} run failed with exit code {proc.exitcode}")
    return out


CASES = {"multi": (8, 32, 1), "single": (1, 12, 3)}  # systems, sources, default rounds
CASE_LABELS = {"multi": "multi-system", "single": "single system"}


def run_case(label: str, n_systems: int, n_sources: int, repeats: int, args: argparse.Namespace) -> Dict[str, Any]:
    """One case: ``repeats`` interleaved rounds; the table and the numbers for the results."""
    import numpy as np
    from tiny_models import build_tiny_m2m100

    from nlgmetrics.datscore import direction_weights

    corpus = build_corpus(n_systems, n_sources, args.max_words)
    n = len(corpus["predictions"])
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = build_tiny_m2m100(Path(tmp) / "m2m100-random-512", d_model=512, layers=6, heads=8, ffn_dim=2048,
                                      vocab_size=args.vocab, max_position_embeddings=256,
                                      texts=corpus.pop("vocab_texts"), seed=0)
        for _ in range(repeats):
            rounds.append((in_fresh_process("naive", model_dir, corpus, args),
                           in_fresh_process("fast", model_dir, corpus, args)))
    naive, fast = rounds[-1]

    # the straightforward per-segment scores combined by the same corpus reduction
    names = list(fast["directions"])
    matrix_naive = np.array([naive["directions"][d] for d in names]).T
    naive_scores = matrix_naive @ direction_weights(matrix_naive, names, "one-vs-rest")[0]
    matrix_fast = np.array([fast["directions"][d] for d in names]).T
    dir_diff = float(np.abs(matrix_fast - matrix_naive).max())
    score_diff = float(np.abs(np.array(fast["scores"]) - naive_scores).max())
    same_translations = naive["trans1"] == fast["trans1"] and naive["trans2"] == fast["trans2"]

    def seconds(r: Dict[str, Any], phase: str) -> float:
        return r["translate_seconds"] + r["score_seconds"] if phase == "total" else r[f"{phase}_seconds"]

    phases = ("translate", "score", "total")
    ratios = {p: [seconds(a, p) / seconds(b, p) for a, b in rounds] for p in phases}
    median = {p: float(np.median(v)) for p, v in ratios.items()}
    rows = []
    for label_impl, index in (("straightforward", 0), ("nlgmetrics DATScore", 1)):
        med = {p: float(np.median([seconds(r[index], p) for r in rounds])) for p in phases}
        speed = [1.0, 1.0, 1.0] if index == 0 else [round(median[p], 2) for p in ("total", "translate", "score")]
        rows.append([label_impl, round(med["translate"], 1), round(med["score"], 1), round(med["total"], 1), *speed,
                     round(max(r[index]["peak_rss_mb"] for r in rounds)),
                     round(max(r[index]["peak_rss_mb"] - r[index]["base_rss_mb"] for r in rounds))])
    n_src = len(set(corpus["sources"]))
    n_unique = len(set(zip(corpus["sources"], corpus["predictions"])))
    spread = "; ".join(f"{p} {min(v):.2f}-{max(v):.2f}" for p, v in ratios.items())
    table_ = table(
        f"DATScore {label}: 8 directions, {n} segments ({n_systems} system{'s' if n_systems > 1 else ''} x {n_src} "
        f"sources, WMT21 de-en), random M2M-100 d_model 512, 6+6 layers, CPU {args.threads} thread"
        f"{'s' if args.threads > 1 else ''}",
        ["implementation", "translation s", "scoring s", "total s", "speed-up", "translation speed-up",
         "scoring speed-up", "peak RSS MiB", "peak above loaded model MiB"], rows,
        note=(f"{repeats} interleaved round{'s' if repeats > 1 else ''}; seconds are medians over rounds, speed-ups "
              f"the median of the within-round ratios (range over rounds: {spread}). Beam {args.beam}, max "
              f"{args.max_new_tokens} new tokens per translation, batch size {args.batch_size}. Same scores: max "
              f"|direction score difference| = {dir_diff:.2e}, max |DATScore difference| = {score_diff:.2e}; identical "
              f"translations: {same_translations}. {n_unique} distinct hypotheses among {n} segments. Asking the "
              f"cache for the same {2 * n} translations again took {fast['cached_translation_seconds']:.3f} s."))
    return {"table": table_, "speedup": median["total"], "translation_speedup": median["translate"],
            "scoring_speedup": median["score"], "ratios": ratios, "max_direction_diff": dir_diff,
            "max_score_diff": score_diff, "identical_translations": same_translations, "segments": n,
            "distinct_hypotheses": n_unique, "rounds": repeats, "signature": fast["signature"],
            "direction_weights": fast["weights"],
            "torch_threads": sorted({r[i]["torch_threads"] for r in rounds for i in (0, 1)})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", choices=("both", "multi", "single"), default="both")
    parser.add_argument("--repeats", type=int, default=None, help="rounds per case (default: multi 1, single 3)")
    parser.add_argument("--multi-sources", type=int, default=CASES["multi"][1],
                        help="sources of the multi-system case (8 systems each)")
    parser.add_argument("--max-words", type=int, default=10)
    parser.add_argument("--vocab", type=int, default=8000)
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)  # the children use this many; the results file reports it
    cases = ("multi", "single") if args.case == "both" else (args.case,)
    results = {}
    for case in cases:
        systems, sources, rounds = CASES[case]
        sources = args.multi_sources if case == "multi" else sources
        results[case] = run_case(CASE_LABELS[case], systems, sources,
                                 args.repeats or rounds, args)
    notes = [
        "Straightforward: translations for every segment (every system's copy of a source or reference "
        "translated again), each of the 8 directions scored with a full encoder+decoder forward, batches in "
        "corpus order (BARTScore-style).",
        "nlgmetrics: each unique source/reference translated once, in full generation batches sorted by length; "
        "each unique text encoded once (one encoder pass of a hypothesis for its four Hypo -> X directions), "
        "decoder batches bucketed by padded width (batch-independent scores); the encoder states made for "
        "generation (computed in the scoring layout) are kept and reused by the Src -> X and Ref -> X directions, "
        "so each source and reference is encoded once in all. Its translation time is measured "
        "by running the translation step that score() starts with on its own first; score() then finds the "
        "translations in its cache (the total is the same work as one score() call).",
        "Each implementation ran in a fresh spawned process; peak RSS is that process's own high-water mark (VmHWM). The machine's "
        "2 cores are shared with other jobs, so absolute seconds vary between runs and rounds; ratios are taken "
        f"within a round. {args.threads} torch thread(s) per process (torch_threads: measured in the children): "
        "on a loaded 2-core machine, "
        "2 OpenMP threads ran about 10x slower (spinning barriers).",
    ]
    extra: Dict[str, Any] = {case: {k: v for k, v in r.items() if k != "table"} for case, r in results.items()}
    tables = [r["table"] for r in results.values()]
    previous = RESULTS / "datscore_speed.json"
    if args.case != "both" and previous.exists():  # one case rerun: the other as it was, with its command
        old = json.loads(previous.read_text())
        other = "single" if args.case == "multi" else "multi"
        if other in old:
            kept = [t for t in old["tables"] if t["title"].startswith(f"DATScore {CASE_LABELS[other]}")]
            tables = kept + tables if other == "multi" else tables + kept
            extra[other] = {**old[other], "command": old[other].get("command", old.get("command")),
                            "created": old[other].get("created", old.get("created")),
                            "torch_threads": old[other].get("torch_threads", old["machine"]["torch_threads"])}
            notes.append(f"The {CASE_LABELS[other]} table is from an earlier run: `{extra[other]['command']}` "
                         f"({extra[other]['created']}); this run: the {CASE_LABELS[args.case]} case only.")
    for case in results:
        extra[case].update(command=" ".join(["datscore_speed.py"] + sys.argv[1:]),
                           created=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    write_results("datscore_speed", tables, notes, extra=extra)
    for case, r in results.items():
        if r["max_direction_diff"] > 1e-5 or r["max_score_diff"] > 1e-5:
            sys.exit(f"{case}: scores differ: {r['max_direction_diff']:.2e} / {r['max_score_diff']:.2e}")


if __name__ == "__main__":
    main()

"""GPU speed: DATScore against a straightforward loop, and the encoder metrics' BERTScore against
bert_score, side by side in one process, with random models of the real shapes; on CUDA when
present, else on the CPU with small sizes (a smoke run of the same code, not a GPU number).

DATScore: random M2M-100 (CUDA: the 418M shape, d_model 1024, 12 + 12 layers, 16 heads, FFN
4096, output vocabulary 128,112; CPU: d_model 256, 2 + 2 layers, a small vocabulary), WMT21
de-en, one system and several systems sharing sources. ``score()`` of a fresh scorer (its
translations included) against the straightforward loop of benchmarks/datscore_speed.py (every
text translated, every direction a full forward pass, corpus-order batches), same batch size,
beam and dtype; seconds, peak GPU memory (CUDA) and the largest direction-score difference.

BERTScore F1: ``core.embeddings.bertscore`` against ``bert_score.BERTScorer`` on the same local
checkpoint: the MiniLM shipped by the lite extra (all-MiniLM-L6-v2, last layer) and, on CUDA, a
random BERT-large shape (24 layers, d 1024) with MiniLM's vocabulary. Pairs per second with the
models loaded (each side warmed up first), largest F1 difference, and on CUDA the fp32 CUDA-CPU
difference.

``--dtype-study``: each direction score of a realistic-size random M2M-100 in bf16 / fp16
against fp32 (max and mean absolute deviation), to choose the CUDA default dtype.

    python benchmarks/gpu.py [--dtype-study] [--pairs N] [--segments N]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from common import table, write_results  # noqa: E402
from datscore_speed import SOURCE_LANG, TARGET_LANG, build_corpus, naive_direction, naive_translate  # noqa: E402

CUDA = torch.cuda.is_available()
DEVICE = "cuda" if CUDA else "cpu"


def sync() -> None:
    if CUDA:
        torch.cuda.synchronize()


def measured(fn: Callable[[], Any]) -> Tuple[Any, float, float]:
    """(result, seconds, peak GPU GiB above the memory in use before; 0 on CPU)."""
    if CUDA:
        sync()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
    start = time.perf_counter()
    out = fn()
    sync()
    seconds = time.perf_counter() - start
    peak = (torch.cuda.max_memory_allocated() - base) / 2**30 if CUDA else 0.0
    return out, seconds, peak


# -- models ---------------------------------------------------------------------------------
def m2m100(tmp: Path, full: bool, texts: List[str], init_std: float | None = None) -> str:
    from tiny_models import build_tiny_m2m100

    shape = dict(d_model=1024, layers=12, heads=16, ffn_dim=4096) if full else dict(d_model=256, layers=2, heads=4,
                                                                                     ffn_dim=1024)
    path = build_tiny_m2m100(tmp / f"m2m100-{'418M' if full else 'small'}", vocab_size=8000 if full else 2000,
                             max_position_embeddings=1024 if full else 256, texts=texts, init_std=init_std, seed=0,
                             **shape)  # type: ignore[arg-type]
    if full:  # the real output vocabulary (ids past the tokenizer's decode to <unk>)
        from transformers import AutoModelForSeq2SeqLM

        model = AutoModelForSeq2SeqLM.from_pretrained(path)
        model.resize_token_embeddings(128_112, mean_resizing=False)
        model.save_pretrained(path)
    return path


def bert_large(tmp: Path) -> str:
    from transformers import AutoTokenizer, BertConfig, BertModel

    from nlgmetrics.core.models import lite_encoder_path

    torch.manual_seed(0)
    path = tmp / "bert-large-random"
    BertModel(BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096),
              add_pooling_layer=False).save_pretrained(path)
    AutoTokenizer.from_pretrained(lite_encoder_path()).save_pretrained(path)
    return str(path)


# -- DATScore -------------------------------------------------------------------------------
def naive_datscore(model, tokenizer, corpus: Dict[str, Any], args: argparse.Namespace) -> Dict[str, List[float]]:
    from nlgmetrics.datscore import ALL_DIRECTIONS, augmentation_languages

    a, b = augmentation_languages(SOURCE_LANG, TARGET_LANG)
    trans1 = naive_translate(model, tokenizer, corpus["sources"], SOURCE_LANG, a, args.beam, args.max_new_tokens,
                             args.batch_size)
    trans2 = naive_translate(model, tokenizer, corpus["references"], TARGET_LANG, b, args.beam, args.max_new_tokens,
                             args.batch_size)
    texts = {"src": (corpus["sources"], SOURCE_LANG), "ref": (corpus["references"], TARGET_LANG),
             "hypo": (corpus["predictions"], TARGET_LANG), "trans1": (trans1, a), "trans2": (trans2, b)}
    return {name: naive_direction(model, tokenizer, *texts[name.split("->")[0]], *texts[name.split("->")[1]],
                                  "entropy", args.batch_size) for name in ALL_DIRECTIONS}


def datscore_case(model_dir: str, corpus: Dict[str, Any], dtype: str, args: argparse.Namespace) -> Dict[str, Any]:
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from nlgmetrics.core.models import DTYPES
    from nlgmetrics.datscore import DATScore

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSeq2SeqLM.from_pretrained(model_dir).to(DEVICE, DTYPES[dtype]).eval()
    options = dict(model=model_dir, source_lang=SOURCE_LANG, target_lang=TARGET_LANG, beam_size=args.beam,
                   max_new_tokens=args.max_new_tokens, batch_size=args.batch_size, device=DEVICE, dtype=dtype,
                   direction_weights="uniform", quiet=True)
    warm = {k: v[:2] for k, v in corpus.items()}
    naive_datscore(model, tokenizer, warm, args)
    DATScore(**options).score(warm["predictions"], warm["references"], warm["sources"])
    naive, naive_s, naive_gib = measured(lambda: naive_datscore(model, tokenizer, corpus, args))
    result, fast_s, fast_gib = measured(lambda: DATScore(**options).score(
        corpus["predictions"], corpus["references"], corpus["sources"]))
    ours = {d: [det["directions"][d] for det in result.details] for d in result.corpus["directions"]}
    diff = max(float(np.max(np.abs(np.array(ours[d]) - np.array(naive[d])))) for d in ours)
    return {"naive_seconds": naive_s, "seconds": fast_s, "speedup": naive_s / fast_s, "naive_peak_gib": naive_gib,
            "peak_gib": fast_gib, "max_direction_diff": diff, "segments": len(corpus["predictions"])}


# -- BERTScore ------------------------------------------------------------------------------
def bertscore_pairs(n: int) -> Tuple[List[str], List[str]]:
    """``n`` (system output, reference) pairs of WMT21 de-en, all systems, in file order."""
    from common import read_jsonl

    out = [(h["hyp"], r["ref"]) for r in read_jsonl("wmt21_da_seg_toen_grouped.jsonl.gz") if r["lp"] == "de-en"
           for name, h in sorted(r["hyps"].items()) if name != "HUMAN"][:n]
    return [c for c, _ in out], [r for _, r in out]


def bertscore_case(model_dir: str, layers: int, cands: List[str], refs: List[str], dtype: str,
                   batch_size: int) -> Dict[str, Any]:
    from bert_score import BERTScorer

    from nlgmetrics.core.embeddings import ContextualEncoder, bertscore

    theirs = BERTScorer(model_type=model_dir, num_layers=layers, batch_size=batch_size, device=DEVICE)
    if dtype != "fp32":
        theirs._model.to(dtype=torch.float16 if dtype == "fp16" else torch.bfloat16)

    def ours() -> List[float]:  # a fresh encoder: nothing cached between runs (the model is shared)
        encoder = ContextualEncoder(model_dir, device=DEVICE, dtype=dtype, batch_size=batch_size, quiet=True)
        return bertscore(cands, refs, encoder)["f1"]

    theirs.score(cands[:64], refs[:64])
    ours()
    (_, _, f_theirs), their_s, _ = measured(lambda: theirs.score(cands, refs))
    f_ours, our_s, _ = measured(ours)
    out = {"pairs": len(cands), "bert_score_pairs_per_s": len(cands) / their_s, "pairs_per_s": len(cands) / our_s,
           "ratio": their_s / our_s, "max_f1_diff_vs_bert_score": float(np.max(np.abs(np.array(f_ours) -
                                                                                         f_theirs.numpy())))}
    if CUDA and dtype == "fp32":
        cpu = ContextualEncoder(model_dir, device="cpu", batch_size=batch_size, quiet=True)
        n = min(500, len(cands))
        out["max_f1_diff_cuda_vs_cpu"] = float(np.max(np.abs(np.array(bertscore(cands[:n], refs[:n], cpu)["f1"])
                                                             - np.array(f_ours[:n]))))
    return out


# -- dtype study ----------------------------------------------------------------------------
def dtype_study(model_dir: str, corpus: Dict[str, Any], n: int) -> Dict[str, Dict[str, float]]:
    """Direction scores (ref->hypo, hypo->ref, src->hypo; entropy weights) of ``n`` segments
    in each dtype against fp32."""
    from nlgmetrics.datscore.seq2seq import Seq2SeqLM

    def scores(dtype: str) -> np.ndarray:
        lm = Seq2SeqLM(model_dir, device=DEVICE, dtype=dtype, batch_size=16, quiet=True)
        hyp, ref = lm.sequences(corpus["predictions"][:n], "en"), lm.sequences(corpus["references"][:n], "en")
        src = lm.sequences(corpus["sources"][:n], "de")
        pairs = list(zip(ref, hyp)) + list(zip(hyp, ref)) + list(zip(src, hyp))
        return np.array([s.mean("entropy") for s in lm.score_pairs(pairs)])

    base = scores("fp32")
    out = {}
    for dtype in ("bf16", "fp16") if CUDA else ("bf16",):
        dev = np.abs(scores(dtype) - base)
        out[dtype] = {"max_abs": float(dev.max()), "mean_abs": float(dev.mean()),
                      "fp32_score_spread": float(base.std())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=256 if CUDA else 16, help="single-system segments")
    parser.add_argument("--systems", type=int, default=8 if CUDA else 4)
    parser.add_argument("--multi-sources", type=int, default=64 if CUDA else 6)
    parser.add_argument("--pairs", type=int, default=6000 if CUDA else 400, help="BERTScore pairs")
    parser.add_argument("--batch-size", type=int, default=32 if CUDA else 8)
    parser.add_argument("--beam", type=int, default=5 if CUDA else 2)
    parser.add_argument("--max-new-tokens", type=int, default=48 if CUDA else 8)
    parser.add_argument("--dtype", default="bf16" if CUDA else "fp32", help="DATScore dtype of the speed cases")
    parser.add_argument("--dtype-study", action="store_true", help="also the bf16/fp16 deviation from fp32")
    args = parser.parse_args()
    torch.manual_seed(0)
    from nlgmetrics.core.models import lite_encoder_path

    tables, extra = [], {"device": torch.cuda.get_device_name() if CUDA else "cpu", "full_shapes": CUDA}
    single = build_corpus(1, args.segments, 30)
    multi = build_corpus(args.systems, args.multi_sources, 30)
    with tempfile.TemporaryDirectory() as tmp:
        m2m = m2m100(Path(tmp), CUDA, single.pop("vocab_texts"))
        multi.pop("vocab_texts")
        extra["datscore"] = {"single": datscore_case(m2m, single, args.dtype, args),
                             "multi": datscore_case(m2m, multi, args.dtype, args)}
        rows = [[case, r["segments"], round(r["naive_seconds"], 2), round(r["seconds"], 2), round(r["speedup"], 2),
                 round(r["naive_peak_gib"], 2), round(r["peak_gib"], 2), f"{r['max_direction_diff']:.1e}"]
                for case, r in extra["datscore"].items()]
        tables.append(table(f"DATScore score() against the straightforward loop, {extra['device']}, "
                            f"{'M2M-100-418M shape' if CUDA else 'small random M2M-100 (CPU smoke sizes)'}, "
                            f"{args.dtype}, beam {args.beam}, <= {args.max_new_tokens} new tokens, batch "
                            f"{args.batch_size}",
                            ["case", "segments", "loop s", "nlgmetrics s", "speed-up", "loop peak GiB",
                             "nlgmetrics peak GiB", "max |direction diff|"], rows))
        if args.dtype_study:
            study_model = m2m100(Path(tmp) / "study", CUDA, multi["references"] + multi["sources"], init_std=0.02)
            extra["dtype_study"] = dtype_study(study_model, single, min(64, args.segments))
            tables.append(table("DATScore direction scores against fp32 (random weights, init std 0.02)",
                                ["dtype", "max |diff|", "mean |diff|", "fp32 score std"],
                                [[k, f"{v['max_abs']:.2e}", f"{v['mean_abs']:.2e}", round(v["fp32_score_spread"], 3)]
                                 for k, v in extra["dtype_study"].items()]))
        cands, refs = bertscore_pairs(args.pairs)
        encoders = [("MiniLM-L6", lite_encoder_path(), 6)] + ([("BERT-large shape", bert_large(Path(tmp)), 24)]
                                                               if CUDA else [])
        extra["bertscore"] = {}
        for label, path, layers in encoders:
            for dtype in ("fp32", "fp16") if CUDA else ("fp32",):
                extra["bertscore"][f"{label} {dtype}"] = bertscore_case(path, layers, cands, refs, dtype, 64)
        tables.append(table(f"BERTScore F1, {extra['device']}, {args.pairs} WMT21 de-en pairs, batch 64",
                            ["model", "bert_score pairs/s", "nlgmetrics pairs/s", "ratio", "max |F1 diff|"],
                            [[k, round(v["bert_score_pairs_per_s"]), round(v["pairs_per_s"]), round(v["ratio"], 2),
                              f"{v['max_f1_diff_vs_bert_score']:.1e}"] for k, v in extra["bertscore"].items()]))
    notes = ["One process; each side warmed up on a small input first; DATScore's scorer is new for the timed "
             "call (its translations are part of score()). Random weights: translations are random token strings "
             "capped at --max-new-tokens.",
             "F1 against bert_score differs by definition, not rounding: bert_score keeps [CLS] and [SEP] in the "
             "similarity matrix (zero weight, but matchable by the other side's tokens) and multiplies padding by 0; "
             "nlgmetrics drops the special tokens (the unknown token kept). On CPU nlgmetrics pads every batch to a "
             "fixed shape (batch-independent vectors), which costs most on small corpora.",
             "No GPU was available when this file was written: the committed result is the CPU smoke run (small "
             "models, small sizes); the GPU targets of issue 33 are unmeasured. Rerun on a CUDA machine: "
             "python benchmarks/gpu.py --dtype-study" if not CUDA else "CUDA run."]
    write_results("gpu", tables, notes, extra=extra)


if __name__ == "__main__":
    main()

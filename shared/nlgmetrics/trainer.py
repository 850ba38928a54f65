"""``compute_metrics`` for ``transformers.Seq2SeqTrainer`` (with ``predict_with_generate``)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy as np


def _decode(tokenizer: Any, ids: Any) -> List[str]:
    if isinstance(ids, tuple):  # (generated ids, ...) from some models
        ids = ids[0]
    arr = np.asarray(ids)
    if arr.ndim == 3:  # logits: greedy ids
        arr = arr.argmax(-1)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    arr = np.where(arr < 0, pad, arr)  # -100 label padding and negative fill values
    # multilingual tokenizers (M2M-100, NLLB, mBART) may not mark language codes as special
    lang_ids = set(getattr(tokenizer, "lang_code_to_id", {}).values())
    rows = [[t for t in row if t not in lang_ids] for row in arr.tolist()]
    return [t.strip() for t in tokenizer.batch_decode(rows, skip_special_tokens=True)]


def compute_metrics_fn(metric: Any, tokenizer: Any, sources: Optional[List[str]] = None,
                       prefix: Optional[str] = None, **options: Any) -> Callable[[Any], Dict[str, float]]:
    """Build ``compute_metrics(eval_pred) -> {name: float}``.

    ``metric`` is a metric name (``"sam"``), a core scorer, or an ``evaluate`` module loaded from
    ``nlgmetrics.metric_path``. Predictions and labels are decoded (``-100`` replaced by the
    pad id); ``sources`` are the evaluation set's sources, in order, for metrics that use them.
    The returned dict holds one plain float, the corpus score, under ``prefix`` (default: the
    metric's name); the Trainer logs it as ``eval_<prefix>``.
    """
    import nlgmetrics

    if isinstance(metric, str):
        name = metric
        scorer = nlgmetrics.load(metric, **options)
        options = {}
    else:
        scorer = metric
        name = getattr(metric, "name", None) or type(metric).__name__.lower()
    key = prefix or name

    def compute_metrics(eval_pred: Any) -> Dict[str, float]:
        predictions, labels = eval_pred[0], eval_pred[1]
        hyps, refs = _decode(tokenizer, predictions), _decode(tokenizer, labels)
        srcs = None
        if sources is not None:
            if len(sources) != len(hyps):
                raise ValueError(f"sources has {len(sources)} items but the evaluation produced {len(hyps)} predictions")
            srcs = list(sources)
        if hasattr(scorer, "score"):
            result = scorer.score(hyps, refs, srcs)
            return {key: float(result.score)}
        kwargs = {"predictions": hyps, "references": refs, **options}
        if srcs is not None:
            kwargs["sources"] = srcs
        return {key: float(scorer.compute(**kwargs)["score"])}

    return compute_metrics

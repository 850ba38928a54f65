"""``compute_metrics`` for ``transformers.Seq2SeqTrainer`` (with ``predict_with_generate``).

What the hook accepts, and the error for anything else (before any tokenizer sees it):
token ids as a 2-D integer array (batch, length), or 3-D logits (batch, length, vocab) whose
argmax is taken; a tuple's first element. Ids and logits are treated alike, so logits and their
argmax (``preprocess_logits_for_metrics``) decode to the same texts: rows the Trainer filled
with ``-100`` when it padded the batches to one length (negative ids; for logits any constant
row) are no predictions, and a prediction ends at its first end-of-sequence token (everything
after it is dropped; an end-of-sequence token in the first position does not count, as BART,
mBART and M2M-100 start generation with it). Positions are masked by the labels only on request
(``align_labels``: ``"seq2seq"``, logit *t* predicts label *t*; ``"causal"``, logit *t* predicts
label *t + 1*, a causal LM whose labels are its inputs with the prompt set to ``-100``); by
default nothing is masked, so a causal LM's teacher-forced predictions include the prompt.
Negative ids (``-100`` label padding, fill values)
are dropped before decoding (not replaced by the pad id: a tokenizer without one would have
read them as id 0, a real token in many vocabularies). An empty evaluation set, 1-D ids, float (or other non-integer) ids, ragged
rows and ids outside the tokenizer's vocabulary are refused with a ``ValueError``.

``batch_eval_metrics=True`` (one call per batch, torch tensors): the batches are decoded as
they come and scored together after the last one; what was kept is forgotten after the last
batch, on an error, and at the first batch of a new evaluation (the Trainer's evaluation loop
says which batch it is), so an evaluation interrupted half-way does not leak into the next.
Limit: on several processes (multi-GPU) the Trainer gathers the predictions and labels of all
processes but passes only the local batch as inputs, so ``sources="inputs"`` cannot be used
with ``batch_eval_metrics=True`` there (a ``ValueError`` says so); a sources list works (its
check against the inputs is skipped). ``eval_do_concat_batches=False`` (lists of per-batch
arrays): each batch is decoded on its own; an error names the batch.
"""
from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np


def _vocab_size(tokenizer: Any) -> int | None:
    """Number of ids the tokenizer can decode (added tokens included), when it says."""
    sizes = []
    try:
        sizes.append(len(tokenizer))
    except TypeError:
        pass
    if isinstance(getattr(tokenizer, "vocab_size", None), int):
        sizes.append(tokenizer.vocab_size)
    return max(sizes) if sizes else None


def _token_ids(ids: Any, field: str, tokenizer: Any, extra_ids: Sequence[int] = ()) -> np.ndarray:
    """``ids`` as a checked 2-D integer array (negative ids kept: the caller drops them), or
    ``ValueError`` saying what was wrong (``extra_ids``: ids beyond the vocabulary the caller
    handles itself, e.g. language codes)."""
    if isinstance(ids, tuple):  # (generated ids, ...) from some models
        if not ids:
            raise ValueError(f"{field} is an empty tuple; expected token ids")
        ids = ids[0]
    if ids is None:
        raise ValueError(f"{field} is None: the evaluation produced no {field}")
    ids = _to_numpy(ids)
    try:
        arr = np.asarray(ids)
    except ValueError as err:  # ragged nested lists
        raise ValueError(f"{field} must be a rectangular array of token ids (pad the rows): {err}") from None
    if arr.dtype == object:
        raise ValueError(f"{field} must be a rectangular array of token ids (pad the rows), got rows of different lengths or types")
    if arr.ndim >= 1 and arr.shape[0] == 0:
        raise ValueError(f"{field} is empty: the evaluation set has no examples, so there is nothing to score")
    if arr.ndim == 3:  # logits: greedy ids
        if not np.issubdtype(arr.dtype, np.floating):
            raise ValueError(f"{field} has 3 dimensions but is not float logits (dtype {arr.dtype})")
        padding = arr.max(-1) == arr.min(-1)  # the Trainer's -100 fill between batches: no prediction
        arr = np.where(padding, -1, arr.argmax(-1))
    if arr.ndim != 2:
        raise ValueError(f"{field} must be token ids of shape (batch, length) or logits of shape "
                         f"(batch, length, vocab); got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool:
        raise ValueError(f"{field} must hold integer token ids, got dtype {arr.dtype} (use "
                         "predict_with_generate=True, or pass logits of shape (batch, length, vocab))")
    size = _vocab_size(tokenizer)
    bad = (arr >= size) & ~np.isin(arr, list(extra_ids)) if size is not None else None
    if bad is not None and bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(f"{field}[{row}][{col}] is token id {int(arr[row, col])}, outside the tokenizer's "
                         f"vocabulary of {size} ids (a tokenizer that does not match the model?)")
    return arr


def _trainer_step() -> int | None:
    """The batch number of the ``Trainer.evaluation_loop`` that called the hook (its local
    ``step``; 0 starts a new evaluation), or ``None`` when the caller is something else."""
    try:
        frame = sys._getframe(2)  # 0: here, 1: compute_metrics, 2: its caller
    except ValueError:
        return None
    if frame.f_code.co_name != "evaluation_loop":
        return None
    step = frame.f_locals.get("step")
    return step if isinstance(step, int) else None


def _to_numpy(ids: Any) -> Any:
    """A torch tensor (``batch_eval_metrics`` passes them, possibly on the GPU, possibly in
    bfloat16) as a NumPy array; anything else unchanged."""
    if hasattr(ids, "detach"):
        tensor = ids.detach().cpu()
        return (tensor.float() if tensor.is_floating_point() else tensor).numpy()
    return ids


def _batches(ids: Any) -> list[Any] | None:
    """With ``eval_do_concat_batches=False`` the Trainer passes a list of per-batch arrays (of
    different widths): that list (a tuple's first element per batch), else ``None``."""
    if not isinstance(ids, list) or not ids:
        return None
    items = [b[0] if isinstance(b, tuple) and b else b for b in ids]
    return items if all(getattr(b, "ndim", 0) >= 2 for b in items) else None


ALIGN_LABELS = (None, "seq2seq", "causal")


def _label_mask(arr: np.ndarray, labels: np.ndarray, align: str) -> np.ndarray:
    """``arr`` with the positions that predict no label (``-100``) set to ``-1``: ``align``
    ``"seq2seq"`` pairs position *t* with label *t*, ``"causal"`` with label *t + 1*."""
    if labels.shape != arr.shape:
        raise ValueError(f"align_labels={align!r} needs predictions of the labels' (batch, length) shape "
                         f"{labels.shape}, got {arr.shape} (teacher-forced logits or their argmax, not generated ids)")
    keep = labels >= 0
    if align == "causal":  # logit t predicts token t + 1; the last one predicts nothing labelled
        keep = np.concatenate([keep[:, 1:], np.zeros_like(keep[:, :1])], axis=1)
    return np.where(keep, arr, -1)


def _lang_ids(tokenizer: Any) -> set[int]:
    """Language-code ids: multilingual tokenizers (M2M-100, NLLB, mBART) may not mark them as
    special (and may number them beyond ``len(tokenizer)``)."""
    return set(getattr(tokenizer, "lang_code_to_id", {}).values())


def _decode(tokenizer: Any, ids: Any, field: str = "predictions", labels: np.ndarray | None = None,
            align: str | None = None, cut_eos: bool = True) -> list[str]:
    """Decoded texts of ``ids`` (see the module docstring); ``labels``, the checked label ids,
    mask the positions as ``align`` says; ``cut_eos``: a row ends at its first end-of-sequence
    token (predictions; not labels or inputs)."""
    lang_ids = _lang_ids(tokenizer)
    arr = _token_ids(ids, field, tokenizer, sorted(lang_ids))
    if align is not None and labels is not None:
        arr = _label_mask(arr, labels, align)
    eos = getattr(tokenizer, "eos_token_id", None)
    if cut_eos and isinstance(eos, int):
        arr = arr.copy()
        for row in arr:
            hits = np.flatnonzero(row[1:] == eos)  # a first-position EOS is a decoder start token
            if hits.size:
                row[hits[0] + 2:] = -1  # greedy decoding stops at the end of sequence
    # negative ids (-100 label padding, fill values) are no tokens: dropped
    rows = [[t for t in row if t >= 0 and t not in lang_ids] for row in arr.tolist()]
    return [t.strip() for t in tokenizer.batch_decode(rows, skip_special_tokens=True)]


def _check_module_options(module: Any, options: dict[str, Any]) -> None:
    """Options for an nlgmetrics ``evaluate`` module (or each one of an ``evaluate.combine``)
    checked against its configuration now (as its ``compute`` will), not at the first
    evaluation hours into training."""
    for one in getattr(module, "evaluation_modules", None) or [module]:
        if getattr(one, "preset", None) is None or not hasattr(one, "checked_config"):
            continue  # not one of ours: evaluate checks at compute
        one.checked_config({k: v for k, v in options.items() if k != "sources"})


def _combined_scores(combined: Any, kwargs: dict[str, Any]) -> dict[str, float]:
    """An ``evaluate.combine``, each module computed with the same arguments (as the combine
    does; its merged keys are ambiguous): a module of ours gives its corpus score under its name
    in the combine (its metric's name; ``<name>_0``, ``<name>_1`` for a name given twice),
    another module its numeric results under their own keys (``<name>_<key>`` where a key is
    taken); results that are no numbers (lists, strings) are left out."""
    modules = list(combined.evaluation_modules)
    names = list(getattr(combined, "evaluation_module_names", None) or [m.name for m in modules])
    labels, counts = [], {n: 0 for n in names if names.count(n) > 1}
    for name in names:
        if name in counts:
            labels.append(f"{name}_{counts[name]}")
            counts[name] += 1
        else:
            labels.append(name)
    result: dict[str, float] = {}
    others: list[tuple[str, dict[str, Any]]] = []
    for label, module in zip(labels, modules):
        out = module.compute(**kwargs) or {}
        if getattr(module, "metric_name", None):  # one of ours
            result[label] = float(out["score"])
        else:
            others.append((label, out))
    for label, out in others:
        for k, v in out.items():
            if isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)):
                result[f"{label}_{k}" if k in result or k in labels else k] = float(v)
    return result


def compute_metrics_fn(metric: Any, tokenizer: Any, sources: list[str] | str | None = None,
                       prefix: str | None = None, align_labels: str | None = None,
                       **options: Any) -> Callable[[Any], dict[str, float]]:
    """Build ``compute_metrics(eval_pred) -> {name: float}``.

    ``metric`` is a metric name (``"sam"``), a core scorer, or an ``evaluate`` module loaded from
    ``nlgmetrics.metric_path``; ``options`` configure a name (passed to ``nlgmetrics.load``) or
    an ``evaluate`` module (passed to ``compute``, and checked against its configuration here,
    when the hook is built), and are refused with a core scorer, which is already configured.
    Predictions and labels are decoded (negative ids such as ``-100`` dropped). ``sources``, for
    metrics that use them: ``"inputs"`` decodes them from the evaluation's inputs (training
    argument ``include_for_metrics=["inputs"]``), so they always belong to the set evaluated; or
    the evaluation set's sources as a list, in order, whose length must match the predictions
    (else ``ValueError``) and which is compared with the decoded inputs when the Trainer passes
    them: a source that neither contains its input nor is contained in it (a list for another
    dataset, e.g. after ``trainer.predict(other)``) gives a warning, once. ``"inputs"`` passes
    the inputs as the model saw them to the metric, a task prefix (T5's ``"translate English to
    German: "``) or truncation included; give the list to score the raw sources. With
    ``batch_eval_metrics=True`` on several processes ``"inputs"`` is refused (the Trainer passes
    only the local batch as inputs but the predictions of all processes): give the list.
    The returned dict holds one plain float, the corpus score, under ``prefix`` (default: the
    metric's name, e.g. ``rome`` for an ``evaluate`` module too); the Trainer logs it as
    ``eval_<prefix>``. With ``evaluate.combine`` (of one module or several), each module of ours
    gives its score under its name (``rome``; ``<prefix>_<name>`` with a prefix), and another
    module its numeric results under their own keys (``<name>_<key>`` where a key is taken;
    lists and strings are not logged). Every module gets the same arguments, as with the
    combine itself.

    ``align_labels`` (teacher-forced logits, or their argmax, without ``predict_with_generate``):
    ``None`` (default) masks nothing; ``"seq2seq"`` keeps the predictions at positions whose
    label is not ``-100``; ``"causal"`` keeps those whose *next* label is not ``-100`` (a causal
    LM's labels are its inputs with the prompt set to ``-100``, and logit *t* predicts token
    *t + 1*), so only the answer is scored.
    """
    import nlgmetrics

    if align_labels not in ALIGN_LABELS:
        raise ValueError(f"align_labels must be None, 'seq2seq' or 'causal', got {align_labels!r}")

    if isinstance(metric, str):
        name = metric
        scorer: Any = nlgmetrics.load(metric, **options)
        options = {}
    else:
        scorer = metric
        name = getattr(metric, "name", None) or type(metric).__name__.lower()
        if options and hasattr(scorer, "score"):
            raise ValueError(f"options {sorted(options)} cannot change an already built scorer; pass them to "
                             f"nlgmetrics.load({name!r}, ...) or pass the metric's name with them")
        if options:
            _check_module_options(scorer, options)
    key = prefix or name

    def decode_batch(predictions: Any, labels: Any) -> tuple[list[str], list[str]]:
        label_ids = None
        if align_labels is not None:  # the labels mask the positions that predict nothing
            label_ids = _token_ids(labels, "labels", tokenizer, sorted(_lang_ids(tokenizer)))
        hyps = _decode(tokenizer, predictions, "predictions", label_ids, align_labels)
        refs = _decode(tokenizer, labels, "labels", cut_eos=False)
        if len(hyps) != len(refs):
            raise ValueError(f"the evaluation produced {len(hyps)} predictions but {len(refs)} labels")
        return hyps, refs

    def decode(predictions: Any, labels: Any) -> tuple[list[str], list[str]]:
        pred_batches, label_batches = _batches(predictions), _batches(labels)
        if pred_batches is None and label_batches is None:
            return decode_batch(predictions, labels)
        if pred_batches is None or label_batches is None or len(pred_batches) != len(label_batches):
            raise ValueError("with eval_do_concat_batches=False the predictions and the labels must both be lists of "
                             f"per-batch arrays, one per batch; got {type(predictions).__name__} and {type(labels).__name__}"
                             + (f" of {len(pred_batches)} and {len(label_batches)} batches"
                                if pred_batches is not None and label_batches is not None else ""))
        hyps, refs = [], []
        for i, (p, t) in enumerate(zip(pred_batches, label_batches)):
            try:
                h, r = decode_batch(p, t)
            except ValueError as err:
                raise ValueError(f"evaluation batch {i} (eval_do_concat_batches=False): {err}") from None
            hyps += h
            refs += r
        return hyps, refs

    def decode_inputs(inputs: Any) -> list[str]:
        if isinstance(inputs, Mapping):  # batch_eval_metrics passes the batch itself
            if "input_ids" not in inputs:
                raise ValueError(f"the evaluation's inputs have no input_ids (keys: {', '.join(inputs)})")
            inputs = inputs["input_ids"]
        batches = _batches(inputs)
        if batches is None:
            return _decode(tokenizer, inputs, "inputs", cut_eos=False)
        return [text for batch in batches for text in _decode(tokenizer, batch, "inputs", cut_eos=False)]

    def decode_all(eval_pred: Any) -> tuple[list[str], list[str], list[str] | None]:
        hyps, refs = decode(eval_pred[0], eval_pred[1])
        inputs = getattr(eval_pred, "inputs", None) if sources is not None else None
        if inputs is None and from_inputs:
            raise ValueError("sources='inputs' needs the evaluation's inputs: set include_for_metrics=['inputs'] "
                             "in the training arguments")
        srcs = None if inputs is None else decode_inputs(inputs)
        if srcs is not None and len(srcs) != len(hyps):
            if not from_inputs:  # a fixed list: its check needs inputs paired with the predictions
                return hyps, refs, None
            hint = (": with batch_eval_metrics=True on several processes (multi-GPU, multi-process) the Trainer "
                    "gathers the predictions and labels of all processes but passes only this process's batch as "
                    "inputs, so sources='inputs' cannot work there; pass the sources as a list, or evaluate with "
                    "batch_eval_metrics=False or on one process" if isinstance(inputs, Mapping) else "")
            raise ValueError(f"the evaluation produced {len(srcs)} inputs but {len(hyps)} predictions{hint}")
        return hyps, refs, srcs

    from_inputs = isinstance(sources, str)
    if from_inputs and sources != "inputs":
        raise ValueError(f"sources must be a list of texts or 'inputs' (decoded from the evaluation's inputs), got {sources!r}")
    fixed = None if sources is None or from_inputs else list(sources)
    roundtrip: list[str] = []  # the fixed sources as the tokenizer gives them back, once
    warned: list[bool] = []

    def check_fixed(inputs: list[str]) -> None:
        """A fixed sources list against the decoded inputs of the same evaluation: each source,
        encoded and decoded, should contain its input or be contained in it (truncation keeps
        a part, a task prefix adds one); if not, a warning, once (preprocessing the hook cannot
        see, or a list for another dataset)."""
        assert fixed is not None
        if warned:
            return
        if not roundtrip:
            ids = tokenizer(fixed, add_special_tokens=True)["input_ids"]
            roundtrip.extend(t.strip() for t in tokenizer.batch_decode(ids, skip_special_tokens=True))
        for i, (given, seen) in enumerate(zip(roundtrip, inputs)):
            if given not in seen and seen not in given:
                warned.append(True)
                warnings.warn(f"sources[{i}] ({fixed[i][:60]!r}) is not found in the evaluation's input {i} "
                              f"({seen[:60]!r}) nor the input in it: if the sources list belongs to another dataset "
                              "(trainer.predict(other)?) the scores pair the wrong sources; build the hook with "
                              "sources='inputs' to take the sources from the inputs (this warning is given once)",
                              stacklevel=4)
                return

    gathered: tuple[list[str], list[str], list[str]] = ([], [], [])  # batch_eval_metrics: the batches so far

    def forget() -> None:
        for texts in gathered:
            texts.clear()

    def compute_metrics(eval_pred: Any, compute_result: bool | None = None) -> dict[str, float]:
        """``compute_result`` (``batch_eval_metrics=True``): the Trainer calls once per batch;
        the batches are decoded and kept, and scored together when it is ``True``. What was kept
        is forgotten after the last batch, on any error, and when the Trainer's evaluation loop
        starts a new evaluation (its first batch), so an interrupted evaluation never leaks into
        the next."""
        if compute_result is None:
            return score(*decode_all(eval_pred))
        if _trainer_step() == 0:
            forget()
        try:
            hyps, refs, srcs = decode_all(eval_pred)
        except BaseException:
            forget()
            raise
        gathered[0].extend(hyps)
        gathered[1].extend(refs)
        if srcs is not None:
            gathered[2].extend(srcs)
        if not compute_result:
            return {}
        try:
            hyps, refs, inputs = list(gathered[0]), list(gathered[1]), list(gathered[2])
            if not hyps:
                raise ValueError("predictions is empty: the evaluation set has no examples, so there is nothing to score")
            return score(hyps, refs, inputs if len(inputs) == len(hyps) else None)
        finally:
            forget()

    def score(hyps: list[str], refs: list[str], inputs: list[str] | None) -> dict[str, float]:
        srcs = inputs if from_inputs else None
        if fixed is not None:
            if len(fixed) != len(hyps):
                raise ValueError(f"sources has {len(fixed)} items but the evaluation produced {len(hyps)} predictions")
            if inputs is not None:
                check_fixed(inputs)
            srcs = fixed
        if hasattr(scorer, "score"):
            result = scorer.score(hyps, refs, srcs)
            return {key: float(result.score)}
        kwargs = {"predictions": hyps, "references": refs, **options}
        if srcs is not None:
            kwargs["sources"] = srcs
        if getattr(scorer, "evaluation_modules", None) is not None:  # evaluate.combine
            return {f"{prefix}_{k}" if prefix else k: v for k, v in _combined_scores(scorer, kwargs).items()}
        out = scorer.compute(**kwargs)  # an evaluate module
        if "score" not in out:
            raise ValueError(f"the evaluate module returned no 'score' (keys: {', '.join(out)})")
        return {key: float(out["score"])}

    return compute_metrics

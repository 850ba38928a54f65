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
batch, on an error, and at the first batch of a new evaluation (a new pass over the evaluation
data loader, as accelerate's ``GradientState``, the source of the Trainer's ``compute_result``,
reports it), so an evaluation interrupted half-way does not leak into the next.
Limit: on several processes (multi-GPU) the Trainer gathers the predictions and labels of all
processes but passes only the local batch as inputs, so ``sources="inputs"`` cannot be used
with ``batch_eval_metrics=True`` there (a ``ValueError`` says so); a sources list works (its
check against the inputs is skipped). ``eval_do_concat_batches=False`` (lists of per-batch
arrays): each batch is decoded on its own; an error names the batch.

An evaluation with nothing to score is logged as NaN under each key, with a warning, never as
a score: every label ``-100`` (no reference: every text would be compared with an empty one
and score the floor, 0.0) or logits holding NaN or +inf (a diverged model: no prediction). A
metric's own NaN score passes through as NaN.
"""
from __future__ import annotations

import sys
import warnings
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from nlgmetrics.core.inputs import validate_texts
from nlgmetrics.integrations.decoding import ALIGN_LABELS, Unscorable, batches, decode, lang_ids, token_ids


def _evaluation_pass() -> tuple[Any, int] | None:
    """Which pass over an evaluation data loader is running, as accelerate's ``GradientState``
    (the source of the Trainer's ``compute_result``) tells it: the loader being iterated (a weak
    reference) and how many loader passes are open; ``None`` outside accelerate. A new
    evaluation is a new pass: a new loader, or one more open pass when an interrupted one never
    closed (a persistent loader)."""
    state = sys.modules.get("accelerate.state")
    gradient_state = getattr(state, "GradientState", None)
    if gradient_state is None or not getattr(gradient_state, "_shared_state", None):
        return None  # accelerate not in use: no Trainer loop (calls made directly)
    loaders = gradient_state().dataloader_references
    active = loaders[-1] if loaders else None
    return (weakref.ref(active) if active is not None else None, len(loaders))


def _ours(module: Any) -> bool:
    """Whether ``module`` is an nlgmetrics ``evaluate`` module (it resolves calls itself)."""
    return getattr(module, "preset", None) is not None and hasattr(module, "checked_call")


def _check_module_options(module: Any, options: dict[str, Any]) -> None:
    """Options for each module of ours (an ``evaluate.combine``'s too) checked now, as its
    ``compute`` will, not hours into training; evaluate checks another module's at compute."""
    for one in getattr(module, "evaluation_modules", None) or [module]:
        if _ours(one):
            one.checked_call({k: v for k, v in options.items() if k != "sources"})


def _module_call(module: Any, options: dict[str, Any]) -> Any:
    """The call of a module of ours with ``options``, resolved once (``checked_call``), for its
    ``compute(call=...)``; ``None`` for another module, an ``evaluate.combine`` or a scorer."""
    return module.checked_call(options)[0] if _ours(module) else None


def _combined_labels(combined: Any) -> list[str]:
    """Each module's name in an ``evaluate.combine`` (``<name>_0``, ``<name>_1`` for a name given twice)."""
    modules = list(combined.evaluation_modules)
    names = list(getattr(combined, "evaluation_module_names", None) or [m.name for m in modules])
    labels, counts = [], {n: 0 for n in names if names.count(n) > 1}
    for name in names:
        if name in counts:
            labels.append(f"{name}_{counts[name]}")
            counts[name] += 1
        else:
            labels.append(name)
    return labels


def _combined_scores(combined: Any, kwargs: dict[str, Any]) -> dict[str, float]:
    """An ``evaluate.combine``, each module computed with the same arguments (as the combine
    does; its merged keys are ambiguous): a module of ours gives its corpus score under its name
    in the combine (its metric's name; ``<name>_0``, ``<name>_1`` for a name given twice),
    another module its numeric results under their own keys (``<name>_<key>`` where a key is
    taken); results that are no numbers (lists, strings) are left out."""
    modules, labels = list(combined.evaluation_modules), _combined_labels(combined)
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


class MetricsHook:
    """``compute_metrics(eval_pred, compute_result=None) -> {name: float}`` for the Trainer.

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

    Every label ``-100``, or logits holding NaN or +inf: a warning, and NaN under each key.
    """

    def __init__(self, metric: Any, tokenizer: Any, sources: list[str] | str | None = None,
                 prefix: str | None = None, align_labels: str | None = None, **options: Any) -> None:
        from nlgmetrics import registry

        if align_labels not in ALIGN_LABELS:
            raise ValueError(f"align_labels must be None, 'seq2seq' or 'causal', got {align_labels!r}")
        if isinstance(sources, str) and sources != "inputs":
            raise ValueError(f"sources must be a list of texts or 'inputs' (decoded from the evaluation's inputs), "
                             f"got {sources!r}")
        # a list of sources goes through the input step, before anything loads (a set is refused)
        fixed = None if sources is None or isinstance(sources, str) else validate_texts(sources, "sources")
        self.extras: dict[str, Any] = {}
        #: the call of one evaluate module of ours, resolved here and passed to each compute
        self.call: Any = None
        if isinstance(metric, str):  # one call, resolved once (a per-segment input given is kept for each scoring)
            call = registry.resolve(metric, options)
            scorer: Any = registry.load_call(call)
            name, options, self.extras = metric, {}, dict(call.extras)
        else:
            scorer, name = metric, getattr(metric, "name", None) or type(metric).__name__.lower()
            if options and hasattr(scorer, "score"):
                raise ValueError(f"options {sorted(options)} cannot change an already built scorer; pass them to "
                                 f"registry.load({name!r}, ...) or pass the metric's name with them")
            self.call = _module_call(scorer, options)  # one module of ours: its call, resolved once
            if options and self.call is None:
                _check_module_options(scorer, options)
        self.scorer, self.tokenizer, self.options = scorer, tokenizer, options
        self.prefix, self.key, self.align_labels = prefix, prefix or name, align_labels
        self.from_inputs = isinstance(sources, str)
        self.fixed = None if sources is None or self.from_inputs else fixed
        self._roundtrip: list[str] = []  # the fixed sources as the tokenizer gives them back, once
        self._warned = False
        #: batch_eval_metrics: the texts of the batches so far, and the loader pass they belong to
        self._gathered: tuple[list[str], list[str], list[str]] = ([], [], [])
        self._pass: tuple[Any, int] | None = None
        #: of the evaluation so far: label positions that are not -100, and why it cannot be scored
        self._labelled, self._unscorable = 0, ""

    # -- the Trainer's call -------------------------------------------------------------------
    def __call__(self, eval_pred: Any, compute_result: bool | None = None) -> dict[str, float]:
        """``compute_result`` (``batch_eval_metrics=True``): the Trainer calls once per batch;
        the batches are decoded and kept, and scored together when it is ``True``. What was kept
        is forgotten after the last batch, on any error, and when a new evaluation starts (see
        :func:`_evaluation_pass`), so an interrupted evaluation never leaks into the next."""
        if compute_result is None:
            self.forget()
            try:
                texts = self.decode_all(eval_pred)
            except Unscorable as err:
                return self.unscored(str(err))
            return self.unscored(self.no_labels()) if self.no_labels() else self.score(*texts)
        self.gather(eval_pred)
        if not compute_result:
            return {}
        try:
            hyps, refs, inputs = (list(texts) for texts in self._gathered)
            if self._unscorable:
                return self.unscored(self._unscorable)
            if not hyps:
                raise ValueError("predictions is empty: the evaluation set has no examples, so there is nothing to score")
            if self.no_labels():
                return self.unscored(self.no_labels())
            return self.score(hyps, refs, inputs if len(inputs) == len(hyps) else None)
        finally:
            self.forget()

    def no_labels(self) -> str:
        """Why the evaluation so far cannot be scored for want of labels, or ''."""
        if self._labelled:
            return ""
        return ("every label is -100 (every position masked): there is no reference to score against, and each "
                "prediction would score the floor against an empty text")

    def unscored(self, reason: str) -> dict[str, float]:
        """NaN under each key, with a warning saying why (never a score: 0.0 would read as one)."""
        keys = [self.key]
        if getattr(self.scorer, "evaluation_modules", None) is not None:  # evaluate.combine
            keys = [f"{self.prefix}_{k}" if self.prefix else k for k in _combined_labels(self.scorer)]
        warnings.warn(f"{', '.join(keys)}: logged NaN: {reason}", stacklevel=3)
        return {key: float("nan") for key in keys}

    def gather(self, eval_pred: Any) -> None:
        """Keep one batch's texts (``batch_eval_metrics``), after forgetting those of an earlier
        evaluation; an error forgets everything."""
        current = _evaluation_pass()
        if current != self._pass:
            self.forget()
            self._pass = current
        try:
            hyps, refs, srcs = self.decode_all(eval_pred)
        except Unscorable as err:  # the evaluation is logged as NaN when its last batch comes
            self._unscorable = self._unscorable or str(err)
            return
        except BaseException:
            self.forget()
            raise
        self._gathered[0].extend(hyps)
        self._gathered[1].extend(refs)
        if srcs is not None:
            self._gathered[2].extend(srcs)

    def forget(self) -> None:
        """Drop the batches kept so far."""
        for texts in self._gathered:
            texts.clear()
        self._labelled, self._unscorable = 0, ""

    # -- decoding -----------------------------------------------------------------------------
    def decode_batch(self, predictions: Any, labels: Any) -> tuple[list[str], list[str]]:
        """Hypotheses and references of one array of predictions and labels."""
        codes = sorted(lang_ids(self.tokenizer))
        label_ids = None
        if self.align_labels is not None:  # the labels mask the positions that predict nothing
            label_ids = token_ids(labels, "labels", self.tokenizer, codes)
        hyps = decode(self.tokenizer, predictions, "predictions", label_ids, self.align_labels)
        if label_ids is None:
            label_ids = token_ids(labels, "labels", self.tokenizer, codes)
        self._labelled += int((label_ids >= 0).sum())  # -100: masked
        refs = decode(self.tokenizer, labels, "labels", cut_eos=False)
        if len(hyps) != len(refs):
            raise ValueError(f"the evaluation produced {len(hyps)} predictions but {len(refs)} labels")
        return hyps, refs

    def decode(self, predictions: Any, labels: Any) -> tuple[list[str], list[str]]:
        """Hypotheses and references, from arrays or (``eval_do_concat_batches=False``) lists
        of per-batch arrays; an error names the batch."""
        pred_batches, label_batches = batches(predictions), batches(labels)
        if pred_batches is None and label_batches is None:
            return self.decode_batch(predictions, labels)
        if pred_batches is None or label_batches is None or len(pred_batches) != len(label_batches):
            raise ValueError("with eval_do_concat_batches=False the predictions and the labels must both be lists of "
                             f"per-batch arrays, one per batch; got {type(predictions).__name__} and {type(labels).__name__}"
                             + (f" of {len(pred_batches)} and {len(label_batches)} batches"
                                if pred_batches is not None and label_batches is not None else ""))
        hyps, refs = [], []
        for i, (p, t) in enumerate(zip(pred_batches, label_batches)):
            try:
                h, r = self.decode_batch(p, t)
            except ValueError as err:
                raise ValueError(f"evaluation batch {i} (eval_do_concat_batches=False): {err}") from None
            hyps += h
            refs += r
        return hyps, refs

    def decode_inputs(self, inputs: Any) -> list[str]:
        """The evaluation's inputs as texts (an array, per-batch arrays, or the batch itself)."""
        if isinstance(inputs, Mapping):  # batch_eval_metrics passes the batch itself
            if "input_ids" not in inputs:
                raise ValueError(f"the evaluation's inputs have no input_ids (keys: {', '.join(inputs)})")
            inputs = inputs["input_ids"]
        parts = batches(inputs)
        if parts is None:
            return decode(self.tokenizer, inputs, "inputs", cut_eos=False)
        return [text for batch in parts for text in decode(self.tokenizer, batch, "inputs", cut_eos=False)]

    def decode_all(self, eval_pred: Any) -> tuple[list[str], list[str], list[str] | None]:
        """Hypotheses, references and (when sources are wanted and passed) the decoded inputs."""
        hyps, refs = self.decode(eval_pred[0], eval_pred[1])
        wanted = self.from_inputs or self.fixed is not None
        inputs = getattr(eval_pred, "inputs", None) if wanted else None
        if inputs is None and self.from_inputs:
            raise ValueError("sources='inputs' needs the evaluation's inputs: set include_for_metrics=['inputs'] "
                             "in the training arguments")
        srcs = None if inputs is None else self.decode_inputs(inputs)
        if srcs is not None and len(srcs) != len(hyps):
            if not self.from_inputs:  # a fixed list: its check needs inputs paired with the predictions
                return hyps, refs, None
            hint = (": with batch_eval_metrics=True on several processes (multi-GPU, multi-process) the Trainer "
                    "gathers the predictions and labels of all processes but passes only this process's batch as "
                    "inputs, so sources='inputs' cannot work there; pass the sources as a list, or evaluate with "
                    "batch_eval_metrics=False or on one process" if isinstance(inputs, Mapping) else "")
            raise ValueError(f"the evaluation produced {len(srcs)} inputs but {len(hyps)} predictions{hint}")
        return hyps, refs, srcs

    def check_fixed(self, inputs: list[str]) -> None:
        """A fixed sources list against the decoded inputs of the same evaluation: each source,
        encoded and decoded, should contain its input or be contained in it (truncation keeps
        a part, a task prefix adds one); if not, a warning, once (preprocessing the hook cannot
        see, or a list for another dataset)."""
        assert self.fixed is not None
        if self._warned:
            return
        if not self._roundtrip:
            ids = self.tokenizer(self.fixed, add_special_tokens=True)["input_ids"]
            self._roundtrip.extend(t.strip() for t in self.tokenizer.batch_decode(ids, skip_special_tokens=True))
        for i, (given, seen) in enumerate(zip(self._roundtrip, inputs)):
            if given not in seen and seen not in given:
                self._warned = True
                warnings.warn(f"sources[{i}] ({self.fixed[i][:60]!r}) is not found in the evaluation's input {i} "
                              f"({seen[:60]!r}) nor the input in it: if the sources list belongs to another dataset "
                              "(trainer.predict(other)?) the scores pair the wrong sources; build the hook with "
                              "sources='inputs' to take the sources from the inputs (this warning is given once)",
                              stacklevel=4)
                return

    # -- scoring ------------------------------------------------------------------------------
    def score(self, hyps: list[str], refs: list[str], inputs: list[str] | None) -> dict[str, float]:
        """The corpus score(s) of the decoded texts, under the hook's key(s)."""
        srcs = inputs if self.from_inputs else None
        if self.fixed is not None:
            if len(self.fixed) != len(hyps):
                raise ValueError(f"sources has {len(self.fixed)} items but the evaluation produced {len(hyps)} predictions")
            if inputs is not None:
                self.check_fixed(inputs)
            srcs = self.fixed
        if hasattr(self.scorer, "score"):
            return {self.key: float(self.scorer.score(hyps, refs, srcs, **self.extras).score)}
        kwargs = {"predictions": hyps, "references": refs,
                  **(self.options if self.call is None else {"call": self.call})}
        if srcs is not None:
            kwargs["sources"] = srcs
        if getattr(self.scorer, "evaluation_modules", None) is not None:  # evaluate.combine
            scores = _combined_scores(self.scorer, kwargs)
            return {f"{self.prefix}_{k}" if self.prefix else k: v for k, v in scores.items()}
        out = self.scorer.compute(**kwargs)  # an evaluate module
        if "score" not in out:
            raise ValueError(f"the evaluate module returned no 'score' (keys: {', '.join(out)})")
        return {self.key: float(out["score"])}


def compute_metrics_fn(metric: Any, tokenizer: Any, sources: list[str] | str | None = None,
                       prefix: str | None = None, align_labels: str | None = None,
                       **options: Any) -> Callable[..., dict[str, float]]:
    """A ``compute_metrics`` for ``Seq2SeqTrainer``: a :class:`MetricsHook` (see there for
    ``metric``, ``sources``, ``prefix``, ``align_labels``, the options and ``evaluate.combine``).

    How predictions become texts (:func:`nlgmetrics.integrations.decoding.decode`), in order:

    1. token ids, a 2-D integer array (``predict_with_generate``), or 3-D logits whose argmax is
       taken (a logits row the Trainer filled when padding batches to one length is no
       prediction); a tuple's first element; torch tensors; one array per batch
       (``eval_do_concat_batches=False``). Anything else, and ids outside the tokenizer's
       vocabulary, is a ``ValueError``;
    2. with ``align_labels``, positions whose label is ``-100`` (``"seq2seq"``) or whose next
       label is (``"causal"``) are masked;
    3. a prediction ends at its first end-of-sequence token (one in the first position, the
       decoder start of BART, mBART and M2M-100, does not count);
    4. negative ids (``-100`` padding, masked positions) are dropped, not read as the pad id;
    5. language codes (``tokenizer.lang_code_to_id``: M2M-100's ``__hi__``, NLLB's, mBART's) are
       dropped: tokenizers need not mark them special, and a model may generate them anywhere;
    6. ``tokenizer.batch_decode(..., skip_special_tokens=True)``, each text stripped.

    Labels (the references) and, with ``sources="inputs"``, the inputs go through the same
    steps except 2 and 3."""
    return MetricsHook(metric, tokenizer, sources=sources, prefix=prefix, align_labels=align_labels, **options)

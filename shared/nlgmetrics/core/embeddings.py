"""Contextual word vectors, token vectors and sentence vectors from any transformers encoder,
batched by length with each unique text encoded once; BERTScore on top of them.

Model arguments accept a hub id, a local directory, or ``minilm`` (the all-MiniLM-L6-v2 copy
shipped by the lite extra)."""
from __future__ import annotations

import math
import warnings
from collections import Counter
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch

from nlgmetrics.core.inputs import reference_group

from .batching import greedy_match_batched, plan_batches
from .cache import LRUCache
from .facts import BERTSCORE_PROFILES
from .models import (
    dtype_name,
    expand_alias,
    fixed_shape_batches,
    load_pretrained,
    padded_width,
    resolve_device,
    resolve_dtype,
    tokenize,
)
from .packed import Parts, Pass, group_tokens, packed_forward, packed_parts
from .progress import progress

#: one encoded input: hidden states (read-only), word ids, token ids
_Encoded = Tuple[np.ndarray, List[Optional[int]], List[int]]

#: BERTScore's tuned layers for the checkpoints this project uses (others: last layer)
BERTSCORE_LAYERS = {"roberta-large": 17, "albert-large-v2": 22, "bert-base-uncased": 9}


class ContextualEncoder:
    """Encodes texts with a transformers encoder once per unique input.

    ``layer`` selects the hidden layer (``None`` = last). Inputs over ``max_length`` subword
    tokens are truncated with a warning.
    """

    def __init__(self, model: str = "minilm", *, device: Union[str, torch.device] = "auto",
                 dtype: Union[str, torch.dtype, None] = "fp32", batch_size: int = 32,
                 max_length: int = 512, layer: Optional[int] = None, pad_multiple: int = 8,
                 quiet: bool = False, cache_entries: int = 4096, cache_bytes: int = 8 * 2**20) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.model_name = str(model)
        location = expand_alias(self.model_name)
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.tokenizer = load_pretrained(AutoTokenizer, location, what="encoder tokenizer",
                                         lite_hint="profile='lite' / model='minilm'")
        self.model = load_pretrained(AutoModel, location, what="encoder", device=self.device,
                                     dtype=self.dtype, lite_hint="profile='lite' / model='minilm'")
        make_resident(self.model)
        limit = getattr(self.tokenizer, "model_max_length", max_length) or max_length
        self.max_length = int(min(max_length, limit if limit < 1e6 else max_length))
        if batch_size < 1 or pad_multiple < 1:
            raise ValueError("batch_size and pad_multiple must be >= 1")
        self.batch_size = batch_size
        self.pad_multiple = pad_multiple
        layers = int(getattr(self.model.config, "num_hidden_layers", 0) or 0)
        if layer is not None and layers and not 0 <= layer <= layers:
            raise ValueError(f"layer {layer} does not exist in {self.model_name}: it has hidden states 0 "
                             f"(embeddings) to {layers}")
        self.layer = layer
        self.quiet = quiet
        #: CPU: batches of one padded width, filled to batch_size (batch-independent vectors);
        #: GPU: length-sorted batches padded to their longest row (see core.batching)
        self.exact_shapes = self.device.type == "cpu"
        self._cache: LRUCache[Tuple[object, ...], _Encoded] = LRUCache(cache_entries, cache_bytes)

    @property
    def dim(self) -> int:
        return int(self.model.config.hidden_size)

    def describe(self) -> str:
        return f"{self.model_name}@{'last' if self.layer is None else self.layer}/{dtype_name(self.dtype)}"

    # -- core forward ------------------------------------------------------------------
    def _encode(self, inputs: List, is_split: bool, desc: str, all_layers: bool = False) -> List[_Encoded]:
        """Per input, through the bounded cache: see :meth:`_encode_now`."""
        keys = [(tuple(x) if is_split else x, is_split, all_layers) for x in inputs]
        return self._cache.get_many(
            keys, lambda missing: self._encode_now([k[0] for k in missing], is_split, desc, all_layers))

    def _encode_now(self, inputs: List, is_split: bool, desc: str, all_layers: bool = False) -> List[_Encoded]:
        """Returns per input: hidden states (n_tokens x d, special tokens included), word ids,
        token ids (with ``all_layers``: layers 1..L stacked, L x n_tokens x d, instead of the
        chosen layer). Each unique input is encoded once, padded to a width of its own length
        (``padded_width``) in batches of one width and ``batch_size`` rows, so its vectors do
        not depend on the other inputs of the call (shards, ranks) for a given batch size and
        thread count (BLAS rounding depends on both, by about 1e-6). On CPU a BERT-family
        encoder runs packed (:mod:`~nlgmetrics.core.packed`): its dense layers see the real
        tokens only, its attention those passes, with the same bits as the model run on them."""
        keys = [tuple(x) if is_split else x for x in inputs]
        unique = list(dict.fromkeys(keys))
        as_input = (lambda k: list(k)) if is_split else (lambda k: k)
        full = tokenize(self.tokenizer, [as_input(k) for k in unique], is_split_into_words=is_split,
                        truncation=False, split_special_tokens=True)["input_ids"] if unique else []
        lengths = {k: min(len(ids), self.max_length) for k, ids in zip(unique, full)}
        truncated = sum(len(ids) > self.max_length for ids in full)
        done: Dict = {}
        with torch.inference_mode():
            plan = list(self._plan(unique, lengths))
            passes = self._forward(self._passes(plan, as_input, is_split), lengths, all_layers)
            for chunk, enc, states in progress(passes, desc=desc, total=len(plan), quiet=self.quiet):
                for b, key in enumerate(chunk):
                    n = lengths[key]
                    word_ids = enc.word_ids(b)[:n] if is_split else [None] * n
                    # a copy, so that a cached input does not keep its whole batch alive
                    vectors = np.array(states[b])
                    vectors.setflags(write=False)
                    done[key] = (vectors, word_ids, enc["input_ids"][b, :n].tolist())
        if truncated:
            warnings.warn(f"{truncated} input(s) longer than {self.max_length} tokens were truncated "
                          f"by the encoder {self.model_name}", stacklevel=3)
        return [done[k] for k in keys]

    def _passes(self, plan: List[Tuple[List, List, int]], as_input: Any, is_split: bool) -> Iterator[Tuple[List, Any]]:
        """``(chunk, encoding)`` per pass: the rows padded to the pass's width (filler rows only
        where the model runs them itself: the packed path needs none)."""
        packed = self._packed() is not None
        for chunk, rows, width in plan:
            yield chunk, tokenize(self.tokenizer, [as_input(k) for k in (chunk if packed else rows)],
                                  is_split_into_words=is_split, padding="max_length", truncation=True,
                                  max_length=width, return_tensors="pt", split_special_tokens=True)

    def _packed(self) -> Optional[Parts]:
        """The packed CPU forward (:mod:`~nlgmetrics.core.packed`) when the encoder allows it."""
        if not self.exact_shapes or self.dtype != torch.float32:
            return None
        return packed_parts(self.model, self.tokenizer)

    def _forward(self, passes: Iterable[Tuple[List, Any]], lengths: Dict,
                 all_layers: bool) -> Iterator[Tuple[List, Any, List[np.ndarray]]]:
        """``(chunk, encoding, states)`` per pass, ``states[b]`` the hidden states of
        ``chunk[b]``'s tokens (n x d, or L x n x d with ``all_layers``): the packed forward in
        groups of :func:`~nlgmetrics.core.packed.group_tokens` tokens, or the model's own per pass."""
        parts = self._packed()
        if parts is None:
            for chunk, enc in passes:
                out = self.model(**{k: v.to(self.device) for k, v in enc.items()
                                    if k in ("input_ids", "attention_mask", "token_type_ids")},
                                 output_hidden_states=all_layers or self.layer is not None)
                if all_layers:
                    hidden = torch.stack(out.hidden_states[1:], dim=1).float().cpu().numpy()
                else:
                    hidden = (out.last_hidden_state if self.layer is None
                              else out.hidden_states[self.layer]).float().cpu().numpy()
                yield chunk, enc, [hidden[b, :, :lengths[k]] if all_layers else hidden[b, :lengths[k]]
                                   for b, k in enumerate(chunk)]
            return
        depth = len(parts.layers)
        layers = list(range(1, depth + 1)) if all_layers else [depth if self.layer is None else self.layer]
        group: List[Tuple[List, Any]] = []
        tokens, limit = 0, group_tokens(parts, len(layers))
        for chunk, enc in passes:
            group.append((chunk, enc))
            tokens += sum(lengths[k] for k in chunk)
            if tokens >= limit:
                yield from self._run_group(parts, group, lengths, layers, all_layers)
                group, tokens = [], 0
        if group:
            yield from self._run_group(parts, group, lengths, layers, all_layers)

    @staticmethod
    def _run_group(parts: Parts, group: List[Tuple[List, Any]], lengths: Dict, layers: List[int],
                   all_layers: bool) -> Iterator[Tuple[List, Any, List[np.ndarray]]]:
        states = packed_forward(parts, [Pass(enc["input_ids"], enc["attention_mask"], enc.get("token_type_ids"))
                                        for _, enc in group], layers)
        for (chunk, enc), per_layer in zip(group, states):
            stacked = torch.stack(per_layer).numpy()  # L x tokens x d, the chunk's rows one after another
            bounds = np.cumsum([0] + [lengths[k] for k in chunk])
            yield chunk, enc, [stacked[:, a:b] if all_layers else stacked[0, a:b] for a, b in zip(bounds, bounds[1:])]

    def _plan(self, unique: List, lengths: Dict) -> Iterable[Tuple[List, List, int]]:
        """``(chunk, rows, width)`` per forward pass: fixed shapes on CPU, else length-sorted
        batches padded to their longest row (rounded up to ``pad_multiple``), no filler rows."""
        if self.exact_shapes:
            return fixed_shape_batches(unique, lengths.__getitem__, self.batch_size, self.pad_multiple,
                                       self.max_length)
        width = lambda k: padded_width(lengths[k], self.pad_multiple, self.max_length)  # noqa: E731
        return ((chunk, chunk, width(chunk[0])) for chunk in
                plan_batches(unique, lambda k: (lengths[k],), self.batch_size, one_shape=False))

    # -- public views -----------------------------------------------------------------
    def word_vectors(self, words: Sequence[Sequence[str]]) -> List[np.ndarray]:
        """One (n_words x d) array per word list; a word's vector is the mean of its subword
        vectors. Words lost to truncation get the mean of the kept ones (or zeros)."""
        results = []
        nonempty = [list(w) for w in words if len(w)]
        encoded = iter(self._encode(nonempty, True, "encoding words") if nonempty else [])
        for w in words:
            if not len(w):
                results.append(np.zeros((0, self.dim), dtype=np.float32))
                continue
            hidden, word_ids, _ = next(encoded)
            vecs = np.zeros((len(w), hidden.shape[1]), dtype=np.float32)
            counts = np.zeros(len(w))
            for pos, wid in enumerate(word_ids):
                if wid is not None:
                    vecs[wid] += hidden[pos]
                    counts[wid] += 1
            kept = counts > 0
            vecs[kept] /= counts[kept, None]
            if (~kept).any():
                vecs[~kept] = vecs[kept].mean(axis=0) if kept.any() else 0.0
            results.append(vecs)
        return results

    def token_vectors(self, texts: Sequence[str]) -> List[Tuple[np.ndarray, List[int]]]:
        """Per text: vectors and ids of its subword tokens, the special tokens ([CLS], [SEP],
        padding) removed. The unknown token stays, as in BERTScore: a word the vocabulary lacks
        (an emoji, a rare CJK character) is still a token of the text."""
        special = set(self.tokenizer.all_special_ids) - {self.tokenizer.unk_token_id}
        out = []
        for hidden, _, ids in self._encode(list(texts), False, "encoding tokens"):
            keep = [i for i, t in enumerate(ids) if t not in special]
            out.append((hidden[keep], [ids[i] for i in keep]))
        return out

    def token_states(self, texts: Sequence[str]) -> List[Tuple[np.ndarray, List[int]]]:
        """Per text: vectors and ids of all its tokens, ``[CLS]`` and ``[SEP]`` included (what
        BERTScore matches against)."""
        return [(hidden, ids) for hidden, _, ids in self._encode(list(texts), False, "encoding tokens")]

    def layer_states(self, texts: Sequence[str]) -> List[np.ndarray]:
        """Per text: the hidden states of every layer after the embeddings (L x n_tokens x d,
        special tokens included), e.g. for probing classifiers."""
        return [states for states, _, _ in self._encode(list(texts), False, "encoding layers", all_layers=True)]

    def sentence_vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Mean-pooled, L2-normalised sentence vectors (the sentence-transformers recipe)."""
        rows = []
        for hidden, _, _ in self._encode(list(texts), False, "encoding sentences"):
            v = hidden.mean(axis=0) if len(hidden) else np.zeros(self.dim, dtype=np.float32)
            rows.append(v / max(float(np.linalg.norm(v)), 1e-12))
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), self.dim)


def bertscore_encoder(model: Optional[str], profile: str, layer: Optional[int], *, device: str, dtype: str,
                      batch_size: int, quiet: bool) -> ContextualEncoder:
    """The encoder of a BERTScore: ``model`` or the ``profile``'s (:data:`BERTSCORE_PROFILES`),
    at ``layer`` or bert_score's layer for that model (:data:`BERTSCORE_LAYERS`; else the last)."""
    name = model or BERTSCORE_PROFILES[profile]
    return ContextualEncoder(name, device=device, dtype=dtype, batch_size=batch_size,
                             layer=layer if layer is not None else BERTSCORE_LAYERS.get(name), quiet=quiet)


def make_resident(model: torch.nn.Module) -> torch.nn.Module:
    """Copy a CPU model's memory-mapped weights into process memory, once (shared weights stay
    shared). A checkpoint loaded from safetensors is memory-mapped: each new token id then
    pages in more of the embedding table, so resident memory grows with the vocabulary seen
    (up to the table's size, ~47 MiB for MiniLM) and looks like a leak to a long-running
    process. Made resident at load, the memory is paid once, up front."""
    if getattr(model, "_nlgmetrics_resident", False):
        return model
    copies: Dict[Tuple[int, Tuple[int, ...], Tuple[int, ...]], torch.Tensor] = {}
    with torch.no_grad():
        for tensor in list(model.parameters()) + list(model.buffers()):
            if tensor.device.type != "cpu" or not tensor.numel():
                continue
            key = (tensor.data_ptr(), tuple(tensor.shape), tuple(tensor.stride()))
            if key not in copies:
                copies[key] = tensor.data.clone()
            tensor.data = copies[key]
    model._nlgmetrics_resident = True  # type: ignore[assignment]
    return model


def normalize_rows(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=-1, keepdims=True), 1e-12)


def idf_weights(references: Sequence[List[int]]) -> Dict[int, float]:
    """BERTScore idf: log((M + 1) / (df + 1)) over the reference token-id sets (M references,
    repeats counted, as bert_score counts them); key -1: an id no reference has."""
    df: Counter = Counter()
    for ids in references:
        df.update(set(ids))
    m = len(references)
    return {tok: math.log((m + 1) / (c + 1)) for tok, c in df.items()} | {-1: math.log(m + 1)}


def _greedy(cand: np.ndarray, ref: np.ndarray, wc: np.ndarray, wr: np.ndarray) -> Tuple[float, float, float]:
    """Greedy matching of one pair of token-vector arrays (special tokens included, weight 0;
    rows normalised here): precision, recall, F1; 0 where a side has no weight (an empty
    text). The cosines come from ``np.einsum`` (numpy's own loops, one thread, no BLAS): a
    cosine then depends on its two vectors alone, not on the pair's shape, the batch or the
    thread count, and a small product costs no thread start-up (BLAS's took milliseconds per
    pair on a busy machine)."""
    if not (wc.any() and wr.any()):
        return 0.0, 0.0, 0.0
    sim = np.einsum("id,jd->ij", normalize_rows(cand), normalize_rows(ref))
    p = min(1.0, float(sim.max(axis=1).astype(np.float64) @ wc) / float(wc.sum()))  # 1 + rounding: 1
    r = min(1.0, float(sim.max(axis=0).astype(np.float64) @ wr) / float(wr.sum()))
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


def bertscore(candidates: Sequence[str], references: Sequence[Union[str, Sequence[str]]],
              encoder: ContextualEncoder, *, idf: bool = False,
              batched: Optional[bool] = None) -> Dict[str, List[float]]:
    """BERTScore precision/recall/F1 as bert_score 0.3.13 computes them (no baseline
    rescaling): greedy cosine matching of subword vectors where ``[CLS]`` and ``[SEP]`` take
    part in the similarity matrix (the other side's tokens may match them) with weight 0;
    ``idf``: token weights log((M + 1) / (df + 1)) from the M references (bert_score's
    ``get_idf_dict``). Several references per candidate: precision, recall and F1 are each the
    best over the references (bert_score's ``max(dim=0)``). Defined results where bert_score
    gives NaN: an empty text, or one whose tokens all weigh 0 (idf, a token in every
    reference), scores 0. Equal to bert_score within 1e-6 (tests/core/test_bertscore_parity.py).

    Each distinct text is encoded once, in length-sorted passes. ``batched`` (default: on a GPU
    encoder) matches all pairs in padded batches on the encoder's device
    (:func:`~nlgmetrics.core.batching.greedy_match_batched`, equal to the per-pair matching to
    about 1e-7); on CPU each pair is matched alone (:func:`_greedy`), so scores do not depend
    on the batch size, the thread count or the other pairs of the call."""
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
    ref_lists = [reference_group(r) for r in references]
    flat_refs = [r for group in ref_lists for r in group]
    texts = list(candidates) + flat_refs
    distinct = list(dict.fromkeys(texts))
    encoded = dict(zip(distinct, encoder.token_states(distinct)))
    zero = {encoder.tokenizer.cls_token_id, encoder.tokenizer.sep_token_id}
    weights = idf_weights([encoded[r][1] for r in flat_refs]) if idf else None
    cache: Dict[str, np.ndarray] = {}

    def w(text: str) -> np.ndarray:
        if text not in cache:
            ids = encoded[text][1]
            cache[text] = np.array([0.0 if t in zero else 1.0 if weights is None else weights.get(t, weights[-1])
                                    for t in ids], dtype=np.float64)
        return cache[text]

    pairs = [(c, r) for c, group in zip(candidates, ref_lists) for r in group]
    if batched if batched is not None else encoder.device.type != "cpu":
        matched = greedy_match_batched([encoded[c][0] for c, _ in pairs], [encoded[r][0] for _, r in pairs],
                                       [w(c) for c, _ in pairs], [w(r) for _, r in pairs], device=encoder.device)
        triples = [tuple(map(float, row)) if w(c).any() and w(r).any() else (0.0, 0.0, 0.0)
                   for row, (c, r) in zip(matched, pairs)]
    else:
        triples = [_greedy(encoded[c][0], encoded[r][0], w(c), w(r)) for c, r in pairs]
    out: Dict[str, List[float]] = {"precision": [], "recall": [], "f1": []}
    pos = 0
    for group in ref_lists:
        best = [max(t[k] for t in triples[pos:pos + len(group)]) for k in range(3)]
        pos += len(group)
        for key, value in zip(("precision", "recall", "f1"), best):
            out[key].append(value)
    return out

"""Packed encoder passes on the CPU: the same bits as the model's own padded forward, without
running the padding through the dense layers (issue 39).

A BERT-family encoder spends most of its CPU time in its dense layers (query, key, value,
attention output, feed-forward), which treat every token row alone: a row's result depends on
the row and the weights, not on the other rows of the matrix (checked for MKL's sgemm at every
row count from 12 to 129 and at 200 to 5000, at 1, 2, 4 and 8 threads, for MiniLM's and a large
model's shapes; a product of fewer than 12 rows may take another kernel and round differently,
so a packed matrix is never shorter than :data:`MIN_ROWS`). Only attention mixes the tokens of
a text. :func:`packed_forward` therefore runs the dense layers, the layer norms and the
activation on the real tokens of many passes stacked into one matrix (no padding rows, no
filler rows; a few thousand rows per product instead of a small product per pass, so fewer
thread hand-offs on a loaded machine), and attention on each pass's own padded layout with the
mask the model itself builds. The result equals the model's padded forward bit for bit; each
model is checked once against it (:func:`packed_parts`) and runs its own forward if not.
"""
from __future__ import annotations

import sys
import threading
import weakref
from typing import Any, List, NamedTuple, Optional, Sequence

import torch

#: a packed matrix has at least this many rows, and a multiple of 8 (zero rows appended)
MIN_ROWS = 16

#: bytes of a packed group's largest activation (the feed-forward's, or the kept layers'):
#: about 2,700 tokens of MiniLM, 1,024 of a large model. Small enough for the activations to stay
#: in a CPU's L3 cache between the operations of a layer: 64 MiB groups were 13% slower
#: (MiniLM on 2 threads; 6 to 16 MiB about equal, and 16 MiB the fewest products)
GROUP_BYTES = 16 * 2**20


class Parts(NamedTuple):
    """What :func:`packed_forward` calls of a BERT-family model."""
    embeddings: Any
    layers: Sequence[Any]
    attention: Any  # the model's attention function, (module, q, k, v, mask, ...) -> (out, weights)
    make_mask: Any  # the model's bidirectional mask builder
    config: Any


class Pass(NamedTuple):
    """One padded pass: ``input_ids``, ``attention_mask`` (and ``token_type_ids`` if the
    tokenizer gives them), rows x width, right padded."""
    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    token_type_ids: Optional[torch.Tensor] = None


def group_tokens(parts: Parts, kept_layers: int) -> int:
    """Real tokens per packed group: :data:`GROUP_BYTES` of fp32 activations."""
    width = max(parts.layers[0].intermediate.dense.out_features, parts.config.hidden_size * kept_layers)
    return max(MIN_ROWS, GROUP_BYTES // (4 * width))


def _bert_like(layer: Any) -> bool:
    names = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.self.scaling",
             "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
             "intermediate.intermediate_act_fn", "output.dense", "output.LayerNorm")
    for name in names:
        obj = layer
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            return False
    return not getattr(layer, "chunk_size_feed_forward", 0) and not getattr(layer, "add_cross_attention", False)


def _find_parts(model: Any) -> Optional[Parts]:
    config = getattr(model, "config", None)
    layers = getattr(getattr(model, "encoder", None), "layer", None)
    if (config is None or layers is None or not len(layers) or getattr(model, "embeddings", None) is None
            or getattr(config, "is_decoder", False) or model.training
            or getattr(config, "position_embedding_type", "absolute") != "absolute"
            or not all(_bert_like(layer) for layer in layers)):
        return None
    namespace = sys.modules.get(type(layers[0].attention.self).__module__)
    registry = getattr(namespace, "ALL_ATTENTION_FUNCTIONS", None)
    eager = getattr(namespace, "eager_attention_forward", None)
    make_mask = getattr(namespace, "create_bidirectional_mask", None)
    if registry is None or eager is None or make_mask is None:
        return None
    attention = registry.get_interface(config._attn_implementation, eager)
    return Parts(model.embeddings, list(layers), attention, make_mask, config)


_CHECKED: "weakref.WeakKeyDictionary[Any, Optional[Parts]]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def packed_parts(model: Any, tokenizer: Any) -> Optional[Parts]:
    """The model's parts when :func:`packed_forward` reproduces its forward exactly (checked
    once per model on a probe: passes with and without padding, every hidden layer), else
    ``None`` (then the caller runs the model itself)."""
    with _LOCK:
        if model in _CHECKED:
            return _CHECKED[model]
    parts = None
    if getattr(tokenizer, "padding_side", "right") == "right" and getattr(tokenizer, "pad_token_id", None) is not None:
        parts = _find_parts(model)
        if parts is not None and not _probe_matches(model, tokenizer, parts):
            parts = None
    with _LOCK:
        _CHECKED[model] = parts
    return parts


def _probe_matches(model: Any, tokenizer: Any, parts: Parts) -> bool:
    """Two passes of at least :data:`MIN_ROWS` tokens, as the caller makes them: three texts
    padded to a multiple of 8, and copies of one text with no padding (no mask)."""
    texts = ["the cat sat on the mat", "a", "It has been raining since this morning."]
    ids = tokenizer(texts)["input_ids"]
    width = -(-max(len(x) for x in ids) // 8) * 8
    copies = -(-MIN_ROWS // len(ids[0]))
    passes = [Pass(*_ids_and_mask(tokenizer, texts, width)), Pass(*_ids_and_mask(tokenizer, texts[:1] * copies, len(ids[0])))]
    try:
        with torch.inference_mode():
            got = packed_forward(parts, passes, range(len(parts.layers) + 1))
            for p, states in zip(passes, got):
                want = model(input_ids=p.input_ids, attention_mask=p.attention_mask, output_hidden_states=True)
                if not torch.equal(want.last_hidden_state, want.hidden_states[-1]):
                    return False
                keep = p.attention_mask.reshape(-1).bool()
                for layer, state in enumerate(want.hidden_states):
                    if not torch.equal(state.reshape(keep.numel(), -1)[keep], states[layer]):
                        return False
    except Exception:  # noqa: BLE001 - any surprise in a model's internals: use its own forward
        return False
    return True


def _ids_and_mask(tokenizer: Any, texts: List[str], width: int) -> Any:
    enc = tokenizer(texts, padding="max_length", max_length=width, return_tensors="pt")
    return enc["input_ids"], enc["attention_mask"]


def _pad_rows(x: torch.Tensor, rows: int = 0) -> torch.Tensor:
    """``x`` with zero rows appended up to ``rows``, or else to a multiple of 8 of at least
    :data:`MIN_ROWS` rows."""
    rows = rows or max(MIN_ROWS, -(-x.shape[0] // 8) * 8)
    return x if rows == x.shape[0] else torch.cat([x, x.new_zeros(rows - x.shape[0], x.shape[1])])


class _Layout(NamedTuple):
    """Where the packed rows go in the passes' padded layout (all passes one after another)."""
    positions: torch.Tensor  # per packed row, its position in the padded layout
    shapes: List[Any]  # per pass (start in the padded layout, rows, width, mask)
    tokens: int  # packed rows holding a token


def _merged(passes: Sequence[Pass]) -> List[Pass]:
    """Consecutive passes of one width as one attention batch (attention treats each row alone:
    the same bits in a pass of any row count, with or without a mask)."""
    merged: List[List[Pass]] = []
    for p in passes:
        if merged and merged[-1][0].input_ids.shape[1] == p.input_ids.shape[1]:
            merged[-1].append(p)
        else:
            merged.append([p])
    return [group[0] if len(group) == 1 else _joined(group) for group in merged]


def _joined(group: Sequence[Pass]) -> Pass:
    """Passes of one width stacked as one."""
    types = [p.token_type_ids for p in group]
    return Pass(torch.cat([p.input_ids for p in group]), torch.cat([p.attention_mask for p in group]),
                None if any(t is None for t in types) else torch.cat([t for t in types if t is not None]))


def packed_forward(parts: Parts, passes: Sequence[Pass], layers: Sequence[int]) -> List[List[torch.Tensor]]:
    """Per pass, per wanted hidden layer (0: the embeddings, i: after layer i): the states of
    its real tokens (n_real x d, row by row), equal to the model's padded forward."""
    index, shapes, chunks, start = [], [], [], 0
    for p in _merged(passes):
        embedded = parts.embeddings(input_ids=p.input_ids, token_type_ids=p.token_type_ids)
        rows, width = p.input_ids.shape
        shapes.append((start, rows, width, parts.make_mask(config=parts.config, inputs_embeds=embedded,
                                                          attention_mask=p.attention_mask)))
        real = p.attention_mask.reshape(-1).nonzero().squeeze(1)
        chunks.append(embedded.reshape(rows * width, -1).index_select(0, real))
        index.append(real + start)
        start += rows * width
    layout = _Layout(torch.cat(index), shapes, sum(len(i) for i in index))
    x = _pad_rows(torch.cat(chunks))
    kept = {0: x}
    # padded query, key and value: zeros (finite) where the mask hides them, written each layer
    buffers = [x.new_zeros(start, parts.layers[0].attention.self.all_head_size) for _ in range(3)]
    for depth, layer in enumerate(parts.layers[:max(layers)], start=1):
        x = kept[depth] = _layer(parts, layer, x, layout, buffers)
    bounds = [0]
    for p in passes:
        bounds.append(bounds[-1] + int(p.attention_mask.sum()))
    return [[kept[k][a:b] for k in layers] for a, b in zip(bounds, bounds[1:])]


def _layer(parts: Parts, layer: Any, x: torch.Tensor, layout: _Layout, buffers: List[torch.Tensor]) -> torch.Tensor:
    """One BERT layer on packed rows ``x``; attention per pass on its padded layout."""
    sa = layer.attention.self
    heads, size = sa.num_attention_heads, sa.attention_head_size
    for buffer, projection in zip(buffers, (sa.query, sa.key, sa.value)):
        buffer.index_copy_(0, layout.positions, projection(x)[:layout.tokens])
    outs = []
    for start, rows, width, mask in layout.shapes:
        qkv = [b[start:start + rows * width].view(rows, width, heads, size).transpose(1, 2) for b in buffers]
        out, _ = parts.attention(sa, *qkv, mask, dropout=0.0, scaling=sa.scaling)
        outs.append(out.reshape(rows * width, -1))
    context = _pad_rows(torch.cat(outs).index_select(0, layout.positions), x.shape[0])
    out = layer.attention.output
    attended = out.LayerNorm(out.dense(context) + x)
    hidden = layer.intermediate.intermediate_act_fn(layer.intermediate.dense(attended))
    return layer.output.LayerNorm(layer.output.dense(hidden) + attended)

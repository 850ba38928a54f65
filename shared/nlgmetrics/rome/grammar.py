"""RoMe's F_grammar: P(hypothesis is grammatically acceptable) from a CoLA classifier.

- :class:`TunedGrammarHead` (lite profile): all-MiniLM-L6-v2 with its six transformer layers
  fine-tuned on CoLA's train split and a linear classifier on the masked mean of the last layer
  (``python shared/tools/training/rome_grammar.py``). The shipped ``rome_grammar_lite.npz``
  (4.8 MiB) stores each tuned weight matrix's delta against the packaged encoder as 4-bit codes
  with one float16 scale per group of 64 values (:func:`quantize_delta`; on CoLA's dev
  sentences probabilities move by at most 0.018 from the float16 deltas, 99.7-100% of the
  decisions at a fixed threshold are unchanged), the small vectors as float16 dense deltas.
  Low-rank (LoRA) updates W + (alpha/r) B A of every linear layer (``--rank r``) load the same
  way; they were measured and not shipped (benchmarks/results/rome_grammar_training.log).
  Every form is merged into the encoder's weights once at load, so scoring costs exactly what
  the plain encoder costs.
- :class:`CoLAClassifier` (paper profile): any sequence classifier fine-tuned on CoLA (hub id
  or local directory), e.g. ``textattack/bert-base-uncased-CoLA`` (BERT-base, as the paper).

Both compute probabilities on batch-independent shapes: a text's probability does not depend
on the other texts of the call (shards, ranks).

Most of CoLA's sentences end in a full stop, question or exclamation mark; with
``grammar_punctuation="full-stop"`` (:class:`~nlgmetrics.rome.RoMeConfig`; not the default) a
hypothesis that does not gets one before classification (:func:`with_end_punctuation`).
"""
from __future__ import annotations

import io
import warnings
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core import structured
from ..core.embeddings import make_resident
from ..core.models import (
    FILL_TOKENS,
    fixed_shape_batches,
    lite_encoder_path,
    load_pretrained,
    resolve_device,
    resolve_dtype,
    tokenize,
)
from ..core.option_files import MAX_OPTION_BYTES, OptionFileError, finite_numbers, read_option_file
from .features import SENTENCE_ENDS

DELTA_PREFIX = "delta."  # dense additive delta of a parameter (LayerNorms; all of the earlier format)
LORA_A_PREFIX = "lora_a."  # (rank, in) factor of a linear layer, keyed by the layer's module path
LORA_B_PREFIX = "lora_b."  # (out, rank) factor
HEAD_PREFIX = "head."
Q4_PREFIX = "q4."  # 4-bit group-quantised delta of a weight matrix: q4.<name>.codes / q4.<name>.scale
STATE_PREFIXES = (DELTA_PREFIX, Q4_PREFIX, LORA_A_PREFIX, LORA_B_PREFIX, HEAD_PREFIX)
#: an ensemble file holds ``members`` = K and each member's state under ``member<k>/``
MEMBER_PREFIX = "member{}/"
Q4_GROUP = 64
LORA_TARGETS = ("attention.self.query", "attention.self.key", "attention.self.value",
                "attention.output.dense", "intermediate.dense", "output.dense")


def masked_mean(states: Any, mask: Any) -> Any:
    """Mean of the token states under the attention mask: (batch, tokens, dim) -> (batch, dim)."""
    weights = mask.unsqueeze(-1).to(states.dtype)
    return (states * weights).sum(1) / weights.sum(1).clamp(min=1.0)


def _batched_probabilities(texts: Sequence[str], tokenizer: Any, forward: Callable[[dict[str, Any]], Any],
                           max_length: int) -> np.ndarray:
    """P(acceptable) per text from ``forward(encoding) -> probabilities`` on fixed shapes; a
    text longer than ``max_length`` subword tokens is cut there (one warning per call).

    Every pass of padded width ``w`` has ``FILL_TOKENS // w`` rows whatever the batch size, so
    the passes, and the probabilities, are the same bits for every ``batch_size``: the heads'
    eager attention rounds a one-row pass differently from a wider one (about 4e-7 in P at width
    8), which ``pass_rows(w, batch_size)`` rows let batch_size 1 reach."""
    import torch

    probs = np.zeros(len(texts))
    if not len(texts):
        return probs
    lengths = [len(ids) for ids in tokenize(tokenizer, list(texts), split_special_tokens=True)["input_ids"]]
    cut = sum(n > max_length for n in lengths)
    if cut:
        warnings.warn(f"{cut} text(s) longer than {max_length} subword tokens were cut to that length for the "
                      "grammar classifier (F_grammar)", stacklevel=4)
    lengths = [min(n, max_length) for n in lengths]
    with torch.inference_mode():
        for chunk, rows, width in fixed_shape_batches(range(len(texts)), lengths.__getitem__, FILL_TOKENS,
                                                      8, max_length):
            enc = tokenize(tokenizer, [texts[k] for k in rows], padding="max_length", truncation=True,
                           max_length=width, return_tensors="pt", split_special_tokens=True)
            probs[chunk] = forward(enc)[:len(chunk)].float().cpu().numpy()
    return probs


def _torch_module() -> Any:
    import torch

    return torch.nn.Module


class LoRALinear(_torch_module()):  # type: ignore[misc]
    """A frozen linear layer plus a trainable low-rank update: y = base(x) + scale * x A^T B^T,
    with A (rank, in) small random and B (out, rank) zero, so training starts at the base."""

    def __init__(self, base: Any, rank: int, scale: float) -> None:
        import torch

        super().__init__()
        self.base = base
        self.scale = float(scale)
        self.lora_a = torch.nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_b = torch.nn.Parameter(torch.zeros(base.out_features, rank))
        torch.nn.init.kaiming_uniform_(self.lora_a, a=5 ** 0.5)
        for param in base.parameters():
            param.requires_grad = False

    def forward(self, x: Any) -> Any:
        return self.base(x) + (x @ self.lora_a.t() @ self.lora_b.t()) * self.scale


class TunedHeadModel(_torch_module()):  # type: ignore[misc]
    """all-MiniLM-L6-v2 + a linear head on the masked mean of the last layer. Plain (for scoring,
    after :meth:`merge`) or, after :meth:`add_lora`, with trainable low-rank factors on every
    linear layer of the transformer layers, trainable LayerNorms there, and the head."""

    def __init__(self, encoder: Any, tokenizer: Any) -> None:
        import torch

        super().__init__()
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.head = torch.nn.Linear(encoder.config.hidden_size, 1)
        self.lora_scale = 0.0
        self._base: dict[str, Any] = {}

    @classmethod
    def pretrained(cls, path: str | None = None) -> TunedHeadModel:
        """The packaged encoder (or ``path``) with a fresh head (seeded by the caller)."""
        from transformers import AutoModel, AutoTokenizer

        path = path or lite_encoder_path()
        encoder = AutoModel.from_pretrained(path, attn_implementation="eager")
        return cls(encoder, AutoTokenizer.from_pretrained(path))

    def add_lora(self, rank: int, alpha: float) -> list[str]:
        """Wrap every target linear layer in a :class:`LoRALinear` (scale alpha / rank); freeze
        the encoder except the factors and the transformer layers' LayerNorms. Returns the
        wrapped layers' module paths."""
        self.lora_scale = float(alpha) / int(rank)
        paths = [name for name, _ in self.encoder.named_modules()
                 if name.startswith("encoder.layer.") and name.split(".", 3)[-1] in LORA_TARGETS]
        for path in paths:
            parent, _, child = path.rpartition(".")
            owner = self.encoder.get_submodule(parent)
            setattr(owner, child, LoRALinear(getattr(owner, child), rank, self.lora_scale))
        for name, param in self.encoder.named_parameters():
            param.requires_grad = ".lora_" in name or (name.startswith("encoder.layer.") and ".LayerNorm." in name)
            if ".LayerNorm." in name and param.requires_grad:
                self._base[name] = param.detach().clone()
        return paths

    def unfreeze_layers(self) -> None:
        """Full fine-tuning: every parameter of the transformer layers trainable (the
        embeddings stay frozen); :meth:`state` then holds their dense deltas."""
        for name, param in self.encoder.named_parameters():
            param.requires_grad = name.startswith("encoder.layer.")
            if param.requires_grad:
                self._base[name] = param.detach().clone()

    def classify(self, enc: dict[str, Any]) -> Any:
        """Logits (batch,) of acceptability."""
        out = self.encoder(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                           token_type_ids=enc.get("token_type_ids"))
        return self.head(masked_mean(out.last_hidden_state, enc["attention_mask"]))[:, 0]

    def state(self) -> dict[str, np.ndarray]:
        """The trained state: float16 LoRA factors (after :meth:`add_lora`), float32 dense deltas
        (tuned - packaged) of the other trained encoder parameters, and the float32 head."""
        out: dict[str, np.ndarray] = {}
        for name, module in self.encoder.named_modules():
            if isinstance(module, LoRALinear):
                out[LORA_A_PREFIX + name] = module.lora_a.detach().numpy().astype(np.float16)
                out[LORA_B_PREFIX + name] = module.lora_b.detach().numpy().astype(np.float16)
        for name, param in self.encoder.named_parameters():
            if name in self._base:
                out[DELTA_PREFIX + name] = (param.detach() - self._base[name]).numpy().astype(np.float32)
        for name, param in self.head.named_parameters():
            out[HEAD_PREFIX + name] = param.detach().numpy().astype(np.float32)
        return out

    def merge(self, state: dict[str, np.ndarray], scale: float) -> None:
        """Fold a :meth:`state` into the plain encoder's weights, once: W += scale * B @ A per
        factor pair (computed in float32), p += delta per dense delta; load the head."""
        merge_state(dict(self.encoder.named_parameters()), state, scale)
        import torch

        with torch.no_grad():
            for key, value in state.items():
                if key.startswith(HEAD_PREFIX):
                    getattr(self.head, key[len(HEAD_PREFIX):]).copy_(torch.from_numpy(value.astype(np.float32)))


def merge_state(params: dict[str, Any], state: dict[str, np.ndarray], scale: float) -> None:
    """In place: ``params[path + ".weight"] += scale * B @ A`` for each ``lora_a.<path>`` /
    ``lora_b.<path>`` pair and ``params[name] += delta`` for each ``delta.<name>`` or 4-bit
    ``q4.<name>`` delta of ``state``."""
    import torch

    with torch.no_grad():
        for key, value in state.items():
            if key.startswith(LORA_A_PREFIX):
                path = key[len(LORA_A_PREFIX):]
                a = torch.from_numpy(value.astype(np.float32))
                b = torch.from_numpy(state[LORA_B_PREFIX + path].astype(np.float32))
                weight = params[path + ".weight"]
                weight.add_((scale * (b @ a)).to(weight.dtype))
            elif key.startswith(DELTA_PREFIX):
                param = params[key[len(DELTA_PREFIX):]]
                param.add_(torch.from_numpy(value.astype(np.float32)).to(param.dtype))
            elif key.startswith(Q4_PREFIX) and key.endswith(".codes"):
                name = key[len(Q4_PREFIX):-len(".codes")]
                param = params[name]
                delta = dequantize_delta(value, state[f"{Q4_PREFIX}{name}.scale"], tuple(param.shape))
                param.add_(torch.from_numpy(delta).to(param.dtype))


def quantize_delta(delta: np.ndarray, group: int = Q4_GROUP) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric 4-bit codes of ``delta`` (size a multiple of ``group``): per group of ``group``
    consecutive values one float16 scale = max |value| / 7 and codes round(value / scale) in
    [-7, 7], stored + 7, two per byte (high nibble first). Returns ``(codes, scales)``."""
    flat = np.asarray(delta, dtype=np.float32).reshape(-1, group)
    scales = (np.abs(flat).max(axis=1) / 7).astype(np.float16)
    safe = np.where(scales == 0, 1, scales).astype(np.float32)[:, None]
    codes = (np.clip(np.rint(flat / safe), -7, 7) + 7).astype(np.uint8).ravel()
    return (codes[0::2] << 4 | codes[1::2]).astype(np.uint8), scales


def dequantize_delta(codes: np.ndarray, scales: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The float32 delta of :func:`quantize_delta`'s ``(codes, scales)``, reshaped to ``shape``."""
    nibbles = np.empty(codes.size * 2, dtype=np.float32)
    nibbles[0::2], nibbles[1::2] = codes >> 4, codes & 15
    values = (nibbles - 7).reshape(len(scales), -1) * scales.astype(np.float32)[:, None]
    return values.reshape(shape)


def quantized_state(state: dict[str, np.ndarray], group: int = Q4_GROUP) -> dict[str, np.ndarray]:
    """``state`` with every dense delta of a weight matrix replaced by its 4-bit form; vectors
    (biases, LayerNorms) stay float16 deltas."""
    out: dict[str, np.ndarray] = {}
    for key, value in state.items():
        if key.startswith(DELTA_PREFIX) and value.ndim == 2 and value.size % group == 0:
            name = key[len(DELTA_PREFIX):]
            out[f"{Q4_PREFIX}{name}.codes"], out[f"{Q4_PREFIX}{name}.scale"] = quantize_delta(value, group)
        else:
            out[key] = value.astype(np.float16) if key.startswith(DELTA_PREFIX) else value
    return out


#: what may follow a sentence's final punctuation (closing quotes and brackets)
CLOSING_MARKS = "\"')]}\u00bb\u201d\u2019"


def with_end_punctuation(text: str) -> str:
    """``text`` with a full stop added when it does not end in sentence-final punctuation
    (. ! ? … and their full-width forms, possibly followed by closing quotes or brackets);
    trailing whitespace dropped; an empty text stays empty.

    >>> with_end_punctuation("the cat sat on the mat "), with_end_punctuation('He said "hi!"')
    ('the cat sat on the mat.', 'He said "hi!"')
    """
    text = text.rstrip()
    core = text.rstrip(CLOSING_MARKS)
    return text if not core or core[-1] in SENTENCE_ENDS else text + "."


def member_states(data: Any) -> list[dict[str, np.ndarray]]:
    """The state of each member of a loaded head file: one for a single head, K for an
    ensemble (``members`` = K, keys under :data:`MEMBER_PREFIX`)."""
    prefixes = [MEMBER_PREFIX.format(k) for k in range(int(data["members"]))] if "members" in data.files else [""]
    return [{key[len(prefix):]: data[key] for key in data.files
             if key.startswith(prefix) and key[len(prefix):].startswith(STATE_PREFIXES)} for prefix in prefixes]


def read_head(weights: str | Path, option: str = "grammar_model") -> tuple[list[dict[str, np.ndarray]], float,
                                                                          dict[str, Any], Path]:
    """``(member states, LoRA scale, metrics, path)`` of a ``.npz`` head file, read as the file
    of ``option`` (:mod:`nlgmetrics.core.option_files`: a regular file within the size cap, no
    pickled objects, every number finite); each problem is one ``ValueError`` naming it."""
    where = f"{option}={str(weights)!r}"
    file = read_option_file(weights, option, shipped=True, max_bytes=MAX_OPTION_BYTES)
    if file.data[:4] not in (b"PK\x03\x04", b"PK\x05\x06"):  # a zip archive (an empty one too)
        raise OptionFileError(f"{where}: not a .npz archive (a .npz grammar head is a zip archive written by "
                              "python shared/tools/training/rome_grammar.py)")
    try:
        with np.load(io.BytesIO(file.data), allow_pickle=False) as data:
            if "lora_scale" not in data and "tuned_layers" not in data:
                raise OptionFileError(f"{where}: not a tuned grammar head (no lora_scale); retrain it with "
                                      "python shared/tools/training/rome_grammar.py")
            states = member_states(data)
            scale = float(data["lora_scale"]) if "lora_scale" in data else 0.0
            metrics = structured.parse_json(str(data["metrics"]), f"{where}: metrics") if "metrics" in data else {}
    except OptionFileError:
        raise
    except (KeyError, TypeError, ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
        why = "it holds pickled Python objects, which are never loaded" if "pickle" in str(err) else str(err)[:80]
        raise OptionFileError(f"{where}: not a readable .npz grammar head ({why})") from None
    finite_numbers([scale, *(v for state in states for v in state.values())], where)
    return states, scale, metrics if isinstance(metrics, dict) else {}, file.path


class TunedGrammarHead:
    """The lite profile's CoLA classifier, loaded from a ``.npz`` written by
    ``python shared/tools/training/rome_grammar.py`` (factors and deltas against the packaged
    encoder, merged into its weights at load). An ensemble file holds several such heads: the
    probability is the sigmoid of their mean logit (the decision threshold is folded into
    every member's bias, so P > 0.5 is the decision either way)."""

    def __init__(self, weights: str | Path, *, device: Any = "auto", dtype: Any = "fp32",
                 batch_size: int = 32, max_length: int = 256, encoder_path: str | None = None) -> None:
        states, scale, self.metrics, path = read_head(weights)
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.models = []
        for state in states:
            model = TunedHeadModel.pretrained(encoder_path)
            model.merge(state, scale)
            model.eval()
            model.to(device=self.device, dtype=self.dtype)
            make_resident(model)
            self.models.append(model)
        self.tokenizer = self.models[0].tokenizer
        self.batch_size = batch_size  # not the passes' shape: see _batched_probabilities
        self.max_length = max_length
        self.name = path.name

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        def forward(enc: dict[str, Any]) -> Any:
            enc = {k: v.to(self.device) for k, v in enc.items()}
            return torch.sigmoid(torch.stack([m.classify(enc).float() for m in self.models]).mean(0))

        return _batched_probabilities(texts, self.tokenizer, forward, self.max_length)


class CoLAClassifier:
    """A sequence classifier fine-tuned on CoLA (hub id or local directory); P(acceptable) is
    the softmax of the label named acceptable in the config, else of ``label``."""

    def __init__(self, model: str, *, device: Any = "auto", dtype: Any = "fp32", batch_size: int = 32,
                 max_length: int = 256, label: int | None = None) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        hint = "profile='lite' (the project's CoLA head)"
        self.tokenizer = load_pretrained(AutoTokenizer, model, what="CoLA classifier tokenizer", lite_hint=hint)
        self.model = load_pretrained(AutoModelForSequenceClassification, model, what="CoLA classifier",
                                     device=self.device, dtype=self.dtype, lite_hint=hint)
        make_resident(self.model)
        self.label = self._acceptable_label() if label is None else int(label)
        self.batch_size = batch_size  # not the passes' shape: see _batched_probabilities
        self.max_length = max_length
        self.name = str(model)

    def _acceptable_label(self) -> int:
        names = {int(k): str(v).lower() for k, v in (self.model.config.id2label or {}).items()}
        for index, name in names.items():
            if name in ("acceptable", "grammatical", "correct"):
                return index
        return 1  # CoLA's convention: label 1 = acceptable

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        def forward(enc: dict[str, Any]) -> Any:
            logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float()
            return torch.softmax(logits, dim=-1)[:, self.label]

        return _batched_probabilities(texts, self.tokenizer, forward, self.max_length)


def load_grammar(name: str, *, device: Any, dtype: Any, batch_size: int,
                 label: int | None = None) -> TunedGrammarHead | CoLAClassifier:
    """A ``.npz`` tuned head or a sequence classifier (hub id or directory)."""
    if str(name).endswith(".npz"):
        return TunedGrammarHead(name, device=device, dtype=dtype, batch_size=batch_size)
    return CoLAClassifier(name, device=device, dtype=dtype, batch_size=batch_size, label=label)

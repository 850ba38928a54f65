"""RoMe's F_grammar: P(hypothesis is grammatically acceptable) from a CoLA classifier.

- :class:`TunedGrammarHead` (lite profile): all-MiniLM-L6-v2 with its top layers fine-tuned on
  CoLA's train split and a linear classifier on the masked mean of the last layer; shipped as
  float16 deltas against the packaged encoder (``python -m nlgmetrics.training.rome_grammar``).
- :class:`CoLAClassifier` (paper profile): any sequence classifier fine-tuned on CoLA (hub id
  or local directory), e.g. ``textattack/bert-base-uncased-CoLA`` (BERT-base, as the paper).

Both compute probabilities on batch-independent shapes: a text's probability does not depend
on the other texts of the call (shards, ranks).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.embeddings import make_resident
from ..core.models import (
    fixed_shape_batches,
    lite_encoder_path,
    load_pretrained,
    resolve_device,
    resolve_dtype,
)
from ..core.resources import data_path

DELTA_PREFIX = "delta."
HEAD_PREFIX = "head."


def masked_mean(states: Any, mask: Any) -> Any:
    """Mean of the token states under the attention mask: (batch, tokens, dim) -> (batch, dim)."""
    weights = mask.unsqueeze(-1).to(states.dtype)
    return (states * weights).sum(1) / weights.sum(1).clamp(min=1.0)


def _batched_probabilities(texts: Sequence[str], tokenizer: Any, forward: Callable[[dict[str, Any]], Any],
                           batch_size: int, max_length: int) -> np.ndarray:
    """P(acceptable) per text from ``forward(encoding) -> probabilities`` on fixed shapes."""
    import torch

    probs = np.zeros(len(texts))
    if not len(texts):
        return probs
    lengths = [min(len(ids), max_length) for ids in tokenizer(list(texts))["input_ids"]]
    with torch.inference_mode():
        for chunk, rows, width in fixed_shape_batches(range(len(texts)), lengths.__getitem__, batch_size,
                                                      8, max_length):
            enc = tokenizer([texts[k] for k in rows], padding="max_length", truncation=True,
                            max_length=width, return_tensors="pt")
            probs[chunk] = forward(enc)[:len(chunk)].float().cpu().numpy()
    return probs


def _torch_module() -> Any:
    import torch

    return torch.nn.Module


class TunedHeadModel(_torch_module()):  # type: ignore[misc]
    """all-MiniLM-L6-v2 + a linear head on the masked mean of the last layer; only the top
    ``tuned_layers`` transformer layers and the head are trainable."""

    def __init__(self, encoder: Any, tokenizer: Any, tuned_layers: int) -> None:
        import torch

        super().__init__()
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.tuned_layers = int(tuned_layers)
        self.head = torch.nn.Linear(encoder.config.hidden_size, 1)
        n = encoder.config.num_hidden_layers
        self.tuned_prefixes = tuple(f"encoder.layer.{i}." for i in range(n - self.tuned_layers, n))
        self._base = {k: v.detach().clone() for k, v in encoder.named_parameters() if k.startswith(self.tuned_prefixes)}
        for name, param in encoder.named_parameters():
            param.requires_grad = name.startswith(self.tuned_prefixes)

    @classmethod
    def pretrained(cls, tuned_layers: int, path: str | None = None) -> TunedHeadModel:
        """The packaged encoder (or ``path``) with a fresh head (seeded by the caller)."""
        from transformers import AutoModel, AutoTokenizer

        path = path or lite_encoder_path()
        encoder = AutoModel.from_pretrained(path, attn_implementation="eager")
        return cls(encoder, AutoTokenizer.from_pretrained(path), tuned_layers)

    def tuned_parameters(self) -> list[Any]:
        return [p for n, p in self.encoder.named_parameters() if n.startswith(self.tuned_prefixes)]

    def classify(self, enc: dict[str, Any]) -> Any:
        """Logits (batch,) of acceptability."""
        out = self.encoder(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                           token_type_ids=enc.get("token_type_ids"))
        return self.head(masked_mean(out.last_hidden_state, enc["attention_mask"]))[:, 0]

    def load_deltas(self, state: dict[str, np.ndarray]) -> None:
        """Apply a :func:`delta_state` (float16 deltas, float32 head)."""
        import torch

        params = dict(self.encoder.named_parameters())
        with torch.no_grad():
            for key, value in state.items():
                if key.startswith(DELTA_PREFIX):
                    name = key[len(DELTA_PREFIX):]
                    params[name].copy_(self._base[name] + torch.from_numpy(value.astype(np.float32)))
                elif key.startswith(HEAD_PREFIX):
                    getattr(self.head, key[len(HEAD_PREFIX):]).copy_(torch.from_numpy(value.astype(np.float32)))


def delta_state(model: TunedHeadModel) -> dict[str, np.ndarray]:
    """The shipped form of a tuned model: float16 (tuned - packaged) per tuned parameter, the
    float32 head."""
    out = {}
    for name, param in model.encoder.named_parameters():
        if name in model._base:
            out[DELTA_PREFIX + name] = (param.detach() - model._base[name]).numpy().astype(np.float16)
    for name, param in model.head.named_parameters():
        out[HEAD_PREFIX + name] = param.detach().numpy().astype(np.float32)
    return out


class TunedGrammarHead:
    """The lite profile's CoLA classifier, loaded from a ``.npz`` written by
    ``python -m nlgmetrics.training.rome_grammar`` (deltas against ``encoder`` in the file)."""

    def __init__(self, weights: str | Path, *, device: Any = "auto", dtype: Any = "fp32",
                 batch_size: int = 32, max_length: int = 256, encoder_path: str | None = None) -> None:
        path = Path(weights) if Path(weights).exists() else data_path(str(weights))
        with np.load(path) as data:
            if "tuned_layers" not in data:
                raise ValueError(f"{path} is not a tuned grammar head (no tuned_layers); retrain it with "
                                 "python -m nlgmetrics.training.rome_grammar")
            state = {k: data[k] for k in data.files if k.startswith((DELTA_PREFIX, HEAD_PREFIX))}
            tuned = int(data["tuned_layers"])
            self.metrics = json.loads(str(data["metrics"]))
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.model = TunedHeadModel.pretrained(tuned, encoder_path)
        self.model.load_deltas(state)
        self.model.eval()
        self.model.to(device=self.device, dtype=self.dtype)
        make_resident(self.model)
        self.tokenizer = self.model.tokenizer
        self.batch_size = batch_size
        self.max_length = max_length
        self.name = path.name

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        def forward(enc: dict[str, Any]) -> Any:
            return torch.sigmoid(self.model.classify({k: v.to(self.device) for k, v in enc.items()}).float())

        return _batched_probabilities(texts, self.tokenizer, forward, self.batch_size, self.max_length)


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
        self.batch_size = batch_size
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

        return _batched_probabilities(texts, self.tokenizer, forward, self.batch_size, self.max_length)


def load_grammar(name: str, *, device: Any, dtype: Any, batch_size: int,
                 label: int | None = None) -> TunedGrammarHead | CoLAClassifier:
    """A ``.npz`` tuned head or a sequence classifier (hub id or directory)."""
    if str(name).endswith(".npz"):
        return TunedGrammarHead(name, device=device, dtype=dtype, batch_size=batch_size)
    return CoLAClassifier(name, device=device, dtype=dtype, batch_size=batch_size, label=label)

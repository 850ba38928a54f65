"""Conditional log-likelihood scoring and translation with a multilingual seq2seq model
(M2M-100 and compatible checkpoints), organised so that repeated work is done once.

(About 440 lines, over the package's 350: :class:`Seq2SeqLM` is one object whose encoding,
decoding and generation share its padding and batching rules; the translation cache beside it is
the part that could move to a module of its own.)

Sequences use the M2M-100 layout on both sides: ``[__lang__] tokens </s>``. Scoring a target
``Y`` given a source ``X`` feeds ``</s> [__lang__] tokens`` to the decoder (the labels shifted
right); the forced language token at label position 0 is given, not scored, and ``</s>`` is
scored.

Efficiency (the costs that dominate reference-and-source metrics such as DATScore):

- :meth:`Seq2SeqLM.score_pairs` deduplicates (source, target) pairs, runs the encoder once per
  unique source sequence (so one encoder pass of a hypothesis serves every direction that
  starts from it, and a reference shared by many systems is encoded once), and batches the
  decoder passes sorted by length.
- Scores do not depend on the batch size. Padding is masked on both sides, but masked
  positions still change the shapes of the kernels and so the float rounding (about 1e-6 on a
  log-probability); to avoid that, every sequence is padded to a width that depends only on its
  own length (the next multiple of ``pad_multiple``) and a batch only holds sequences of one
  width (pairs: one target width and one source width). The vocabulary projection runs on
  the unpadded positions only, in bounded row chunks. In fp32 on CPU this gives bit-identical
  scores for any batch size in our tests.
- :meth:`Seq2SeqLM.translate` translates each unique text once per configuration and keeps the
  result in memory (a bounded LRU cache) and, with ``cache_dir``, in an sqlite file, so
  re-scoring is free. Generation runs in full batches of ``batch_size`` texts sorted by length,
  each padded to its longest text (width buckets would split a small corpus into many small
  generation batches, slower than the straightforward loop). The encoder states fed to
  generation are computed as for scoring (width-bucketed, so batch-independent) and kept in a
  bounded cache: a source or reference that is translated and then scored (DATScore's Src ->
  X and Ref -> X directions) is encoded once. Scores of given texts stay batch-independent. A translation
  that stops at the generation limit (no ``</s>``) is counted and warned about.
"""
from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import (
    Any,
)

import torch
from transformers.modeling_outputs import BaseModelOutput

from nlgmetrics.core.batching import OOMBackoff, plan_batches
from nlgmetrics.core.cache import LRUCache
from nlgmetrics.core.models import dtype_name, load_pretrained, padded_width, resolve_device, resolve_dtype, tokenize
from nlgmetrics.core.progress import progress
from nlgmetrics.datscore.translations import TOKEN_WEIGHTINGS, TokenScores, TranslationCache  # noqa: F401 (re-exported)

#: token ids of one sequence, language token and </s> included
Ids = tuple[int, ...]



class Seq2SeqLM:
    """An M2M-100-compatible model and tokenizer with batched, deduplicated scoring and
    cached translation.

    ``model`` is a hub id or a local directory; ``max_length`` caps every sequence (language
    token and ``</s>`` included; longer texts are truncated with a warning);
    ``batch_size`` counts sequences per forward pass; ``pad_multiple`` is the padding
    quantum that makes scores independent of the batching (1 = pad to exact lengths, less
    padding, batches of equal lengths only); ``encoder_cache_tokens`` bounds the encoder
    states held at once; ``cache_entries`` bounds the in-memory caches of tokenised texts and
    of translations (least recently used first out). ``batch_tokens`` (None: batches of
    ``batch_size``) fills each batch up to that many padded tokens instead, longest first
    (scoring: rows x (target + source width); generation: rows x beam x source width).

    On CPU a scoring batch holds one padded width (batch-independent scores); on a GPU
    (``exact_shapes`` False) batches are sorted by length and padded to their longest row.
    On a CUDA out-of-memory error a batch is retried in halves, with a warning.
    """

    def __init__(self, model: str = "facebook/m2m100_418M", *, device: str | torch.device = "auto",
                 dtype: str | torch.dtype | None = "fp32", batch_size: int = 8,
                 max_length: int = 1024, cache_dir: str | Path | None = None,
                 pad_multiple: int = 8, encoder_cache_tokens: int = 65536, cache_entries: int = 100_000,
                 quiet: bool = False, batch_tokens: int | None = None) -> None:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model_name = str(model)
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.tokenizer = load_pretrained(AutoTokenizer, self.model_name, what="seq2seq tokenizer")
        self.model = load_pretrained(AutoModelForSeq2SeqLM, self.model_name, what="seq2seq model",
                                     device=self.device, dtype=self.dtype)
        self.languages: dict[str, int] = dict(getattr(self.tokenizer, "lang_code_to_id", {}) or {})
        if not self.languages:
            raise ValueError(f"the tokenizer of {self.model_name!r} has no language codes; an "
                             "M2M-100-compatible checkpoint is needed")
        limit = int(getattr(self.model.config, "max_position_embeddings", max_length) or max_length)
        if max_length < 3:
            raise ValueError(f"max_length must be >= 3 (language token, one token, </s>), got {max_length}")
        self.max_length = min(int(max_length), limit)
        self.batch_size = int(batch_size)
        if batch_tokens is not None and batch_tokens < 1:
            raise ValueError(f"batch_tokens must be >= 1 or None, got {batch_tokens}")
        self.batch_tokens = None if batch_tokens is None else int(batch_tokens)
        self.exact_shapes = self.device.type == "cpu"
        self._backoff = {what: OOMBackoff(what) for what in ("encoder batch", "decoder batch", "generation batch")}
        if pad_multiple < 1:
            raise ValueError(f"pad_multiple must be >= 1, got {pad_multiple}")
        self.pad_multiple = int(pad_multiple)
        self.encoder_cache_tokens = int(encoder_cache_tokens)
        self.quiet = quiet
        self.cache = TranslationCache(cache_dir, max_entries=cache_entries)
        self._content: LRUCache[str, list[int]] = LRUCache(cache_entries, 64 * 2**20)
        config = self.model.config
        # encoder states of the texts just translated, for the scoring that follows (bounded
        # like one scoring group: encoder_cache_tokens tokens; emptied by score_pairs)
        d_model = int(getattr(config, "d_model", 0) or getattr(config, "hidden_size", 1024))
        self._states: LRUCache[Ids, torch.Tensor] = LRUCache(
            cache_entries, max(1, self.encoder_cache_tokens) * d_model * torch.finfo(self.dtype).bits // 8)
        self.eos_id = int(self.tokenizer.eos_token_id)
        self.pad_id = int(self.tokenizer.pad_token_id)
        self.decoder_start_id = int(config.decoder_start_token_id if config.decoder_start_token_id is not None
                                    else self.eos_id)
        self._skip_ids = set(self.languages.values()) | set(self.tokenizer.all_special_ids)
        self.identity = f"{self.model_name}#{self._fingerprint()}/{dtype_name(self.dtype)}"

    def _fingerprint(self) -> str:
        """A short hash of the config and a slice of the weights, so the disk cache never
        serves translations made by a different checkpoint saved at the same path."""
        digest = hashlib.sha1(self.model.config.to_json_string(use_diff=False).encode("utf-8"))
        weight = self.model.get_input_embeddings().weight
        digest.update(weight[: min(8, weight.shape[0])].detach().float().cpu().numpy().tobytes())
        return digest.hexdigest()[:12]

    def describe(self) -> str:
        return f"{self.model_name}/{dtype_name(self.dtype)}"

    # -- tokenisation ------------------------------------------------------------------
    def check_language(self, lang: str) -> int:
        """The language token id of ``lang``; ``ValueError`` for an unknown code."""
        if lang not in self.languages:
            raise ValueError(f"language {lang!r} is not known to {self.model_name!r}; "
                             f"choose one of: {', '.join(sorted(self.languages))}")
        return self.languages[lang]

    def sequences(self, texts: Sequence[str], lang: str, cut: set[int] | None = None) -> list[Ids]:
        """``[__lang__] tokens </s>`` for each text (the same layout serves as encoder input
        and as decoder labels), truncated to ``max_length`` with a warning (the positions of
        the cut texts are added to ``cut`` when given). A text is always text: a special
        token's spelling in it (``</s>``, ``<pad>``, ``__en__``) is split into ordinary
        pieces, never turned into that control id."""
        lang_id = self.check_language(lang)
        contents = self._content.get_many(
            texts, lambda new: list(tokenize(self.tokenizer, new, add_special_tokens=False,
                                             split_special_tokens=True)["input_ids"]))
        room = self.max_length - 2
        out: list[Ids] = []
        truncated = 0
        for i, content in enumerate(contents):
            if len(content) > room:
                truncated += 1
                content = content[:room]
                if cut is not None:
                    cut.add(i)
            out.append((lang_id, *content, self.eos_id))
        if truncated:
            warnings.warn(f"{truncated} of {len(texts)} texts are longer than max_length={self.max_length} "
                          "tokens and were truncated", stacklevel=2)
        return out

    # -- scoring -----------------------------------------------------------------------
    def width(self, length: int) -> int:
        """The padded width of a sequence of ``length`` tokens (see
        :func:`~nlgmetrics.core.models.padded_width`)."""
        return padded_width(length, self.pad_multiple, self.max_length)

    def _bucketed(self, items: Sequence, widths: Callable[[Any], tuple[int, ...]],
                  lengths: Callable[[Any], tuple[int, ...]]) -> list[list]:
        """Batches by :func:`~nlgmetrics.core.batching.plan_batches`: of one padded width
        (``widths``) on CPU, else padded to the longest row (``lengths``)."""
        if self.exact_shapes:
            return plan_batches(items, widths, self.batch_size, self.batch_tokens, order=lengths)
        return plan_batches(items, lambda x: tuple(map(self.width, lengths(x))), self.batch_size,
                            self.batch_tokens, one_shape=False, order=lengths)

    def _pad(self, seqs: Sequence[Sequence[int]], width: int) -> tuple[torch.Tensor, torch.Tensor]:
        ids = torch.full((len(seqs), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for row, seq in enumerate(seqs):
            ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[row, :len(seq)] = 1
        return ids.to(self.device), mask.to(self.device)

    def _encode(self, sources: Sequence[Ids]) -> dict[Ids, torch.Tensor]:
        """Encoder states (length x d) of each source, in length-sorted batches."""
        encoder = self.model.get_encoder()

        def run(chunk: list[Ids]) -> list[torch.Tensor]:
            ids, mask = self._pad(chunk, max(self.width(len(s)) for s in chunk))
            hidden = encoder(input_ids=ids, attention_mask=mask).last_hidden_state
            return [hidden[row, :len(seq)] for row, seq in enumerate(chunk)]

        states: dict[Ids, torch.Tensor] = {}
        for chunk in self._bucketed(sources, lambda s: (self.width(len(s)),), lambda s: (len(s),)):
            states.update(zip(chunk, self._backoff["encoder batch"].run(run, chunk)))
        return states

    def _states_for(self, sources: Sequence[Ids], keep: bool = False) -> dict[Ids, torch.Tensor]:
        """Encoder states of each source: those kept from an earlier call, the rest encoded
        (and kept, when ``keep``). The same states serve generation and scoring, so a source
        that is translated and then scored is encoded once."""
        states: dict[Ids, torch.Tensor] = {}
        missing = []
        for seq in dict.fromkeys(sources):
            kept = self._states.get(seq)
            if kept is None:
                missing.append(seq)
            else:
                states[seq] = kept
        if missing:
            new = self._encode(missing)
            if keep:
                for seq, state in new.items():
                    new[seq] = state.clone()  # not a view holding its whole batch
                    self._states[seq] = new[seq]
            states.update(new)
        return states

    def _decode(self, pairs: Sequence[tuple[Ids, Ids]], states: dict[Ids, torch.Tensor]) -> list[TokenScores]:
        """Token log-probabilities and entropies of each pair's target given its source."""
        enc, enc_mask = self._stack_states([states[src] for src, _ in pairs])
        targets = [tgt for _, tgt in pairs]
        dec_ids, dec_mask = self._pad([(self.decoder_start_id, *tgt[:-1]) for tgt in targets],
                                      max(self.width(len(t)) for t in targets))
        hidden = self.model.get_decoder()(input_ids=dec_ids, attention_mask=dec_mask, encoder_hidden_states=enc,
                                          encoder_attention_mask=enc_mask).last_hidden_state
        # label position 0 (the forced language token) is given, not scored; rows, columns and
        # labels of the scored positions go to the device in one copy
        index = torch.tensor([[r, c, tok] for r, t in enumerate(targets) for c, tok in enumerate(t) if c],
                             dtype=torch.long).to(self.device)
        scored = self._token_scores(hidden[index[:, 0], index[:, 1]], index[:, 2]).cpu().numpy()  # one host copy
        out, start = [], 0
        for tgt in targets:
            stop = start + len(tgt) - 1
            out.append(TokenScores(scored[0, start:stop].copy(), scored[1, start:stop].copy()))
            start = stop
        return out

    def _stack_states(self, sources: Sequence[torch.Tensor], width: int | None = None
                      ) -> tuple[torch.Tensor, torch.Tensor]:
        """Encoder states zero-padded into one batch (to ``width``, default: the padded width of
        the longest) with their attention mask, assembled on the device."""
        lengths = [int(s.shape[0]) for s in sources]
        width = width or max(self.width(n) for n in lengths)
        enc = torch.nn.utils.rnn.pad_sequence(list(sources), batch_first=True)
        if enc.shape[1] < width:
            enc = torch.nn.functional.pad(enc, (0, 0, 0, width - enc.shape[1]))
        mask = (torch.arange(width)[None, :] < torch.tensor(lengths)[:, None]).long().to(self.device)
        return enc, mask

    def _token_scores(self, hidden: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """log P(label) and the entropy (fp32) of the output distribution for each decoder
        state (a 2 x n tensor on the device), projected onto the vocabulary in row chunks of about 64M logits (a 128k
        vocabulary holds 512 rows per chunk). Chunks are zero-padded to a multiple of 8 rows
        so that a single scored token does not take BLAS's matrix-vector path, whose
        rounding differs."""
        head = self.model.get_output_embeddings()
        bias = getattr(self.model, "final_logits_bias", None)
        step = max(8, (2 ** 26 // head.weight.shape[0]) // 8 * 8)
        logps, entropies = [], []
        for start in range(0, hidden.shape[0], step):
            rows = hidden[start:start + step]
            n = rows.shape[0]
            if n % 8:
                rows = torch.cat([rows, rows.new_zeros(((-n) % 8, rows.shape[1]))])
            logits = head(rows)[:n]
            if bias is not None:
                logits = logits + bias[0]
            logp = torch.log_softmax(logits.float(), dim=-1)
            logps.append(logp.gather(1, labels[start:start + n, None])[:, 0])
            entropies.append(-(logp.exp() * logp).sum(-1))
        return torch.stack([torch.cat(logps), torch.cat(entropies)])

    def score_pairs(self, pairs: Sequence[tuple[Ids, Ids]], desc: str = "scoring") -> list[TokenScores]:
        """:class:`TokenScores` of each (source ids, target ids) pair, in order.

        Duplicate pairs are scored once; each unique source is encoded once; sources are
        processed in groups of at most ``encoder_cache_tokens`` tokens (bounding the memory
        held by encoder states); decoder batches hold pairs of one (target, source) width.
        """
        unique = list(dict.fromkeys(pairs))
        by_source: dict[Ids, list[tuple[Ids, Ids]]] = {}
        for pair in unique:
            by_source.setdefault(pair[0], []).append(pair)
        plan = []
        for group in self._groups(sorted(by_source, key=len, reverse=True)):
            todo = [p for s in group for p in by_source[s]]
            plan.append((group, self._bucketed(todo, lambda p: (self.width(len(p[1])), self.width(len(p[0]))),
                                               lambda p: (len(p[1]), len(p[0])))))
        decode = self._backoff["decoder batch"]
        n_batches = sum(len(chunks) for _, chunks in plan)
        ticks = iter(progress(range(n_batches), total=n_batches, desc=desc, quiet=self.quiet))
        done: dict[tuple[Ids, Ids], TokenScores] = {}
        with torch.inference_mode():
            for group, chunks in plan:
                states = self._states_for(group)
                for chunk in chunks:
                    done.update(zip(chunk, decode.run(partial(self._decode, states=states), chunk)))
                    next(ticks, None)
                del states
        self._states.clear()  # kept for this scoring only: memory back to the model's after it
        return [done[pair] for pair in pairs]

    def _groups(self, sources: list[Ids]) -> Iterable[list[Ids]]:
        group: list[Ids] = []
        size = 0
        for seq in sources:
            if group and size + len(seq) > self.encoder_cache_tokens:
                yield group
                group, size = [], 0
            group.append(seq)
            size += len(seq)
        if group:
            yield group

    # -- translation -------------------------------------------------------------------
    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str, *, beam_size: int = 5,
                  max_new_tokens: int | None = None, desc: str = "translating") -> list[str]:
        """Translate ``texts`` from ``src_lang`` into ``tgt_lang`` (beam search, the target
        language token forced first). Each unique text is translated once; results are cached
        in memory and on disk. An empty (or whitespace-only) text translates to ``""``.
        ``max_new_tokens`` ``None`` uses the model's generation config (M2M-100: max length 200)."""
        self.check_language(src_lang)
        forced = self.check_language(tgt_lang)
        unique = list(dict.fromkeys(texts))
        keys = {t: self.cache.key(self.identity, src_lang, tgt_lang, beam_size, max_new_tokens, self.max_length, t)
                for t in unique}
        found = self.cache.get_many(list(keys.values()))
        result = {t: found[keys[t]] for t in unique if keys[t] in found}
        todo = [t for t in unique if t not in result]
        for text in [t for t in todo if not t.strip()]:
            result[text] = ""
        todo = [t for t in todo if t.strip()]
        if todo:
            seqs = self.sequences(todo, src_lang)
            options = {"num_beams": beam_size, "forced_bos_token_id": forced,
                       "decoder_start_token_id": self.decoder_start_id}
            if max_new_tokens is not None:
                options["max_new_tokens"] = max_new_tokens
            # full batches (of batch_size texts, or of batch_tokens / beam_size source tokens), longest
            # first, each padded to its longest text (see the module docstring)
            budget = None if self.batch_tokens is None else max(1, self.batch_tokens // beam_size)
            chunks = plan_batches(range(len(todo)), lambda i: (len(seqs[i]),), self.batch_size, budget,
                                  one_shape=False)
            generate = self._backoff["generation batch"]

            def run(chunk: list[int]) -> list[list[int]]:
                states = self._states_for([seqs[i] for i in chunk], keep=True)
                enc, mask = self._stack_states([states[seqs[i]] for i in chunk], len(seqs[chunk[0]]))
                return self.model.generate(encoder_outputs=BaseModelOutput(last_hidden_state=enc),
                                           attention_mask=mask, **options).tolist()

            cut = 0
            with torch.inference_mode():
                for chunk in progress(chunks, desc=desc, quiet=self.quiet):
                    made = {}
                    for i, row in zip(chunk, generate.run(run, chunk)):
                        cut += self.eos_id not in row[1:]  # row[0] is the decoder start token
                        made[keys[todo[i]]] = self.tokenizer.decode(
                            [tok for tok in row if tok not in self._skip_ids]).strip()
                        result[todo[i]] = made[keys[todo[i]]]
                    self.cache.put_many(made)
            if cut:
                limit = (f"max_new_tokens={max_new_tokens}" if max_new_tokens is not None else
                         f"the model's generation max_length={getattr(self.model.generation_config, 'max_length', '?')}")
                warnings.warn(f"{cut} of {len(todo)} translations {src_lang}->{tgt_lang} stopped at the generation "
                              f"limit ({limit}) without </s> and may be cut short; raise max_new_tokens",
                              stacklevel=2)
        return [result[t] for t in texts]

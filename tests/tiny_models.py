"""Tiny random seq2seq checkpoints built locally for tests and benchmarks (no hub access).

``build_tiny_m2m100(path)`` trains a small SentencePiece BPE model, wraps it in an
``M2M100Tokenizer`` (fairseq layout: ``<s> <pad> </s> <unk>``, the pieces, then the 100
language tokens) and saves a randomly initialised ``M2M100ForConditionalGeneration`` whose
vocabulary covers the language-token ids. The directory loads with ``from_pretrained`` like
``facebook/m2m100_418M`` does.
"""
from __future__ import annotations

import io
import json
import math
import os
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

#: default training text for the SentencePiece model: a few languages and scripts
DEFAULT_TEXTS = (
    "The cat sat on the mat and looked at the garden.",
    "A quick brown fox jumps over the lazy dog near the river bank.",
    "The government announced new measures to support small businesses.",
    "Scientists have discovered a new species of frog in the rainforest.",
    "The match was postponed because of heavy rain in the city.",
    "She reads a book every evening before going to sleep.",
    "Le chat est assis sur le tapis et regarde le jardin.",
    "Le gouvernement a annoncé de nouvelles mesures pour les petites entreprises.",
    "Des scientifiques ont découvert une nouvelle espèce de grenouille.",
    "Die Katze sitzt auf der Matte und schaut in den Garten.",
    "Die Regierung kündigte neue Maßnahmen für kleine Unternehmen an.",
    "El gato está sentado en la alfombra y mira el jardín.",
    "El gobierno anunció nuevas medidas para apoyar a las pequeñas empresas.",
    "Los científicos descubrieron una nueva especie de rana en la selva.",
    "Кошка сидит на коврике и смотрит в сад.",
    "猫坐在垫子上看着花园。",
)


def train_sentencepiece(texts: Iterable[str], vocab_size: int = 200, seed: int = 0) -> bytes:
    """A serialised SentencePiece BPE model trained on ``texts`` (vocabulary at most
    ``vocab_size``; smaller when the text is too small)."""
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(list(texts)), model_writer=model, vocab_size=vocab_size,
        model_type="bpe", character_coverage=1.0, hard_vocab_limit=False,
        unk_id=0, bos_id=-1, eos_id=-1, pad_id=-1, num_threads=1,
        minloglevel=2)
    return model.getvalue()


def build_tiny_m2m100(path: Union[str, os.PathLike], d_model: int = 16, layers: int = 1, *,
                      decoder_layers: Optional[int] = None, heads: int = 2,
                      ffn_dim: Optional[int] = None, vocab_size: int = 200,
                      max_position_embeddings: int = 128, init_std: Optional[float] = None,
                      texts: Optional[Sequence[str]] = None, seed: int = 0) -> str:
    """Save a random M2M-100 (model + tokenizer) to ``path`` and return it as a string.

    ``layers`` encoder layers (``decoder_layers`` defaults to the same), ``heads`` attention
    heads, ``ffn_dim`` (default ``4 * d_model``), ``vocab_size`` SentencePiece pieces trained
    on ``texts`` (default: a few sentences in six languages). ``init_std`` defaults to
    ``2 / sqrt(d_model)`` so that the output distributions are far from uniform (entropies
    differ between steps). Deterministic for a given ``seed``.
    """
    import sentencepiece as spm
    import torch
    from transformers import M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    spm_path = out / "sentencepiece.bpe.model"
    spm_path.write_bytes(train_sentencepiece(texts or DEFAULT_TEXTS, vocab_size, seed))

    processor = spm.SentencePieceProcessor(model_file=str(spm_path))
    encoder = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for piece_id in range(processor.get_piece_size()):
        if processor.is_unknown(piece_id) or processor.is_control(piece_id):
            continue
        encoder.setdefault(processor.id_to_piece(piece_id), len(encoder))
    vocab_path = out / "vocab.json"
    vocab_path.write_text(json.dumps(encoder, ensure_ascii=False, indent=1), encoding="utf-8")

    tokenizer = M2M100Tokenizer(str(vocab_path), str(spm_path), src_lang="en", tgt_lang="en",
                                model_max_length=max_position_embeddings)
    n_languages = len(tokenizer.lang_code_to_id)
    config = M2M100Config(
        vocab_size=len(encoder) + n_languages + tokenizer.num_madeup_words,
        d_model=d_model, encoder_layers=layers, decoder_layers=decoder_layers or layers,
        encoder_attention_heads=heads, decoder_attention_heads=heads,
        encoder_ffn_dim=ffn_dim or 4 * d_model, decoder_ffn_dim=ffn_dim or 4 * d_model,
        max_position_embeddings=max_position_embeddings,
        init_std=init_std if init_std is not None else 2.0 / math.sqrt(d_model),
        dropout=0.0, attention_dropout=0.0, encoder_layerdrop=0.0, decoder_layerdrop=0.0,
        pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2)
    torch.manual_seed(seed)
    model = M2M100ForConditionalGeneration(config).eval()
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return str(out)

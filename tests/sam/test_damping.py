"""SAM's p damping: p * min(1, k / n) for n unmatched items (all, or those with a polarity),
hand-computed values, k's edge cases, validation through the config, `off` = the paper's p,
and the adjusted score still never rising with p (hypothesis)."""
from __future__ import annotations

import pytest
from hypothesis import given as hgiven
from hypothesis import settings
from hypothesis import strategies as st

import nlgmetrics
from nlgmetrics.sam import SAM, SAMConfig, adjust, damp, damped_p, sentiment_adjustment, unmatched_count

LEX = {"terrible#a": -0.8, "great#a": 0.8, "happy#a": 0.5}
# one flipped word: 2 unmatched items (terrible / great), both with a polarity
FLIP = ("The film was terrible.", "The film was great.")
# a diffuse mismatch: hypothesis "terrible" + 4 neutral words, reference "great" + 4 other neutral words
DIFFUSE = ("Sadly the old car was terrible.", "Luckily this new bike was great.")
unit = st.floats(min_value=0.0, max_value=1.0)
counts = st.integers(min_value=0, max_value=200)
ks = st.floats(min_value=1e-3, max_value=100.0)


def given(**options) -> SAM:
    return nlgmetrics.load("sam", base="given", lexicon=LEX, **options)


def test_damp_hand_values_and_k_edges():
    assert damp(0.8, 10, 4.0) == pytest.approx(0.32)  # 0.8 * 4 / 10
    assert damp(0.8, 4, 4.0) == 0.8  # n = k: kept whole
    assert damp(0.8, 5, 4.0) == pytest.approx(0.64)
    assert damp(0.8, 0, 4.0) == 0.8  # no unmatched items (then p is 0 anyway)
    assert damp(0.6, 3, 0.5) == pytest.approx(0.1)  # k below 1 shrinks even a single item's p
    assert damp(0.6, 1, 0.5) == pytest.approx(0.3)
    assert damp(0.6, 3, 2.5) == pytest.approx(0.5)  # fractional k
    assert damp(0.6, 1000, 1e9) == 0.6  # huge k: the paper's p


def test_unmatched_count_variants():
    assert unmatched_count([0.0, -0.5, 0.0], [0.3], "items") == 4
    assert unmatched_count([0.0, -0.5, 0.0], [0.3], "polar") == 2
    assert unmatched_count([0.0, -0.5, 0.0], [0.3], "same-sign") == 4
    assert unmatched_count([], [], "items") == unmatched_count([], [], "polar") == 0
    with pytest.raises(ValueError, match="unknown damping 'words'"):
        unmatched_count([0.1], [], "words")


def test_damped_p_hand_values():
    hyp, ref = [0.0, 0.0, 0.0, -0.4], [0.0, 0.0, 0.6]  # S_h = -0.4, S_r = 0.6: opposite signs, p = 0.5
    assert damped_p(hyp, ref) == damped_p(hyp, ref, "off", 1.0) == pytest.approx(0.5)
    assert damped_p(hyp, ref, "items", 2.0) == pytest.approx(0.5 * 2 / 7)
    assert damped_p(hyp, ref, "polar", 2.0) == pytest.approx(0.5)  # 2 items with a polarity
    assert damped_p(hyp, ref, "polar", 1.0) == pytest.approx(0.25)
    assert damped_p(hyp, ref, "same-sign", 2.0) == pytest.approx(0.5)  # a flip: kept whole
    same = [0.0, 0.2, 0.0, 0.0], [0.0, 0.8, 0.0]  # S_h = 0.2, S_r = 0.8: a difference of degree, p = 0.3
    assert damped_p(*same, "same-sign", 2.0) == pytest.approx(0.3 * 2 / 7)
    assert damped_p(*same, "same-sign", 7.0) == pytest.approx(0.3)
    one_sided = [0.0, 0.0, 0.0], [0.0, 0.0, 0.9]  # sentiment on one side only: kept whole
    assert damped_p(*one_sided, "same-sign", 2.0) == pytest.approx(0.45)
    with pytest.raises(ValueError, match="unknown damping"):
        damped_p(hyp, ref, "sign", 2.0)


@settings(max_examples=200, deadline=None)
@hgiven(hyp=st.lists(st.floats(-1, 1), max_size=8), ref=st.lists(st.floats(-1, 1), max_size=8),
        damping=st.sampled_from(["items", "polar", "same-sign"]), k=ks)
def test_damped_p_never_exceeds_the_papers(hyp, ref, damping, k):
    p = sentiment_adjustment(hyp, ref)[2]
    assert 0.0 <= damped_p(hyp, ref, damping, k) <= p <= 1.0
    assert damped_p(hyp, ref, damping, 1e9) == p


@settings(max_examples=300, deadline=None)
@hgiven(p1=unit, p2=unit, n=counts, k=ks, base=st.floats(min_value=0.0, max_value=100.0))
def test_damped_score_never_rises_with_p(p1, p2, n, k, base):
    p1, p2 = min(p1, p2), max(p1, p2)
    d1, d2 = damp(p1, n, k), damp(p2, n, k)
    assert 0.0 <= d1 <= d2 <= p2 <= 1.0
    assert adjust(base, d2) <= adjust(base, d1) <= base


@settings(max_examples=300, deadline=None)
@hgiven(p=unit, n1=counts, n2=counts, k1=ks, k2=ks)
def test_damping_shrinks_with_n_and_relaxes_with_k(p, n1, n2, k1, k2):
    n1, n2, k1, k2 = min(n1, n2), max(n1, n2), min(k1, k2), max(k1, k2)
    assert damp(p, n2, k1) <= damp(p, n1, k1) <= p
    assert damp(p, n1, k1) <= damp(p, n1, k2) <= p


def test_off_is_the_papers_p_and_items_damps_a_diffuse_mismatch():
    hyps, refs = [FLIP[0], DIFFUSE[0]], [FLIP[1], DIFFUSE[1]]
    off = given(damping="off").score(hyps, refs, base_scores=[0.9, 0.9]).details
    items = given(damping="items", damping_k=4).score(hyps, refs, base_scores=[0.9, 0.9])
    # the flip: 2 unmatched items <= k, p = |-0.8 - 0.8| / 2 whole, with damping or without
    assert off[0]["p"] == off[0]["p_raw"] == items.details[0]["p"] == pytest.approx(0.8)
    mismatches = items.details[1]["mismatches"]
    assert [m["word"] for m in mismatches["hypothesis"]] == ["Sadly", "the", "old", "car", "terrible"]
    assert [m["word"] for m in mismatches["reference"]] == ["Luckily", "this", "new", "bike", "great"]
    assert off[1]["p"] == off[1]["p_raw"] == items.details[1]["p_raw"] == pytest.approx(0.8)
    assert items.details[1]["p"] == pytest.approx(0.8 * 4 / 10)
    assert items.scores == pytest.approx([0.9 * 0.2, 0.9 * (1 - 0.32)])
    # polar: only terrible and great carry a polarity, n = 2 <= 4: kept whole
    polar = given(damping="polar", damping_k=4).score(hyps, refs, base_scores=[0.9, 0.9]).details
    assert polar[1]["p"] == pytest.approx(0.8)
    polar1 = given(damping="polar", damping_k=1).score(hyps, refs, base_scores=[0.9, 0.9]).details
    assert polar1[1]["p"] == pytest.approx(0.4)
    # same-sign: terrible vs great have opposite signs, kept whole even with k = 1
    same_sign = given(damping="same-sign", damping_k=1).score(hyps, refs, base_scores=[0.9, 0.9]).details
    assert [d["p"] for d in same_sign] == pytest.approx([0.8, 0.8])
    degree = given(damping="same-sign", damping_k=2).score([DIFFUSE[0].replace("terrible", "happy")], [DIFFUSE[1]],
                                                             base_scores=[0.9]).details[0]
    assert degree["p_raw"] == pytest.approx(abs(0.5 - 0.8) / 2)  # happy 0.5 vs great 0.8, same sign
    assert degree["p"] == pytest.approx(0.15 * 2 / 10)


def test_default_is_the_papers_p():
    assert SAMConfig().damping == "off" and SAMConfig().damping_k == 2.0


def test_options_are_validated_through_the_config():
    for bad in (0, -1, float("nan"), float("inf"), "4", True):
        with pytest.raises(ValueError, match="damping_k"):
            SAMConfig(damping="items", damping_k=bad)
    with pytest.raises(ValueError, match="unknown damping 'log'"):
        SAMConfig(damping="log")
    assert SAMConfig(damping="items", damping_k=3).damping_k == 3.0
    assert SAMConfig.parse_options({"damping": "polar", "damping_k": "2.5"}) == {"damping": "polar", "damping_k": 2.5}


def test_signature_names_the_damping():
    sam = given(damping="items", damping_k=6)
    signature = sam.score([FLIP[0]], [FLIP[1]], base_scores=[0.5]).signature
    assert "damp:items" in signature and "|k:6|" in signature
    default = given(damping="off").score([FLIP[0]], [FLIP[1]], base_scores=[0.5]).signature
    assert "damp:" not in default and "|k:" not in default  # the default (the paper's p) is implied

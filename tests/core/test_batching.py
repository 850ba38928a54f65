"""core.batching: the batched greedy matching equals the per-pair one; batch plans by count and
by token budget; the out-of-memory back-off."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.core.batching import OOMBackoff, greedy_match_batched, is_out_of_memory, plan_batches
from nlgmetrics.core.embeddings import _greedy


@st.composite
def matching_cases(draw):
    """Random pairs of token-vector arrays (some empty, some with zero or negative vectors),
    with random positive or uniform weights."""
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(1, 12))
    dim = draw(st.integers(1, 9))
    cands, refs, wcs, wrs = [], [], [], []
    for _ in range(n):
        lc, lr = (draw(st.integers(0, 7)) for _ in range(2))
        cands.append(rng.normal(size=(lc, dim)).astype(np.float32))
        refs.append(rng.normal(size=(lr, dim)).astype(np.float32))
        if lc and rng.random() < 0.2:
            cands[-1][0] = 0.0  # a zero vector: norm clamped, cosine 0
        uniform = draw(st.booleans())
        wcs.append(np.ones(lc) if uniform else rng.uniform(0.0, 3.0, lc))
        wrs.append(np.ones(lr) if uniform else rng.uniform(0.0, 3.0, lr))
    return cands, refs, wcs, wrs, draw(st.integers(1, 5))


@settings(max_examples=60, deadline=None)
@given(matching_cases())
def test_batched_greedy_matching_equals_the_per_pair_one(case):
    cands, refs, wcs, wrs, per_batch = case
    batched = greedy_match_batched(cands, refs, wcs, wrs, pairs_per_batch=per_batch)
    per_pair = np.array([_greedy(c, r, a, b) for c, r, a, b in zip(cands, refs, wcs, wrs)])
    np.testing.assert_allclose(batched[:, :2], per_pair[:, :2], rtol=0, atol=1e-6)
    # F = 2PR / (P + R) amplifies rounding without bound as P + R -> 0 (opposite-signed P and R,
    # which random vectors allow and real encoders do not): there F must follow from P and R;
    # elsewhere F agrees within the rounding of P and R (1e-6) times F's sensitivity to them,
    # |dF/dP| + |dF/dR| = 2 (P^2 + R^2) / (P + R)^2 (at most 400 where P + R >= 0.1)
    p_r = per_pair[:, 0] + per_pair[:, 1]
    ok = p_r >= 0.1
    sensitivity = 2 * (per_pair[:, 0] ** 2 + per_pair[:, 1] ** 2) / np.where(ok, p_r, 1.0) ** 2
    assert (np.abs(batched[ok, 2] - per_pair[ok, 2]) <= 1e-6 * np.maximum(1.0, sensitivity[ok])).all()
    p, r = batched[~ok, 0], batched[~ok, 1]
    own = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
    np.testing.assert_allclose(batched[~ok, 2], own, rtol=1e-12, atol=0)


def test_batched_greedy_matching_by_hand():
    # candidate tokens e1, e2 (weights 1, 3); reference tokens e1, (e1+e2)/sqrt2 (weights 1, 1):
    # P = (1 + 3/sqrt2) / 4, R = (1 + 1/sqrt2) / 2; the second pair has an empty candidate
    cand = np.array([[1.0, 0.0], [0.0, 2.0]], dtype=np.float32)
    ref = np.array([[3.0, 0.0], [1.0, 1.0]], dtype=np.float32)
    out = greedy_match_batched([cand, cand[:0]], [ref, ref], [np.array([1.0, 3.0]), np.ones(0)], [np.ones(2)] * 2)
    p, r, f = out[0]
    assert p == pytest.approx((1 + 3 * 2 ** -0.5) / 4, abs=1e-7) and r == pytest.approx((1 + 2 ** -0.5) / 2, abs=1e-7)
    assert f == pytest.approx(2 * p * r / (p + r), abs=1e-12)
    assert (out[1] == 0).all()
    assert (greedy_match_batched([cand[:0]], [ref], [np.ones(0)], [np.ones(2)]) == 0).all()


def test_plan_batches_by_count_is_bucket_by_width():
    from nlgmetrics.core.models import bucket_by_width

    lengths = [3, 17, 9, 9, 30, 1, 16, 24, 8, 8, 8, 2]
    width = lambda i: -(-lengths[i] // 8) * 8  # noqa: E731
    for size in (1, 2, 3, 5, 100):
        assert plan_batches(range(12), lambda i: (width(i),), size, order=lambda i: lengths[i]) == \
            bucket_by_width(range(12), width, size, lambda i: lengths[i])


def test_plan_batches_by_token_budget():
    lengths = [5, 40, 12, 12, 33, 7, 7, 7]
    plan = plan_batches(range(8), lambda i: (lengths[i],), 2, 40, one_shape=False)
    # longest first; rows x longest <= 40 whatever batch_size says; a lone 40 fits
    assert plan == [[1], [4], [2, 3, 5], [6, 7, 0]]
    one = plan_batches(range(8), lambda i: (lengths[i],), 2, 40)
    assert one == [[1], [4], [2, 3], [5, 6, 7], [0]]  # one shape: 7s and the 5 apart
    pairs = plan_batches([(3, 10), (4, 2), (2, 2)], lambda p: p, 8, 24, one_shape=False)
    # (4, 2) + (3, 10) pad to (4, 10): 2 x 14 > 24; (3, 10) + (2, 2): 2 x 13 > 24
    assert pairs == [[(4, 2)], [(3, 10)], [(2, 2)]]
    assert plan_batches([(3, 10), (4, 2), (2, 2)], lambda p: p, 8, 28, one_shape=False) == [[(4, 2), (3, 10)], [(2, 2)]]
    with pytest.raises(ValueError, match="batch_tokens"):
        plan_batches([1], lambda i: (i,), 1, 0)


def _fake_oom() -> Exception:
    return torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")


def test_oom_backoff_halves_warns_and_keeps_the_smaller_size():
    calls = []

    def work(batch):
        calls.append(len(batch))
        if len(batch) > 3:
            raise _fake_oom()
        return [x * 10 for x in batch]

    backoff = OOMBackoff("decoder batch")
    with pytest.warns(RuntimeWarning) as caught:
        assert backoff.run(work, list(range(8))) == [x * 10 for x in range(8)]
    assert [str(w.message).split(" (")[0] for w in caught] == [
        "out of device memory in a decoder batch of 8 rows: retrying with 4 rows",
        "out of device memory in a decoder batch of 4 rows: retrying with 2 rows"]
    assert calls == [8, 4, 2, 2, 2, 2] and backoff.max_rows == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert backoff.run(work, [1, 2, 3]) == [10, 20, 30]  # starts at the kept size: no new failure
    assert calls[-2:] == [2, 1]


def test_oom_backoff_gives_up_at_one_row_and_passes_other_errors():
    def always(batch):
        raise _fake_oom()

    with pytest.warns(RuntimeWarning), pytest.raises(torch.cuda.OutOfMemoryError):
        OOMBackoff().run(always, [1, 2])
    with pytest.raises(KeyError):
        OOMBackoff().run(lambda b: [{}[0]], [1, 2])
    assert is_out_of_memory(RuntimeError("MPS backend out of memory")) and not is_out_of_memory(ValueError("x"))

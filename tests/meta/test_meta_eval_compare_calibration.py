"""Calibration of ``compare`` (paired bootstrap and approximate randomisation) for the metrics
whose corpus score is not a mean: TextEval (document rating, scaling) and DiscoTK-light
(per-test-set normalisation). Null corpora: per segment, two systems draw two different outputs
from the same pool of equally good candidates, so neither system is better; over 500 such
corpora each test must keep its level (reject at most 8 % at p < 0.05), and a system that draws
the unedited candidate half the time must be found better far more often. Every candidate is
scored once; the tests only pick records.

Measured here (300 null corpora of 40 segments, 99 resamples/trials; 100 for power):
TextEval scaling: bootstrap 0.0 %, randomisation 4.0 % (power 100 %, 100 %); DiscoTK-light:
bootstrap 1.0 %, randomisation 2.3 % (power 80 %, 92 %). Both tests keep the level; neither is
anti-conservative, but the bootstrap of a document-level corpus score is strongly conservative
(resampling duplicates segments inside the one document the score rates, which widens the
resampled differences), so for these metrics randomisation is the test to read."""
from __future__ import annotations

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.core.significance import compare_records

SIMS = 300
N = 40
REFS = [f"the cat number {i} sat on the mat near the door today because it rained ." for i in range(N)]
EDITS = [("cat", "dog"), ("mat", "rug"), ("door", "window"), ("today", "yesterday"), ("sat", "slept"),
         ("rained", "snowed")]


def _pool(scorer, refs):
    """Per segment, one record per candidate: each candidate the reference with one word edited."""
    pool = []
    for i, ref in enumerate(REFS):
        cands = [ref.replace(a, b) for a, b in EDITS] + [ref]
        pool.append(scorer.score_segments(scorer.validate(cands, [refs[i]] * len(cands))))
    return pool


def _rejections(scorer, pool, better: bool, sims: int = SIMS):
    rng = np.random.default_rng(7)
    edited = len(EDITS)
    bs = ar = 0
    for sim in range(sims):
        pick_a = [rng.choice(edited, 2, replace=False) for _ in range(N)]
        a = [{**pool[i][p[0]], "id": i} for i, p in enumerate(pick_a)]
        b = [{**pool[i][edited if better and rng.random() < 0.5 else p[1]], "id": i} for i, p in enumerate(pick_a)]
        c = compare_records(scorer, {"A": a, "B": b}, resamples=99, trials=99, seed=sim)
        bs += c.systems[1].p_bootstrap < 0.05
        ar += c.systems[1].p_randomization < 0.05
    return bs / sims, ar / sims


@pytest.mark.parametrize("name, options, refs", [
    ("texteval", dict(features="words", approach="scaling"), [[r, r.replace("the", "a")] for r in REFS]),
    ("discotk", dict(variant="light"), REFS)])
def test_compare_keeps_its_level_on_null_corpora_and_finds_a_better_system(name, options, refs):
    scorer = nlgmetrics.load(name, quiet=True, **options)
    pool = _pool(scorer, refs)
    null = _rejections(scorer, pool, better=False)
    assert all(rate <= 0.08 for rate in null), null  # the level is kept (measured: see the module docstring)
    power = _rejections(scorer, pool, better=True, sims=100)
    assert all(rate >= 0.3 and rate >= 4 * max(null) for rate in power), (null, power)

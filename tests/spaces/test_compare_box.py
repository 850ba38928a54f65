"""The Spaces' optional second-system box (nlgmetrics.space.compare): the difference to the
first system with its interval and p-values, as nlgmetrics.compare computes it."""
from __future__ import annotations

from pathlib import Path

import pytest

gr = pytest.importorskip("gradio")

import publish  # noqa: E402

import nlgmetrics  # noqa: E402
from nlgmetrics.space.compare import SPACE_RESAMPLES, SPACE_TRIALS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
REFS = [f"the cat number {i} sat on the mat" for i in range(12)]
FIRST = [r.replace("the mat", "a rug") for r in REFS]


def _compare(demo):
    dep = next(f for f in demo.fns.values() if f.api_name == "compare")
    settings = [c.value for c in dep.inputs[3:]]  # predictions, references, second, then the settings
    return lambda first, refs, second: dep.fn(first, refs, second, *settings)


def test_the_sam_space_shows_the_difference_its_interval_and_p_values():
    demo = publish.load_app(ROOT / "spaces" / "sam" / "app.py").build_demo(preload=False)
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"compare", "input-second", "compare-run", "compare-result"} <= ids
    run = _compare(demo)
    shown = run("\n".join(FIRST), "\n".join(REFS), "\n".join(REFS))
    expected = nlgmetrics.compare("sam", {"first": FIRST, "second": REFS}, REFS, resamples=SPACE_RESAMPLES,
                                  trials=SPACE_TRIALS, quiet=True)  # the page's initial settings: SAM's defaults
    second = expected.systems[1]
    assert f"<td>difference (second - first)</td><td>{second.diff:.4f}</td>" in shown
    assert f"[{second.diff_ci[0]:.4f}, {second.diff_ci[1]:.4f}]" in shown
    assert f"p = {second.p_bootstrap:.4f} (paired bootstrap" in shown and "unlikely to be chance" in shown
    same = run("\n".join(FIRST), "\n".join(REFS), "\n".join(FIRST))
    assert "no significant difference" in same and "p = 1.0000" in same
    short = run("\n".join(FIRST), "\n".join(REFS), "a cat")
    assert "nlgm-error" in short and "the second system has 1 line(s), the first 12" in short


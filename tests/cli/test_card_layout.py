"""Every card keeps evaluate's section order and stays under 20 KB; what moved to DETAILS.md
is linked by an anchor that exists there."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from nlgmetrics.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ["Metric description", "How to use", "Inputs", "Output values and ranges", "Limitations and bias",
            "Results", "Citation"]
NAMES = list(REGISTRY)  # the metrics, by the registry alone


def _headings(text: str, level: int) -> list:
    out, fence = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#" * level + " "):
            out.append(line[level + 1:].strip())
    return out


def _slug(title: str) -> str:
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("name", NAMES)
def test_card_order_and_size(name):
    card = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    assert len(card.encode("utf-8")) <= 20_000
    assert _headings(card, 2) == SECTIONS


@pytest.mark.parametrize("name", NAMES)
def test_details_links_resolve(name):
    card = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    details = ROOT / "metrics" / name / "DETAILS.md"
    anchors = re.findall(r"\(DETAILS\.md#([^)]+)\)", card)
    if not details.exists():
        assert not anchors
        return
    text = details.read_text(encoding="utf-8")
    known = {_slug(h) for level in (2, 3) for h in _headings(text, level)}
    assert anchors and set(anchors) <= known

"""Each metric card's options table is the one generated from the metric's configuration
(nlgmetrics.cli.cards); a card without the table markers is skipped with its name, so the lead
can see which cards still lack them."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

import nlgmetrics
from nlgmetrics.cli import cards
from nlgmetrics.cli.cards import markdown_table
from nlgmetrics.core.config import MetricConfig, option


@dataclass(frozen=True)
class Demo(MetricConfig):
    gamma: float = option(0.07, "position penalty", low=0.0, short="g")
    base: str = option("chrf", "base metric", choices=("chrf", "bleu"))


CARD = f"# Card\n\nintro\n\n## Options\n\n{cards.START}\nstale table\n{cards.END}\n\nafter\n"


def test_render_replaces_only_the_table_and_is_idempotent():
    table = markdown_table(Demo)
    out = cards.render(CARD, table)
    assert out == f"# Card\n\nintro\n\n## Options\n\n{cards.START}\n{table}\n{cards.END}\n\nafter\n"
    assert cards.render(out, table) == out
    assert "| `gamma` | float | `0.07` | >= 0 | `g` | position penalty |" in out
    assert "| `base` | str | `\"chrf\"` | one of chrf, bleu | `base` | base metric |" in out


@pytest.mark.parametrize("text, message", [
    ("# no markers\n", "exactly one"),
    (f"{cards.START}\n{cards.START}\n{cards.END}\n", "exactly one"),
    (f"{cards.END}\nx\n{cards.START}\n", "comes before"),
])
def test_render_refuses_broken_markers(text, message):
    with pytest.raises(cards.MissingMarkers, match=message):
        cards.render(text, "table")


def test_update_and_check_on_a_card(tmp_path, monkeypatch):
    path = tmp_path / "README.md"
    path.write_text(CARD)
    monkeypatch.setattr(cards, "card_path", lambda name: path)
    monkeypatch.setattr(cards, "options_table", lambda name: markdown_table(Demo))
    assert not cards.in_sync("sam") and cards.main(["--check", "sam"]) == 1
    assert path.read_text() == CARD  # --check changes nothing
    assert cards.update("sam") and cards.in_sync("sam") and cards.main(["--check", "sam"]) == 0
    assert not cards.update("sam")


@pytest.mark.parametrize("name", sorted(nlgmetrics.REGISTRY))
def test_card_table_is_generated_from_the_configuration(name):
    text = cards.card_path(name).read_text(encoding="utf-8")
    if not cards.has_markers(text):
        pytest.skip(f"metrics/{name}/README.md has no {cards.START} / {cards.END} markers yet")
    try:
        cls = nlgmetrics.scorer_class(name)
    except TypeError as err:
        pytest.skip(f"{name} is not on the configuration API yet: {err}")
    assert cards.in_sync(name), f"run: python -m nlgmetrics.cli.cards {name}"
    for spec in cls.Config.specs():
        assert f"| `{spec.name}` |" in text

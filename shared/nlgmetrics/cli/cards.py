"""The generated part of each metric card (``metrics/<name>/README.md``): the options table
between ``<!-- options:start -->`` and ``<!-- options:end -->``, made by
:func:`markdown_table` from the metric's configuration. The rest of the card is
written by hand.

``python -m nlgmetrics.cli.cards`` rewrites the tables; ``--check`` only reports the cards whose
table is out of date (exit status 1), for CI and the tests.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nlgmetrics import registry
from nlgmetrics.core.config import MetricConfig

START = "<!-- options:start -->"
END = "<!-- options:end -->"


def markdown_table(config: type[MetricConfig]) -> str:
    """The card's options table (the card embeds it between generated-table markers)."""
    rows = ["| option | type | default | values | signature key | description |",
            "|---|---|---|---|---|---|"]
    for s in config.specs():
        key = "—" if s.signature == "never" or s.name in config.RUNTIME else f"`{s.short or s.name}`"
        rows.append(f"| `{s.name}` | {s.type_name()} | `{s.default_text()}` | {s.describe_range() or '—'} "
                    f"| {key} | {s.doc} |")
    return "\n".join(rows)


class MissingMarkers(ValueError):
    """A card without (or with broken) options-table markers."""


def card_path(name: str) -> Path:
    """The card of metric ``name`` (in a checkout: ``metrics/<name>/README.md``)."""
    from nlgmetrics import evaluate_modules  # type: ignore[attr-defined,unused-ignore]  # mapped onto metrics/

    if name not in registry.REGISTRY:
        raise ValueError(f"unknown metric {name!r}; available: {', '.join(registry.REGISTRY)}")
    return Path(evaluate_modules.__file__).resolve().parent / name / "README.md"


def options_table(name: str) -> str:
    """The options table of metric ``name``, generated from its configuration."""
    return markdown_table(registry.scorer_class(name).Config)


def has_markers(text: str) -> bool:
    return START in text or END in text


def render(text: str, table: str) -> str:
    """``text`` with the lines between the markers replaced by ``table``; the markers must
    appear once each, start before end, each on its own line."""
    if text.count(START) != 1 or text.count(END) != 1:
        raise MissingMarkers(f"the card needs exactly one {START} and one {END} line "
                             f"(found {text.count(START)} and {text.count(END)})")
    head, rest = text.split(START, 1)
    if END not in rest:
        raise MissingMarkers(f"{END} comes before {START}")
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table.strip()}\n{END}{tail}"


def in_sync(name: str) -> bool:
    """Whether the card's table equals the generated one (``MissingMarkers`` without markers)."""
    text = card_path(name).read_text(encoding="utf-8")
    return render(text, options_table(name)) == text


def update(name: str) -> bool:
    """Rewrite the card's table; returns whether the file changed."""
    path = card_path(name)
    text = path.read_text(encoding="utf-8")
    new = render(text, options_table(name))
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate (or with ``--check`` verify) the options table of each card."""
    import argparse

    parser = argparse.ArgumentParser(prog="nlgmetrics cards", description=main.__doc__)
    parser.add_argument("names", nargs="*", help="metrics (default: all)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table is out of date")
    args = parser.parse_args(argv)
    status = 0
    for name in args.names or list(registry.REGISTRY):
        try:
            if args.check:
                ok = in_sync(name)
                print(f"{name}: {'in sync' if ok else 'OUT OF DATE (run python -m nlgmetrics.cli.cards)'}")
                status = status or int(not ok)
            else:
                print(f"{name}: {'updated' if update(name) else 'unchanged'}")
        except (MissingMarkers, ValueError, TypeError, ImportError) as err:
            print(f"{name}: {err}")
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())

"""Example inputs per metric and the options with which each runs offline: used by
``nlgmetrics demo``, the Spaces' first example, the evaluate wrappers' doctests and the tests.
Data only; nothing here scores."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from .core.environment import env_text


@dataclass(frozen=True)
class Example:
    """``inputs``: predictions / references (/ sources); ``options``: the configuration with
    which the metric runs offline from registry packages (``None``: it needs a hub model)."""

    inputs: Dict[str, List[Any]]
    options: Optional[Dict[str, Any]] = field(default_factory=dict)


_TEXTEVAL_REFS = [
    "The report deals with the opportunities and the dangers of Europe's multilingualism.",
    "The report discusses the chances and risks that Europe's many languages bring.",
    "This report describes the opportunities and dangers of a multilingual Europe.",
]


def _datscore_options() -> Optional[Dict[str, Any]]:
    """``{"model": dir, ...}`` when ``NLGMETRICS_DATSCORE_MODEL`` names a local checkpoint."""
    path = env_text("NLGMETRICS_DATSCORE_MODEL")
    if path is not None and not os.path.isdir(path):
        raise ValueError(f"environment variable NLGMETRICS_DATSCORE_MODEL={path[:200]!r} must name a local "
                         "directory holding an M2M-100 checkpoint (or be unset)")
    return {"model": path, "source_lang": "fr", "target_lang": "en"} if path else None


def example(name: str) -> Example:
    """The example of metric ``name``."""
    if name == "datscore":
        return Example({
            "sources": ["Le chat est assis sur le tapis.", "Il pleut depuis ce matin.",
                        "Nous avons perdu le match hier soir."],
            "references": ["The cat is sitting on the mat.", "It has been raining since this morning.",
                           "We lost the match last night."],
            "predictions": ["The cat sits on the carpet.", "It rains since the morning.",
                            "We won the game yesterday evening."],
        }, _datscore_options())
    if name not in EXAMPLES:
        raise ValueError(f"no example for {name!r}; examples exist for: datscore, {', '.join(EXAMPLES)}")
    return EXAMPLES[name]


EXAMPLES: Dict[str, Example] = {
    "rome": Example({  # the paper's Table 2 examples
        "predictions": ["Macbeth is written by Shakespeare.",
                        "Shakespeare has written Macbeth Macbeth Macbeth.",
                        "The Macbeth is written by Shakespeare."],
        "references": ["Shakespeare has written Macbeth."] * 3,
    }, {"profile": "lite"}),
    "discotk": Example({
        "predictions": [
            '"The new structure will also allow us to enter the market with a joint offer of '
            'advertising products and to streamline the management of the company," said Cermak.',
            "The new structure also allows us enter market with joint offer of advertising "
            "products, streamline management of company Cermak added.",
        ],
        "references": [
            '"The new organisational structure will also allow us to enter the market with a joint '
            'offer of advertising products and to continue to streamline the business management '
            'of the company," added Cermak.',
        ] * 2,
    }, {"variant": "party"}),
    "texteval": Example({
        "predictions": [
            "The report describes the opportunities and dangers of Europe's many languages.",
            "Report it describes chances and the dangers Europe languages many of.",
        ],
        "references": [list(_TEXTEVAL_REFS), list(_TEXTEVAL_REFS)],
    }, {"features": "tags"}),
    "sam": Example({
        "predictions": ["If he had blown himself up in your country, God would forgive him",
                        "What is this amount of anger, I don't understand!"],
        "references": ["If he had blown himself up in your country, God would not forgive",
                       "What is this amount of happiness, I don't understand!"],
    }, {"profile": "lite", "base": "bertscore"}),
}

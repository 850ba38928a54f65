"""RST relation names mapped to the coarse classes the representations use.

RST-DT (Carlson et al., 2002) annotates 78 fine relations (e.g. ``elaboration-additional``,
``consequence-n``, ``circumstance-e``); discourse parsers trained on it (CODRA, DPLP, Feng &
Hirst's) and the DiscoTK paper work with the 18 coarse classes below. :func:`coarse_relation`
lowercases a name, joins its words with ``-``, drops the embedded-relation suffix ``-e`` and
then a nuclearity suffix ``-n``/``-s`` if needed, and looks it up; a name outside the table is
kept (words joined with ``-``), so trees from other schemes still compare label by label.
"""
from __future__ import annotations

from typing import Dict, Tuple

#: coarse class -> the fine RST-DT relations (lowercase, suffixes removed) it groups
COARSE_CLASSES: Dict[str, Tuple[str, ...]] = {
    "Attribution": ("attribution", "attribution-negative"),
    "Background": ("background", "circumstance"),
    "Cause": ("cause", "result", "consequence", "cause-result"),
    "Comparison": ("comparison", "preference", "analogy", "proportion"),
    "Condition": ("condition", "hypothetical", "contingency", "otherwise"),
    "Contrast": ("contrast", "concession", "antithesis"),
    "Elaboration": ("elaboration", "elaboration-additional", "elaboration-general-specific",
                    "elaboration-part-whole", "elaboration-process-step", "elaboration-object-attribute",
                    "elaboration-set-member", "example", "definition"),
    "Enablement": ("enablement", "purpose"),
    "Evaluation": ("evaluation", "interpretation", "conclusion", "comment"),
    "Explanation": ("explanation", "evidence", "explanation-argumentative", "reason"),
    "Joint": ("joint", "list", "disjunction"),
    "Manner-Means": ("manner-means", "manner", "means"),
    "Topic-Comment": ("topic-comment", "problem-solution", "question-answer", "statement-response",
                      "comment-topic", "rhetorical-question"),
    "Summary": ("summary", "restatement"),
    "Temporal": ("temporal", "temporal-before", "temporal-after", "temporal-same-time", "sequence",
                 "inverted-sequence"),
    "Topic-Change": ("topic-change", "topic-shift", "topic-drift"),
    "Textual-Organization": ("textual-organization", "textualorganization", "textual-organisation"),
    "Same-Unit": ("same-unit",),
}
_FINE_TO_COARSE: Dict[str, str] = {fine: coarse for coarse, fines in COARSE_CLASSES.items() for fine in fines}


def coarse_relation(name: str) -> str:
    """The coarse class of an RST relation name (``elaboration-additional-e`` -> ``Elaboration``,
    ``Same Unit`` -> ``Same-Unit``); names outside the table are kept, words joined by ``-``."""
    words = "-".join(name.replace("_", " ").split())
    key = words.lower()
    for candidate in (key, key[:-2] if key.endswith("-e") else None):
        if candidate is None:
            continue
        if candidate in _FINE_TO_COARSE:
            return _FINE_TO_COARSE[candidate]
        if candidate.endswith(("-n", "-s")) and candidate[:-2] in _FINE_TO_COARSE:
            return _FINE_TO_COARSE[candidate[:-2]]
    return words


def relation_table_markdown() -> str:
    """The mapping as a markdown table (for the metric card)."""
    rows = ["| coarse class | RST-DT relations |", "|---|---|"]
    rows += [f"| {coarse} | {', '.join(fines)} |" for coarse, fines in COARSE_CLASSES.items()]
    return "\n".join(rows)

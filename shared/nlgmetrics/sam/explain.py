"""What SAM's Space and reports draw, from the scorer's own records: where each unmatched item
(``details[i]["mismatches"]``, as the adjustment used them) lies in its text."""
from __future__ import annotations

import re
from typing import Any, List, Mapping, Sequence, Tuple


def item_spans(text: str, items: Sequence[Mapping[str, Any]]) -> List[Tuple[int, int, Mapping[str, Any]]]:
    """``(start, end, item)`` for each mismatched item found in ``text``, in text order (items
    come in text order; a multiword item matches its words across any whitespace; an item not
    found after the previous one is left out).

    >>> item_spans("so much anger, anger", [{"word": "anger"}, {"word": "anger"}])
    [(8, 13, {'word': 'anger'}), (15, 20, {'word': 'anger'})]
    """
    spans = []
    pos = 0
    for item in items:
        words = str(item["word"]).split()
        pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)"
        found = re.search(pattern, text[pos:])
        if found is None:
            continue
        spans.append((pos + found.start(), pos + found.end(), item))
        pos += found.end()
    return spans


__all__ = ["item_spans"]

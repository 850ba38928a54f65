"""English-only resources and text in other scripts: a segment whose hypothesis or reference is
mostly in a non-Latin script is flagged ``non_english`` in its record, and the scorer warns
once. A script check, not language identification: French or German text is not flagged (the
Space adds a function-word heuristic for its own warning)."""
from __future__ import annotations

import warnings
from typing import Any, Dict, Iterable, List

#: a text is "non-Latin" when more than this share of its letters lie beyond U+024F
NON_LATIN_SHARE = 0.5


def non_latin(text: str) -> bool:
    """True when most of the text's letters lie outside the Latin script (beyond U+024F).

    >>> non_latin("Кошка сидит на коврике"), non_latin("The café 😀"), non_latin("😀 🎉")
    (True, False, False)
    """
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    return sum(ord(c) > 0x24F for c in letters) / len(letters) > NON_LATIN_SHARE


class EnglishOnly:
    """Flags records of segments with a text mostly in a non-Latin script, warning once (per
    instance: one per scorer) with ``message`` unless quiet."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.warned = False

    def check(self, record: Dict[str, Any], texts: Iterable[str], *, quiet: bool = False) -> None:
        if any(non_latin(t) for t in texts):
            record["non_english"] = True
            if not self.warned and not quiet:
                warnings.warn(self.message, stacklevel=4)
            self.warned = True

    @staticmethod
    def corpus(records: List[Dict[str, Any]]) -> Dict[str, int]:
        """``{"non_english_segments": n}`` when any record is flagged, else ``{}``."""
        flagged = sum(bool(r.get("non_english")) for r in records)
        return {"non_english_segments": flagged} if flagged else {}

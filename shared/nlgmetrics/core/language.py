"""Resources that cover some languages and text in others. Per segment, a script check: a segment
whose hypothesis or reference is mostly in a non-Latin script is flagged ``non_english`` in its
record, and the scorer warns once. Per corpus, language identification (langdetect, seeded, on
an evenly spaced sample): a corpus mostly in a language the metric's resources do not cover
(its FACTS ``languages``) draws one warning, or an error with the ``language`` option."""
from __future__ import annotations

import functools
import warnings
from collections import Counter
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

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


# -- language identification per corpus (langdetect) ------------------------------------------
#: segments sampled per side (predictions, references), evenly spaced: fast on any corpus size
SAMPLE = 40
#: a text shorter than this (letters) is not identified (langdetect guesses on short texts)
MIN_LETTERS = 20
#: the texts whose language is remembered (about 2 ms each to identify again)
DETECTED = 4096
#: a detection counts when its probability reaches this
MIN_PROBABILITY = 0.8
#: the share of sampled segments in languages the resources do not cover that draws the warning
FOREIGN_SHARE = 0.25


@functools.lru_cache(maxsize=DETECTED)
def detect_language(text: str) -> Optional[str]:
    """The language code langdetect gives ``text`` (seeded: deterministic), or None when the text
    is too short or the detection unsure. Remembered for the last :data:`DETECTED` texts: a
    training loop's evaluations share their references, which are then identified once.

    >>> detect_language("The government announced new measures to help small businesses.")
    'en'
    >>> detect_language("Die Regierung kündigte neue Maßnahmen für kleine Unternehmen an."), detect_language("Hi")
    ('de', None)
    """
    if sum(c.isalpha() for c in text) < MIN_LETTERS:
        return None
    from langdetect import DetectorFactory, detect_langs
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0
    try:
        best = detect_langs(text)[0]
    except LangDetectException:
        return None
    return str(best.lang) if best.prob >= MIN_PROBABILITY else None


def language_shares(texts: Sequence[str], sample: int = SAMPLE) -> Tuple[int, Counter]:
    """``(sampled, counts)``: how many of ``texts`` were sampled (evenly spaced, at most
    ``sample``) and how many of those langdetect assigned to each language."""
    step = max(1, -(-len(texts) // sample))
    picked = list(texts[::step])[:sample]
    return len(picked), Counter(lang for lang in map(detect_language, picked) if lang is not None)


def check_corpus_language(metric: str, covered: Sequence[str], sides: Mapping[str, Sequence[str]],
                          expected: Optional[str] = None, *, quiet: bool = False) -> Optional[str]:
    """Per corpus: identify the language of a sample of each side (``{"predictions": [...],
    ...}``) and, when at least :data:`FOREIGN_SHARE` of a side's sampled segments are in a
    language outside ``covered``, warn once naming ``metric``, the share and the language; with
    ``expected`` (the ``language`` option, e.g. ``"en"``) raise a ValueError instead when a side
    is found in another language. Returns the message (None: nothing found)."""
    allowed = {expected} if expected else set(covered)
    if not allowed:
        return None
    for side, texts in sides.items():
        sampled, counts = language_shares(texts)
        foreign = [(n, lang) for lang, n in counts.items() if lang not in allowed]
        if not sampled or sum(n for n, _ in foreign) / sampled < FOREIGN_SHARE:
            continue
        n, lang = max(foreign)
        message = (f"{metric}: {n / sampled:.0%} of the sampled {side} ({n} of {sampled}) look like language "
                   f"'{lang}', but its resources cover {', '.join(sorted(covered)) or 'no language'}")
        if expected:
            raise ValueError(f"{message}; language={expected!r} requires {expected!r} text")
        if not quiet:
            warnings.warn(message + " (scores may not be meaningful; language='en' makes this an error)",
                          UserWarning, stacklevel=4)
        return message
    return None

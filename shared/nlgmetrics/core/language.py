"""Resources that cover some languages and text in others. Per segment, a script check: a segment
whose hypothesis or reference is mostly in a non-Latin script is flagged ``non_english`` in its
record, and the scorer warns once. Per corpus, language identification (langdetect, seeded, on
an evenly spaced sample): a corpus mostly in a language the metric's resources do not cover
(its FACTS ``languages``) draws one warning, or an error with the ``language`` option.

The ``language`` option (:func:`language_option`) is an ISO 639-1 code, case-insensitive
(``"EN"`` is ``"en"``), and one the metric's resources cover: anything else is refused when the
configuration is made. These warnings say the scores may not mean what the caller thinks, so
``quiet`` (no progress bars, no informational lines) never silences them."""
from __future__ import annotations

import functools
import warnings
from collections import Counter
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .facts import facts_of
from .inputs import PYTHON_SYNTAX, ArgumentSyntax


class LanguageError(ValueError):
    """A corpus found in another language than the ``language`` option says: an input error
    (the command line exits with its usage code, 2, wherever the check runs)."""


#: the ISO 639-1 language codes (two letters), the codes the ``language`` option takes
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz
ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik
io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml
mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd
se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi
vo wa wo xh yi yo za zh zu""".split())


def language_code(value: Any, name: str = "language") -> str:
    """``value`` as a lower-case ISO 639-1 code, or a ``ValueError`` naming option ``name``.

    >>> language_code(" EN ")
    'en'
    >>> language_code("klingon")
    Traceback (most recent call last):
    ...
    ValueError: language='klingon' is not a known ISO 639-1 language code (two letters, e.g. 'en', 'de')
    """
    if not isinstance(value, str):
        raise ValueError(f"{name} must be an ISO 639-1 language code such as 'en', got {type(value).__name__}")
    code = value.strip().lower()
    if code not in ISO_639_1:
        raise ValueError(f"{name}={value[:40]!r} is not a known ISO 639-1 language code (two letters, e.g. 'en', "
                         "'de')")
    return code


def language_option(config_cls: Any, value: Any) -> Optional[str]:
    """The ``language`` option of a configuration of ``config_cls``, checked when the
    configuration is made (before anything loads): None (unset), or an ISO 639-1 code
    (lower-cased) among the languages the metric's resources cover (its FACTS ``languages``;
    a metric without FACTS or with none listed takes any known code)."""
    if value is None:
        return None
    code = language_code(value)
    try:
        facts = facts_of(config_cls)
    except AttributeError:  # a configuration without FACTS (tests)
        return code
    if facts.languages and code not in facts.languages:
        metric = config_cls.__module__.rsplit(".", 2)[-2] if config_cls.__module__.count(".") >= 2 else "this metric"
        covered = ", ".join(repr(c) for c in facts.languages)
        raise ValueError(f"language={code!r}: {metric}'s resources cover {covered} only ({facts.language_note}); "
                         "leave language unset to score other text anyway, with a warning")
    return code

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
    instance: one per scorer) with ``message``, whether or not the scorer is quiet."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.warned = False

    def check(self, record: Dict[str, Any], texts: Iterable[str]) -> None:
        if any(non_latin(t) for t in texts):
            record["non_english"] = True
            if not self.warned:
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


def sample_positions(n: int, sample: int = SAMPLE) -> range:
    """The positions of the sampled segments of a corpus of ``n``: evenly spaced, at most
    ``sample`` (a caller that streams a file picks these lines; the sample equals
    :func:`language_shares`' on the whole list).

    >>> list(sample_positions(10, 4)), len(sample_positions(1000)), list(sample_positions(3))
    ([0, 3, 6, 9], 40, [0, 1, 2])
    """
    step = max(1, -(-n // sample))
    return range(0, n, step)[:sample]


def language_shares(texts: Sequence[str], sample: int = SAMPLE) -> Tuple[int, Counter]:
    """``(sampled, counts)``: how many of ``texts`` were sampled (:func:`sample_positions`) and
    how many of those langdetect assigned to each language."""
    picked = [texts[k] for k in sample_positions(len(texts), sample)]
    return len(picked), Counter(lang for lang in map(detect_language, picked) if lang is not None)


def first_references(references: Optional[Sequence[Any]]) -> List[str]:
    """Each segment's first reference (a multi-reference field holds a string or a list per
    segment), the side the language check reads."""
    return [] if not references else [r if isinstance(r, str) else (list(r) or [""])[0] for r in references]


def check_language(cls: Any, config: Any, sides: Mapping[str, Sequence[str]],
                   syntax: ArgumentSyntax = PYTHON_SYNTAX) -> Optional[str]:
    """The corpus check of a metric (a Scorer class and its configuration) on ``sides``
    (``{"predictions": [...], "references": [...]}``; a side may be a sample taken with
    :func:`sample_positions`): :func:`check_corpus_language` with the metric's FACTS
    ``languages`` and its ``language`` option. Every surface calls this once per corpus before
    scoring: ``Scorer.score``, ``nlgmetrics.compare`` and ``meta_eval``, the command line
    (``syntax``: how the messages write the option)."""
    if not checks_language(cls, config):
        return None
    return check_corpus_language(cls.name, facts_of(cls).languages, {k: v for k, v in sides.items() if v},
                                 getattr(config, "language", None), syntax)


def checks_language(cls: Any, config: Any) -> bool:
    """Whether the metric checks the language of a corpus: its FACTS list the languages its
    resources cover, or its configuration sets ``language``."""
    try:
        return bool(facts_of(cls).languages or getattr(config, "language", None))
    except AttributeError:  # a scorer without FACTS (tests)
        return False


def check_corpus_language(metric: str, covered: Sequence[str], sides: Mapping[str, Sequence[str]],
                          expected: Optional[str] = None, syntax: ArgumentSyntax = PYTHON_SYNTAX) -> Optional[str]:
    """Per corpus: identify the language of a sample of each side (``{"predictions": [...],
    ...}``) and, when at least :data:`FOREIGN_SHARE` of a side's sampled segments are in a
    language outside ``covered``, warn once naming ``metric``, the share and the language
    (never silenced by a scorer's ``quiet``: the scores may not mean what the caller thinks);
    with ``expected`` (the ``language`` option, e.g. ``"en"``) raise a :class:`LanguageError` instead when
    a side is found in another language. Returns the message (None: nothing found)."""
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
            raise LanguageError(f"{message}; {syntax.option('language', expected)} requires {expected!r} text")
        warnings.warn(f"{message} (scores may not be meaningful; {syntax.option('language', (list(covered) or ['en'])[0])} makes this an error)",
                      UserWarning, stacklevel=4)
        return message
    return None

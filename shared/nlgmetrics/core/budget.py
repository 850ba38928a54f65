"""The one work budget per segment: every text a metric scores is bounded in characters and in
the metric's own units (words, the tokens its kernels see, ...) before any expensive step runs.

Each metric declares a :class:`Budget` (its caps are measured by ``benchmarks/budget_caps.py``
against a time budget of about 2 s per segment on two cores, and stated on its card). The
input step (:meth:`nlgmetrics.core.scorer.Scorer.validate`) applies it with :func:`apply_budget`:
a segment's references over ``max_references`` are cut to the first ones (a metric whose
work grows faster than the number of references, such as TextEval's scaling, states a lower
cap); a text over a cap is cut to its first ``max_chars`` characters, then to its first
``max_units`` units, with one warning per call; the segment's records and details get
``truncated: true``. A metric may check some texts as a whole instead (DiscoTK's RST trees,
which cannot be cut): its ``whole`` check raises ``ValueError`` for one over its caps.

>>> b = Budget("tokens", 3, TOKENS, max_chars=100)
>>> b.cut("The cat-sat on it.")
'The cat-'
>>> b.count("x-x")
3
>>> b.count("\U0001F600" * 5 + "\u4e2d\u6587" + "a" * 45)  # emoji, ideographs, a long run
10
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Set, Tuple

#: default character cap of one text (a prediction, reference or source)
MAX_CHARS = 100_000
#: default cap on the references of one segment (over it: the first ones are kept)
MAX_REFERENCES = 100
#: whitespace-separated words
WORDS = re.compile(r"\S+")
#: scripts written without spaces whose every character a subword tokenizer (BERT's WordPiece,
#: SentencePiece) makes a token of its own: kana, CJK ideographs, Hangul syllables
IDEOGRAPHS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
#: the longest word run counted as one unit: a longer run (a text without spaces in Thai, a
#: 20,000-letter "word") counts one unit per started WORD_PIECE characters, as subword
#: tokenizers split it into pieces
WORD_PIECE = 20
#: tokens: word runs (pieces of at most WORD_PIECE characters), each ideograph, and each
#: punctuation mark, symbol or emoji on its own, as a tokenizer splits ``x-x`` into three tokens
#: and spaCy every emoji or ``!`` of a run without spaces: at least as many units as spaCy's
#: tokenizer gives, on ordinary text and on text without spaces alike (its costly steps count them)
TOKENS = re.compile(rf"[{IDEOGRAPHS}]|[^\W{IDEOGRAPHS}]{{1,{WORD_PIECE}}}|[^\w\s]")


@dataclass(frozen=True)
class Budget:
    """Caps of one text: ``max_chars`` characters and ``max_units`` units (``pattern``
    matches one unit, named ``unit`` in messages), and at most ``max_references`` references
    per segment (the first ones are kept). ``whole``, when given, is asked first about
    each text: ``True`` means the metric checked the text as a whole (it raises ``ValueError``
    when the text is over its caps) and it is not cut."""

    unit: str
    max_units: int
    pattern: re.Pattern = WORDS
    max_chars: int = MAX_CHARS
    whole: Optional[Callable[[str], bool]] = None
    max_references: int = MAX_REFERENCES

    def count(self, text: str) -> int:
        """Units in ``text`` (linear time)."""
        return sum(1 for _ in self.pattern.finditer(text))

    def cut(self, text: str) -> str:
        """``text`` within the caps: its first ``max_chars`` characters, then up to the end of
        its ``max_units``-th unit; the text itself when it is within both."""
        if len(text) > self.max_chars:
            text = text[: self.max_chars]
        end = None
        for k, match in enumerate(self.pattern.finditer(text), start=1):
            if k == self.max_units:
                end = match.end()
                break
        if end is None or not self.pattern.search(text, end):
            return text
        return text[:end]

    def describe(self) -> str:
        return (f"{self.max_units:,} {self.unit} or {self.max_chars:,} characters per text and "
                f"{self.max_references:,} references")


def _bounded(budget: Budget, text: str, where: str) -> Tuple[str, bool]:
    if budget.whole is not None:
        try:
            if budget.whole(text):
                return text, False
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    cut = budget.cut(text)
    return cut, len(cut) != len(text)


def apply_budget(inputs: Any, budget: Optional[Budget], metric: str) -> Set[int]:
    """Bound every text of ``inputs`` (an :class:`~nlgmetrics.core.inputs.Inputs`) in place;
    the ids of the segments that were cut are returned (and one warning names them)."""
    if budget is None:
        return set()
    cut_ids: Set[int] = set()
    notes: List[str] = []
    for i, item in enumerate(inputs.references or ()):
        if not isinstance(item, str) and len(item) > budget.max_references:
            inputs.references[i] = list(item[: budget.max_references])  # before any text is cut
            cut_ids.add(inputs.ids[i])
            if len(notes) < 3:
                notes.append(f"references[{i}] ({len(item):,} references)")
    for field in ("predictions", "references", "sources"):
        values = getattr(inputs, field)
        if values is None:
            continue
        for i, item in enumerate(values):
            group = [item] if isinstance(item, str) else item
            bounded = []
            for j, text in enumerate(group):
                where = f"{field}[{i}]" if isinstance(item, str) else f"{field}[{i}][{j}]"
                new, was_cut = _bounded(budget, text, where)
                if was_cut:
                    cut_ids.add(inputs.ids[i])
                    if len(notes) < 3:
                        notes.append(f"{where} ({len(text):,} characters)")
                bounded.append(new)
            values[i] = bounded[0] if isinstance(item, str) else bounded
    if cut_ids:
        more = f" and {len(cut_ids) - len(notes)} more" if len(cut_ids) > len(notes) else ""
        warnings.warn(f"{metric}: {len(cut_ids)} segment(s) over the per-segment budget of {budget.describe()} "
                      f"were cut to it ({', '.join(notes)}{more}); their details say truncated: true",
                      stacklevel=4)
    return cut_ids

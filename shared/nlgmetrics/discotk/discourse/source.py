"""Tokens of an RST text with their places (:class:`Source`), shared by the bracketed reader
(:mod:`.rst`) and the ``.dis`` reader (:mod:`.dis`)."""
from __future__ import annotations

import re
from typing import NamedTuple, Optional

#: an EDU: ``_!`` up to the first ``!_`` or ``_!`` that a bracket, another EDU or the end
#: follows (its text holds no ``_!``: an EDU left open is an error, not swallowing the next)
_EDU = r"_!((?:(?!_!).)*?)(?:!_|_!)(?=\s*(?:[()]|_!|\Z))"
_RST_TOKENS = re.compile(rf"{_EDU}|\(|\)|[^\s()]+", re.DOTALL)
EDU_RE = re.compile(_EDU, re.DOTALL)
DIS_KINDS = ("Root", "Nucleus", "Satellite")


class Token(NamedTuple):
    """One token: ``text`` (an EDU keeps its delimiters), ``edu`` (the EDU's text or None)
    and ``start`` (its offset in the source)."""

    text: str
    edu: Optional[str]
    start: int


class Source:
    """Tokens of an RST text, and ``where(i)``: "line L, column C" of token ``i``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = [Token(m.group(0), m.group(1), m.start()) for m in _RST_TOKENS.finditer(text)]

    def where(self, i: int) -> str:
        start = self.tokens[i].start if i < len(self.tokens) else len(self.text.rstrip())
        line = self.text.count("\n", 0, start) + 1
        return f"line {line}, column {start - (self.text.rfind(chr(10), 0, start) + 1) + 1}"

    def error(self, i: int, what: str, fmt: str = "RST tree") -> ValueError:
        return ValueError(f"{fmt}: {self.where(i)}: {what}")

    def got(self, i: int) -> str:
        if i >= len(self.tokens):
            return "the end"
        tok = self.tokens[i].text
        return repr(tok if len(tok) <= 40 else tok[:37] + "...")


def check_edu_text(text: str) -> str:
    if "_!" in text or "!_" in text:
        raise ValueError(f"an EDU text with _! or !_ in it cannot be written unambiguously: {text[:60]!r}")
    return text

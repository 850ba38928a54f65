"""The discourse tree type: an EDU (elementary discourse unit) or a relation node whose
children are each marked nucleus (``N``) or satellite (``S``); EDU word tokenisation."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

NUCLEUS, SATELLITE, ROOT = "Nucleus", "Satellite", "Root"
NUC_NAME = {"N": NUCLEUS, "S": SATELLITE}


@dataclass
class DiscourseTree:
    """An EDU (``relation == ""``: ``text`` and ``words``) or a relation node whose children
    carry the nuclearity ``nuclearity[i]`` in {"N", "S"}."""

    relation: str = ""
    children: List["DiscourseTree"] = field(default_factory=list)
    nuclearity: Tuple[str, ...] = ()
    text: str = ""
    words: Tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.relation:
            if len(self.children) < 2 or len(self.nuclearity) != len(self.children):
                raise ValueError(f"relation {self.relation!r} needs >= 2 children with one nuclearity each")
            if set(self.nuclearity) - {"N", "S"} or "N" not in self.nuclearity:
                raise ValueError(f"nuclearity of {self.relation!r} must be N/S with at least one N, "
                                 f"got {''.join(self.nuclearity)}")
        elif self.children:
            raise ValueError("an EDU has no children")

    @classmethod
    def edu(cls, text: str, words: Optional[Sequence[str]] = None) -> "DiscourseTree":
        text = " ".join(text.split())
        return cls(text=text, words=tuple(edu_words(text) if words is None else words))

    def is_edu(self) -> bool:
        return not self.relation

    def edus(self) -> List["DiscourseTree"]:
        if self.is_edu():
            return [self]
        return [e for c in self.children for e in c.edus()]

    def plain_text(self) -> str:
        return " ".join(e.text for e in self.edus() if e.text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DiscourseTree):
            return NotImplemented
        return (self.relation, self.nuclearity, self.text, self.children) == \
               (other.relation, other.nuclearity, other.text, other.children)


_TOKEN = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]", re.UNICODE)


def edu_words(text: str) -> List[str]:
    """Lowercased word tokens of an EDU, punctuation (tokens without a letter or digit) left out."""
    return [t for t in _TOKEN.findall(text.lower()) if is_word(t)]


def is_word(text: str) -> bool:
    """A token with a letter or digit (not punctuation or emoji)."""
    return any(ch.isalnum() for ch in text)

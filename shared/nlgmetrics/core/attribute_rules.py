"""spaCy's ``attribute_ruler`` rules applied by dictionary lookup instead of its ``Matcher``.

The English pipelines' attribute ruler (tag -> POS and morphology, plus word-specific
exceptions such as "n't" -> "not" and "gonna" -> "go" "to") costs as much as the tagger's
neural network in the light pipeline (tags and lemmas only): the ``Matcher`` walks every
pattern for every token, and its ``IN``/``REGEX`` predicates run in Python. A single-token
rule's outcome depends only on the token's own attributes, so :class:`FastAttributeRuler`
computes it once per distinct (lowercase form, tag, ...) and looks it up after that;
the few multi-token rules are indexed by their first word.

The semantics are spaCy's: every rule whose pattern matches sets its attributes on the token
at its index, in the order the rules were added (a later rule overrides an earlier one). A
pattern that uses anything else than plain values or ``IN``/``NOT_IN``/``REGEX`` predicates on
the attributes in :data:`GETTERS` (e.g. quantifiers) is refused with ``ValueError``, and the
caller keeps spaCy's own ruler. ``tests/test_linguistic_light.py`` checks the output against
spaCy's ruler token by token.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

#: the token attributes a pattern may test, and how to read them from a spaCy token
GETTERS: dict[str, Callable[[Any], Any]] = {
    "ORTH": lambda t: t.text, "LOWER": lambda t: t.lower_, "TAG": lambda t: t.tag_, "POS": lambda t: t.pos_,
    "DEP": lambda t: t.dep_, "IS_SPACE": lambda t: t.is_space}
#: the attributes a rule may set
SETTABLE = ("POS", "TAG", "LEMMA", "MORPH", "DEP")
_PREDICATES = ("IN", "NOT_IN", "REGEX")

Rule = tuple[int, list[dict[str, Any]], dict[str, str], int]  # (rule id, pattern, attrs, index)


def value_matches(spec: Any, value: Any) -> bool:
    """A pattern value against a token's value: equality, or every one of the ``IN`` /
    ``NOT_IN`` / ``REGEX`` predicates (``re.search``, as spaCy's ``Matcher``).

    >>> value_matches({"IN": ["is", "'s"]}, "'s"), value_matches({"REGEX": "^n'?t$"}, "nt")
    (True, True)
    """
    if not isinstance(spec, dict):
        return bool(value == spec)
    for op, arg in spec.items():
        if op == "IN" and value not in arg:
            return False
        if op == "NOT_IN" and value in arg:
            return False
        if op == "REGEX" and not re.search(arg, value):
            return False
    return True


def token_matches(spec: dict[str, Any], token: Any) -> bool:
    return all(value_matches(want, GETTERS[key](token)) for key, want in spec.items())


class FastAttributeRuler:
    """Applies the rules of a spaCy ``AttributeRuler`` (its ``.patterns``) to a ``Doc``.

    >>> ruler = FastAttributeRuler([{"patterns": [[{"TAG": "NNS"}]], "attrs": {"POS": "NOUN"}},
    ...                             {"patterns": [[{"LOWER": "gon"}, {"LOWER": "na"}]],
    ...                              "attrs": {"LEMMA": "go"}, "index": 0}])
    >>> len(ruler.single), len(ruler.multi_by_first)
    (1, 1)
    """

    def __init__(self, patterns: Sequence[dict[str, Any]]) -> None:
        self.single: list[Rule] = []
        self.multi_by_first: dict[str, list[Rule]] = {}
        self.multi_other: list[Rule] = []
        for rule_id, rule in enumerate(patterns):
            attrs = dict(rule["attrs"])
            if set(attrs) - set(SETTABLE):
                raise ValueError(f"attribute rule sets {sorted(set(attrs) - set(SETTABLE))}")
            for pattern in rule["patterns"]:
                for spec in pattern:
                    for key, want in spec.items():
                        if key not in GETTERS or (isinstance(want, dict) and set(want) - set(_PREDICATES)):
                            raise ValueError(f"unsupported attribute-ruler pattern {spec}")
                entry: Rule = (rule_id, list(pattern), attrs, int(rule.get("index", 0)))
                if len(pattern) == 1:
                    self.single.append(entry)
                    continue
                first = pattern[0].get("LOWER")
                if isinstance(first, str):
                    self.multi_by_first.setdefault(first, []).append(entry)
                elif isinstance(first, dict) and set(first) == {"IN"}:
                    for word in first["IN"]:
                        self.multi_by_first.setdefault(word, []).append(entry)
                else:
                    self.multi_other.append(entry)
        # a token's single-token hits and the multi-token rules its own spec starts depend only
        # on these attributes of the token: computed once per distinct combination
        multi = [rule for rules in self.multi_by_first.values() for rule in rules] + self.multi_other
        self.keys = sorted({key for _, pattern, _, _ in self.single + multi for key in pattern[0]})
        self._memo: dict[tuple, tuple[list[tuple[int, dict[str, str]]], list[Rule]]] = {}

    def _hits(self, token: Any) -> tuple[list[tuple[int, dict[str, str]]], list[Rule]]:
        """The single-token rules that match ``token`` and the multi-token rules whose first
        spec it matches."""
        key = tuple(GETTERS[k](token) for k in self.keys)
        hits = self._memo.get(key)
        if hits is None:
            hits = ([(rule_id, attrs) for rule_id, pattern, attrs, _ in self.single if token_matches(pattern[0], token)],
                    [rule for rule in self.multi_by_first.get(token.lower_, []) + self.multi_other
                     if token_matches(rule[1][0], token)])
            if len(self._memo) < 200_000:
                self._memo[key] = hits
        return hits

    def __call__(self, doc: Any) -> Any:
        hits: list[tuple[int, int, dict[str, str]]] = []
        tokens = list(doc)  # each doc[i] builds a new Token object: build them once
        n = len(tokens)
        for i, token in enumerate(tokens):
            single, starts = self._hits(token)
            hits += [(rule_id, i, attrs) for rule_id, attrs in single]
            for rule_id, pattern, attrs, index in starts:
                if i + len(pattern) <= n and all(token_matches(spec, tokens[i + k])
                                                 for k, spec in enumerate(pattern[1:], 1)):
                    hits.append((rule_id, i + (index if index >= 0 else len(pattern) + index), attrs))
        hits.sort(key=lambda h: (h[0], h[1]))  # later rules override earlier ones, as in spaCy
        for _, j, attrs in hits:
            token = tokens[j]
            for name, value in attrs.items():
                if name == "MORPH":
                    token.set_morph(value)
                else:
                    setattr(token, name.lower() + "_", value)
        return doc

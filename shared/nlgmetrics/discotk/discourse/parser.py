"""The offline heuristic RST-style parser on a dependency parse (see :class:`HeuristicRSTParser`)."""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from nlgmetrics.core.linguistic import Analyzer, Parsed, get_analyzer
from nlgmetrics.discotk.discourse.tree import DiscourseTree, is_word

#: advcl markers (and UD case-marked gerunds) -> relation; the clause is the satellite
SUBORDINATORS: Dict[str, str] = {
    "because": "Explanation", "since": "Explanation", "as": "Explanation", "for": "Explanation",
    "if": "Condition", "unless": "Condition", "provided": "Condition", "providing": "Condition",
    "assuming": "Condition", "even if": "Condition", "in case": "Condition",
    "when": "Temporal", "whenever": "Temporal", "while": "Temporal", "after": "Temporal",
    "before": "Temporal", "until": "Temporal", "till": "Temporal", "once": "Temporal",
    "as soon as": "Temporal", "upon": "Temporal",
    "although": "Contrast", "though": "Contrast", "even though": "Contrast", "whereas": "Contrast",
    "despite": "Contrast", "except": "Contrast",
    "so": "Enablement", "so that": "Enablement", "in order": "Enablement", "in order that": "Enablement",
    "to": "Enablement",
    "by": "Manner-Means", "without": "Manner-Means", "through": "Manner-Means",
    "as if": "Comparison", "as though": "Comparison", "like": "Comparison", "than": "Comparison",
    "where": "Background",
}
#: coordinating conjunctions between verbs -> (relation, both nuclei?)
COORDINATORS: Dict[str, Tuple[str, bool]] = {
    "and": ("Joint", True), "or": ("Joint", True), "nor": ("Joint", True), "plus": ("Joint", True),
    "but": ("Contrast", True), "yet": ("Contrast", True), "whereas": ("Contrast", True),
    "so": ("Cause", False), "for": ("Explanation", False),
}
#: sentence-initial connectives -> (relation, both nuclei?); otherwise Elaboration (N, S)
SENTENCE_CONNECTIVES: Dict[str, Tuple[str, bool]] = {
    "but": ("Contrast", True), "however": ("Contrast", True), "yet": ("Contrast", True),
    "instead": ("Contrast", True), "nevertheless": ("Contrast", True), "nonetheless": ("Contrast", True),
    "in contrast": ("Contrast", True), "on the other hand": ("Contrast", True),
    "then": ("Temporal", True), "afterwards": ("Temporal", True), "later": ("Temporal", True),
    "meanwhile": ("Temporal", True), "finally": ("Temporal", True),
    "so": ("Cause", False), "therefore": ("Cause", False), "thus": ("Cause", False),
    "hence": ("Cause", False), "consequently": ("Cause", False), "as a result": ("Cause", False),
    "and": ("Joint", True), "also": ("Joint", True), "moreover": ("Joint", True),
    "furthermore": ("Joint", True), "besides": ("Joint", True), "additionally": ("Joint", True),
    "in addition": ("Joint", True), "or": ("Joint", True),
    "for example": ("Elaboration", False), "for instance": ("Elaboration", False),
    "because": ("Explanation", False),
}
#: lemmas whose clausal complement is attributed speech or thought (Attribution)
ATTRIBUTION_VERBS = frozenset(
    "say tell report state claim add announce explain note write argue believe think insist warn "
    "ask reply answer suggest confirm deny declare admit acknowledge estimate predict reveal "
    "stress emphasize emphasise comment mention remark indicate hope fear expect assert maintain "
    "recall contend tweet conclude complain allege promise urge show find know feel learn "
    "hear see understand agree doubt recommend propose".split())
#: a relation and where the nucleus is: "host" (host N, clause S), "clause" (clause N,
#: host S) or "both" (multinuclear)
Rule = Tuple[str, str]
_RELCL = {"relcl", "acl:relcl"}
_OBJECTS = {"dobj", "obj", "iobj", "dative"}


def _leading_marker(words: Sequence[str], table: Mapping[str, object], skip: int = 0) -> Optional[str]:
    """The longest key of ``table`` that opens ``words`` (or opens them after up to ``skip``
    leading words, as in "just because")."""
    for offset in range(min(skip, max(len(words) - 1, 0)) + 1):
        for n in (4, 3, 2, 1):
            key = " ".join(words[offset:offset + n])
            if len(words) - offset >= n and key in table:
                return key
    return None


class _Sentence:
    """Dependency structure of one sentence (global token indices)."""

    def __init__(self, parsed: Parsed, span: range) -> None:
        self.tokens = parsed.tokens
        self.indices = [i for i in span]
        inside = set(self.indices)
        self.children: Dict[int, List[int]] = {i: [] for i in self.indices}
        self.root = self.indices[0]
        for i in self.indices:
            head = self.tokens[i].head
            if head in inside and head != i:
                self.children[head].append(i)
            else:
                self.root = i

    def kids(self, i: int, *deprels: str) -> List[int]:
        return [c for c in self.children[i] if not deprels or self.tokens[c].deprel in deprels]

    def has_infinitival_to(self, i: int) -> bool:
        return any(self.tokens[c].text.lower() == "to" and
                   (self.tokens[c].xpos == "TO" or self.tokens[c].deprel in {"aux", "mark"})
                   for c in self.children[i] if c < i)

    def subtree(self, i: int) -> List[int]:
        out, stack = [], [i]
        while stack:
            j = stack.pop()
            out.append(j)
            stack.extend(self.children[j])
        return sorted(out)

    def opening_words(self, i: int, n: int = 4) -> List[str]:
        """The first ``n`` lowercased words of the clause headed by ``i``."""
        words = [self.tokens[j].text.lower() for j in self.subtree(i) if is_word(self.tokens[j].text)]
        return words[:n]

    def coordinator(self, i: int) -> Optional[int]:
        """The conjunction before conjunct ``i`` (a child of ``i`` in UD, of its head in spaCy)."""
        ccs = [c for c in self.kids(i, "cc") + self.kids(self.tokens[i].head, "cc") if c < i]
        return max(ccs) if ccs else None

    def clause_rule(self, i: int) -> Optional[Rule]:
        """The relation of the clause headed by ``i`` to its host, or None: not an EDU."""
        tok, toks = self.tokens[i], self.tokens
        rel, head = tok.deprel, tok.head
        verbal = tok.upos in {"VERB", "AUX"}
        if rel in _RELCL:
            return "Elaboration", "host"
        if rel == "acl" and verbal and tok.xpos in {"VBG", "VBN"} and \
                any(is_word(toks[c].text) for c in self.children[i]):
            return "Elaboration", "host"
        if rel == "advcl":
            marker = _leading_marker(self.opening_words(i), SUBORDINATORS, skip=1)
            if marker:
                return SUBORDINATORS[marker], "host"
            if self.has_infinitival_to(i):
                return "Enablement", "host"
            return "Background", "host"
        if rel in {"ccomp", "parataxis"} and toks[head].lemma.lower() in ATTRIBUTION_VERBS:
            return "Attribution", "clause"
        if rel == "parataxis":
            return "Elaboration", "host"
        if rel == "xcomp" and self.has_infinitival_to(i) and self.kids(head, *_OBJECTS):
            return "Enablement", "host"
        if rel == "conj" and verbal:
            cc = self.coordinator(i)
            word = toks[cc].text.lower() if cc is not None else "and"
            relation, multi = COORDINATORS.get(word, ("Joint", True))
            return relation, "both" if multi else "host"
        if rel == "prep" and tok.text.lower() in SUBORDINATORS and \
                any(toks[c].deprel == "pcomp" and toks[c].xpos == "VBG" for c in self.children[i]):
            return SUBORDINATORS[tok.text.lower()], "host"
        if rel == "prep" and tok.text.lower() == "according":
            return "Attribution", "host"
        return None


def _join(relation: str, first: DiscourseTree, second: DiscourseTree, nuclearity: Tuple[str, str]
          ) -> DiscourseTree:
    return DiscourseTree(relation, [first, second], nuclearity)


class HeuristicRSTParser:
    """Offline sentence- and clause-level RST-style parser on a dependency parse.

    It approximates an RST parser: EDU boundaries follow clause boundaries of the dependency
    parse, and relations follow connectives and clause types, without any trained model of
    discourse. Never fails: empty, one-word or punctuation-only texts give ``None`` (no EDU
    with a word) or a single EDU."""

    def __init__(self, linguistic_backend: str = "auto", spacy_model: Optional[str] = None) -> None:
        self.linguistic_backend = linguistic_backend
        self.spacy_model = spacy_model

    @property
    def analyzer(self) -> Analyzer:
        return get_analyzer(self.linguistic_backend, self.spacy_model)

    def parse(self, texts: Sequence[str]) -> List[Optional[DiscourseTree]]:
        """Discourse trees of ``texts`` (one batched, cached dependency parse)."""
        return [self.from_parsed(p) for p in self.analyzer.analyze(list(texts))]

    def from_parsed(self, parsed: Parsed) -> Optional[DiscourseTree]:
        """The discourse tree of an already parsed text."""
        trees: List[Tuple[DiscourseTree, List[str]]] = []
        for span in parsed.sentence_spans:
            if len(span) == 0:
                continue
            sentence = _Sentence(parsed, span)
            tree = self._sentence_tree(sentence)
            if tree is not None:
                opening = [parsed.tokens[i].text.lower() for i in list(span)[:4] if is_word(parsed.tokens[i].text)]
                trees.append((tree, opening))
        if not trees:
            return None
        result = trees[0][0]
        for tree, opening in trees[1:]:
            marker = _leading_marker(opening, SENTENCE_CONNECTIVES)
            if marker:
                relation, multi = SENTENCE_CONNECTIVES[marker]
            else:
                relation, multi = "Elaboration", False
            result = _join(relation, result, tree, ("N", "N") if multi else ("N", "S"))
        return result

    def _sentence_tree(self, s: _Sentence) -> Optional[DiscourseTree]:
        # long: the clause tables (owner, members, sub) feed the recursive builders below as closures
        toks = s.tokens
        rules: Dict[int, Rule] = {}
        for i in s.indices:
            if i != s.root:
                rule = s.clause_rule(i)
                if rule is not None:
                    rules[i] = rule
        heads = set(rules) | {s.root}
        owner: Dict[int, int] = {}
        for i in s.indices:  # nearest clause head at or above each token
            j = i
            for _ in range(len(s.indices)):
                if j in heads or toks[j].head not in s.children:
                    break
                j = toks[j].head
            owner[i] = j if j in heads else s.root
        for h in heads:  # a coordinated clause takes its conjunction along
            cc = s.coordinator(h) if h != s.root and toks[h].deprel == "conj" else None
            if cc is not None and not s.children[cc]:
                owner[cc] = h
        members: Dict[int, List[int]] = {h: [] for h in heads}
        for i in s.indices:
            members[owner[i]].append(i)
        sub: Dict[int, List[int]] = {h: [] for h in heads}
        for h in heads:
            if h != s.root:
                parent = owner.get(toks[h].head, s.root)
                # a coordination chain (spaCy: C conj of B conj of A) hangs from its first
                # conjunct, so "A and B, but C" becomes Contrast(Joint(A, B), C)
                while toks[h].deprel == "conj" and parent != s.root and toks[parent].deprel == "conj":
                    parent = owner.get(toks[parent].head, s.root)
                sub[parent].append(h)

        def edu(ids: List[int]) -> Optional[DiscourseTree]:
            word_ids = [i for i in ids if is_word(toks[i].text)]
            if not word_ids:
                return None
            return DiscourseTree.edu(" ".join(toks[i].text for i in ids), [toks[i].text.lower() for i in word_ids])

        def embedded(h: int) -> Optional[Tuple[int, DiscourseTree, int]]:
            """A relative clause inside its host's text: (clause, Same-Unit(Elaboration(before,
            clause), after), start), as RST-DT annotates an embedded Elaboration."""
            for c in sorted(sub[h], key=lambda c: abs(c - h)):
                if toks[c].deprel not in _RELCL and toks[c].deprel != "acl":
                    continue
                span = s.subtree(c)
                before = edu([i for i in members[h] if i < span[0]])
                after = edu([i for i in members[h] if i > span[-1]])
                child = build(c)[0]
                if before is None or after is None or child is None:
                    continue
                inner = _join("Elaboration", before, child, ("N", "S"))
                start = min(i for i in members[h] if is_word(toks[i].text))
                return c, _join("Same-Unit", inner, after, ("N", "N")), start
            return None

        def build(h: int) -> Tuple[Optional[DiscourseTree], int]:
            word_ids = [i for i in members[h] if is_word(toks[i].text)]
            node = edu(members[h])
            start = word_ids[0] if word_ids else members[h][0]
            done = embedded(h)
            if done is not None:
                node, start = done[1], done[2]
            # clauses after the host attach first (nearest first), then fronted ones (nearest
            # first): a fronted "when"/"if"/"because" clause scopes over the whole host,
            # coordinated verbs included
            order = sorted((c for c in sub[h] if done is None or c != done[0]),
                           key=lambda c: (c < h, abs(c - h), c))
            for c in order:
                child, child_start = build(c)
                if child is None:
                    continue
                if node is None:
                    node, start = child, child_start
                    continue
                relation, nucleus = rules[c]
                pair = ("N", "N") if nucleus == "both" else (("S", "N") if nucleus == "clause" else ("N", "S"))
                if child_start < start:  # the clause comes first in the text
                    node, start = _join(relation, child, node, pair[::-1]), child_start
                else:
                    node = _join(relation, node, child, pair)
            return node, start

        return build(s.root)[0]

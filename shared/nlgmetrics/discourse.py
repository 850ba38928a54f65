"""RST-style discourse trees for DiscoTK: the tree type, a bracketed RST text format, an offline
heuristic parser built on the dependency parse, and the five kernel representations.

**Tree type.** :class:`DiscourseTree` is either an EDU (elementary discourse unit: ``text``
and ``words``) or a relation node over two or more children, each child marked nucleus
(``N``) or satellite (``S``).

**Bracketed RST format** (the output format of Feng & Hirst's and similar RST parsers)::

    (Attribution[N][S] (Enablement[N][S] _!it will allow us!_ _!to enter the market ,!_) _!added Cermak .!_)

a relation node is ``(Relation[X][Y]... child child ...)`` with one ``[N]``/``[S]`` per child;
an EDU is its text between ``_!`` and ``!_``. A text made of one EDU is just ``_!text!_``.
:func:`from_rst` and :func:`to_rst` read and write it; ``to_rst(from_rst(s))`` is ``s`` with
whitespace normalised.

**Heuristic parser** (:class:`HeuristicRSTParser`): an approximation of a sentence-level RST
parser (the paper used CODRA, not installable here). Sentences come from the dependency
parser; within a sentence, clauses become EDUs (relative and participial clauses, adverbial
clauses, complements of attribution verbs, purpose to-infinitives, coordinated verbs,
prepositional gerunds); relation and nuclearity come from the clause type and its
connective (see ``SUBORDINATORS``, ``COORDINATORS``, ``ATTRIBUTION_VERBS``); sentences are
joined left to right, by the connective that opens the next sentence or as Elaboration.

**Representations** (all :class:`~nlgmetrics.core.trees.Tree`, under a ``ROOT`` node; an
empty text is the bare leaf ``ROOT``). Words are lowercased, punctuation dropped. A node's
nuclearity is Nucleus, Satellite, or Root for the top node; ``rel`` below is the relation of
the node itself, and for an EDU the relation of its parent (Root for a one-EDU text).

- ``dr-nolex``: ``(rel:nuc child ...)`` for relation nodes, leaf ``EDU:nuc`` for EDUs.
- ``dr-lex1``: as dr-nolex with ``(EDU:nuc (w1 *) (w2 *) ...)``: each word over a dummy leaf
  ``*`` so that single words match as pre-terminals.
- ``dr-lex2``: skeleton ``(SPAN (NUC nuc) (REL rel) child ...)`` and
  ``(EDU (NUC nuc) (NGRAM (w1 *) ...))``.
- ``dr-lex1.1`` / ``dr-lex1.2``: dr-lex1 / dr-lex2 with three more subtrees at each EDU,
  ``(NUC-LEX (nuc w1) ...)``, ``(REL-LEX (rel w1) ...)``, ``(NUCREL-LEX (rel:nuc w1) ...)``,
  in which a word matches only under the same nuclearity, relation, or both.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .core.linguistic import Parsed, get_analyzer
from .core.trees import Tree

NUCLEUS, SATELLITE, ROOT = "Nucleus", "Satellite", "Root"
_NUC_NAME = {"N": NUCLEUS, "S": SATELLITE}
DUMMY = "*"
REPRESENTATIONS = ("dr-nolex", "dr-lex1", "dr-lex2", "dr-lex1.1", "dr-lex1.2")


# --------------------------------------------------------------------------------------
# the tree type and its bracketed text form

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


_RST_TOKENS = re.compile(r"_!.*?!_|\(|\)|[^\s()]+", re.DOTALL)
_RST_LABEL = re.compile(r"^([^\[\]\s]+)((?:\[[NS]\])+)$")


def to_rst(tree: Optional[DiscourseTree]) -> str:
    """The bracketed RST form; ``""`` for no tree (an empty text)."""
    if tree is None:
        return ""
    if tree.is_edu():
        return f"_!{tree.text}!_"
    label = tree.relation + "".join(f"[{n}]" for n in tree.nuclearity)
    return "(" + " ".join([label] + [to_rst(c) for c in tree.children]) + ")"


def from_rst(text: str) -> Optional[DiscourseTree]:
    """Read a bracketed RST tree (see the module doc); ``None`` for blank input. Raises
    ``ValueError`` naming the problem on malformed input."""
    tokens = _RST_TOKENS.findall(text)
    if not tokens:
        return None
    pos = 0

    def parse() -> DiscourseTree:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError("bracketed RST tree ends early: missing ')'")
        tok = tokens[pos]
        pos += 1
        if tok.startswith("_!"):
            if len(tok) < 4 or not tok.endswith("!_"):
                raise ValueError(f"unclosed EDU {tok!r} at token {pos - 1}: EDUs are written _!text!_")
            return DiscourseTree.edu(tok[2:-2])
        if tok != "(":
            raise ValueError(f"expected '(' or an EDU _!...!_ at token {pos - 1}, got {tok!r}")
        if pos >= len(tokens):
            raise ValueError("bracketed RST tree ends after '('")
        match = _RST_LABEL.match(tokens[pos])
        if not match:
            raise ValueError(f"expected a label like Elaboration[N][S] at token {pos}, got {tokens[pos]!r}")
        pos += 1
        nuclearity = tuple(match.group(2)[1::3])
        children = []
        while pos < len(tokens) and tokens[pos] != ")":
            children.append(parse())
        if pos >= len(tokens):
            raise ValueError("unbalanced brackets in RST tree: missing ')'")
        pos += 1
        if len(children) != len(nuclearity):
            raise ValueError(f"{match.group(0)} has {len(nuclearity)} nuclearity marks but {len(children)} children")
        return DiscourseTree(match.group(1), children, nuclearity)

    tree = parse()
    if pos != len(tokens):
        raise ValueError(f"trailing text after the RST tree at token {pos}")
    return tree


def looks_like_rst(text: str) -> bool:
    """True for text in the bracketed RST format (starts with '(' or '_!' and has an EDU)."""
    stripped = text.lstrip()
    return stripped.startswith(("(", "_!")) and "_!" in stripped and "!_" in stripped


# --------------------------------------------------------------------------------------
# the heuristic parser

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


def is_word(text: str) -> bool:
    """A token with a letter or digit (not punctuation or emoji)."""
    return any(ch.isalnum() for ch in text)


def _leading_marker(words: Sequence[str], table: Dict[str, object], skip: int = 0) -> Optional[str]:
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
    def analyzer(self):
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
                sub[owner.get(toks[h].head, s.root)].append(h)

        def build(h: int) -> Tuple[Optional[DiscourseTree], int]:
            word_ids = [i for i in members[h] if is_word(toks[i].text)]
            node = None
            if word_ids:
                node = DiscourseTree.edu(" ".join(toks[i].text for i in members[h]),
                                         [toks[i].text.lower() for i in word_ids])
            start = word_ids[0] if word_ids else members[h][0]
            for c in sorted(sub[h], key=lambda c: (abs(c - h), c)):
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


# --------------------------------------------------------------------------------------
# the five representations

def _walk(tree: DiscourseTree, span: Callable[[DiscourseTree, str, List[Tree]], Tree],
          edu: Callable[[DiscourseTree, str, str], Tree]) -> Tree:
    def rec(node: DiscourseTree, nuc: str, parent_relation: str) -> Tree:
        if node.is_edu():
            return edu(node, nuc, parent_relation)
        kids = [rec(c, _NUC_NAME[n], node.relation) for c, n in zip(node.children, node.nuclearity)]
        return span(node, nuc, kids)

    return Tree("ROOT", [rec(tree, ROOT, ROOT)])


def _sequence(items: List[Tree], layer: str, tag: str) -> List[Tree]:
    """Word nodes as the children of their parent (``flat``), or as a right-branching chain
    ``(tag w1 (tag w2 (tag w3)))`` (``chain``)."""
    if layer == "flat":
        return items
    node: Optional[Tree] = None
    for item in reversed(items):
        node = Tree(tag, [item] + ([node] if node is not None else []))
    return [] if node is None else [node]


def _words(words: Sequence[str], layer: str) -> List[Tree]:
    return _sequence([Tree(w, [Tree(DUMMY)]) for w in words], layer, "W")


def _propagated(words: Sequence[str], nuc: str, relation: str, layer: str) -> List[Tree]:
    if not words:
        return []
    out = []
    for tag, label in (("NUC-LEX", nuc), ("REL-LEX", relation), ("NUCREL-LEX", f"{relation}:{nuc}")):
        out.append(Tree(tag, _sequence([Tree(label, [Tree(w)]) for w in words], layer, "W")))
    return out


def _style1(tree: DiscourseTree, lexical: bool, propagate: bool, layer: str) -> Tree:
    def span(node: DiscourseTree, nuc: str, kids: List[Tree]) -> Tree:
        return Tree(f"{node.relation}:{nuc}", kids)

    def edu(node: DiscourseTree, nuc: str, relation: str) -> Tree:
        kids = _words(node.words, layer) if lexical else []
        if propagate:
            kids += _propagated(node.words, nuc, relation, layer)
        return Tree(f"EDU:{nuc}", kids)

    return _walk(tree, span, edu)


def _style2(tree: DiscourseTree, propagate: bool, layer: str) -> Tree:
    def span(node: DiscourseTree, nuc: str, kids: List[Tree]) -> Tree:
        return Tree("SPAN", [Tree("NUC", [Tree(nuc)]), Tree("REL", [Tree(node.relation)])] + kids)

    def edu(node: DiscourseTree, nuc: str, relation: str) -> Tree:
        kids = [Tree("NUC", [Tree(nuc)]), Tree("NGRAM", _words(node.words, layer))]
        if propagate:
            kids += _propagated(node.words, nuc, relation, layer)
        return Tree("EDU", kids)

    return _walk(tree, span, edu)


LEXICAL_LAYERS = ("flat", "chain")
_BUILDERS: Dict[str, Callable[[DiscourseTree, str], Tree]] = {
    "dr-nolex": lambda t, layer: _style1(t, lexical=False, propagate=False, layer=layer),
    "dr-lex1": lambda t, layer: _style1(t, lexical=True, propagate=False, layer=layer),
    "dr-lex2": lambda t, layer: _style2(t, propagate=False, layer=layer),
    "dr-lex1.1": lambda t, layer: _style1(t, lexical=True, propagate=True, layer=layer),
    "dr-lex1.2": lambda t, layer: _style2(t, propagate=True, layer=layer),
}


def representation(tree: Optional[DiscourseTree], name: str, lexical_layer: str = "flat") -> Tree:
    """One of :data:`REPRESENTATIONS` of ``tree`` (``None``, an empty text, gives ``ROOT``);
    ``lexical_layer`` is ``flat`` (the paper's) or ``chain`` (see the module doc)."""
    if name not in _BUILDERS:
        raise ValueError(f"unknown representation {name!r}; choose from {', '.join(REPRESENTATIONS)}")
    if lexical_layer not in LEXICAL_LAYERS:
        raise ValueError(f"unknown lexical_layer {lexical_layer!r}; choose flat or chain")
    return Tree("ROOT") if tree is None else _BUILDERS[name](tree, lexical_layer)


def representations(tree: Optional[DiscourseTree], lexical_layer: str = "flat") -> Dict[str, Tree]:
    """All five representations of ``tree``."""
    return {name: representation(tree, name, lexical_layer) for name in REPRESENTATIONS}


def draw(tree: Tree) -> str:
    """An indented drawing of a tree (one node per line), as used in the metric card."""
    lines = [tree.label]

    def rec(node: Tree, prefix: str) -> None:
        for k, child in enumerate(node.children):
            last = k == len(node.children) - 1
            lines.append(prefix + ("└── " if last else "├── ") + child.label)
            rec(child, prefix + ("    " if last else "│   "))

    rec(tree, "")
    return "\n".join(lines)

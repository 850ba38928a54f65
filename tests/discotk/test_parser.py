"""The heuristic RST parser on common patterns: coordination, fronted subordinate clauses,
relative clauses, "because" and attribution; and the lexical status subtrees of DR-lex1.1 /
DR-lex1.2 (they match only where words match)."""
from __future__ import annotations

import pytest

from nlgmetrics.discotk.discourse import DiscourseTree, HeuristicRSTParser, representation
from nlgmetrics.discotk.kernels import sst_kernel


@pytest.fixture(scope="module")
def parse():
    parser = HeuristicRSTParser()
    return lambda text: parser.parse([text])[0]


def shape(tree: DiscourseTree) -> str:
    """The tree with EDUs as their first word: Contrast[NN](Joint[NN](the,and),but)."""
    if tree.is_edu():
        return tree.words[0]
    return f"{tree.relation}[{''.join(tree.nuclearity)}](" + ",".join(shape(c) for c in tree.children) + ")"


def test_coordination_left_to_right(parse):
    tree = parse("The shop opened and the staff arrived, but nobody came.")
    assert shape(tree) == "Contrast[NN](Joint[NN](the,and),but)"


def test_fronted_when_clause_precedes_and_scopes_over_its_host(parse):
    assert shape(parse("When the rain stopped, we went out.")) == "Temporal[SN](when,we)"
    tree = parse("When the rain stopped, we went out and played.")
    assert shape(tree) == "Temporal[SN](when,Joint[NN](we,and))"
    assert tree.children[0].text.startswith("When the rain stopped")
    assert shape(parse("He left when she arrived.")) == "Temporal[NS](he,when)"


def test_relative_clauses(parse):
    embedded = parse("The man who came yesterday left early.")
    assert shape(embedded) == "Same-Unit[NN](Elaboration[NS](the,who),left)"
    assert [e.words for e in embedded.edus()] == [("the", "man"), ("who", "came", "yesterday"), ("left", "early")]
    final = parse("I met the man who sold the house.")
    assert final.relation == "Elaboration" and final.nuclearity == ("N", "S")
    assert final.children[1].words[0] == "who"


def test_because(parse):
    assert shape(parse("We stayed home because it rained.")) == "Explanation[NS](we,because)"
    assert shape(parse("Because it rained, we stayed home.")) == "Explanation[SN](because,we)"
    assert shape(parse("We stayed home because it rained, and we read books.")) == \
        "Joint[NN](Explanation[NS](we,because),and)"


def test_attribution(parse):
    said = parse("The minister said that the plan will work.")
    assert said.relation == "Attribution" and "said" in said.children[0].words
    assert said.nuclearity == ("S", "N")
    assert shape(parse("According to the police, the driver was drunk.")) == "Attribution[SN](according,the)"
    assert shape(parse("When he arrived, she said that the plan had failed.")) == \
        "Temporal[SN](when,Attribution[SN](she,that))"


def test_every_edu_keeps_the_text_order(parse):
    text = "When the meeting ended, the manager, who was tired, left because the train was late."
    words = [w for e in parse(text).edus() for w in e.words]
    assert words == "when the meeting ended the manager who was tired left because the train was late".split()


def test_status_subtrees_match_only_where_words_match():
    a, b = DiscourseTree.edu("The cat sat"), DiscourseTree.edu("A dog ran")
    # no word in common: only ROOT -> EDU matches, Delta = 0.4 (the label-only NUC-LEX /
    # REL-LEX / NUCREL-LEX subtrees used to add 0.4 each: K = 1.6)
    assert sst_kernel(representation(a, "dr-lex1.1"), representation(b, "dr-lex1.1")) == pytest.approx(0.4)
    assert sst_kernel(representation(a, "dr-lex1"), representation(b, "dr-lex1")) == pytest.approx(0.4)
    # DR-lex1.2 adds nothing to DR-lex2 then: EDU 0.4 * 1.4 (NUC), NUC 0.4, ROOT 0.4 * 1.56
    lex12 = sst_kernel(representation(a, "dr-lex1.2"), representation(b, "dr-lex1.2"))
    assert lex12 == pytest.approx(sst_kernel(representation(a, "dr-lex2"), representation(b, "dr-lex2")))
    assert lex12 == pytest.approx(0.56 + 0.4 + 0.624)
    # a shared word under the same status matches in each of the three status subtrees
    c = DiscourseTree.edu("The dog ran")
    gain = (sst_kernel(representation(a, "dr-lex1.1"), representation(c, "dr-lex1.1"))
            - sst_kernel(representation(a, "dr-lex1"), representation(c, "dr-lex1")))
    # pre-terminals (the Root) under NUC-LEX and REL-LEX (a one-EDU text's status and relation
    # are both Root: 2 x 2 pairs) and (the Root:Root) under NUCREL-LEX: 5 x 0.4
    assert gain == pytest.approx(5 * 0.4)

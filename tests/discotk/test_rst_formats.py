"""RST-DT's .dis trees and bracketed trees with multi-word labels: reading, the relation
classes, round trips, and scoring such input."""
from __future__ import annotations

import pytest

from nlgmetrics.discotk import DiscoTK
from nlgmetrics.discotk.discourse import COARSE_CLASSES, DiscourseTree, coarse_relation, from_rst, looks_like_rst, to_dis, to_rst

#: a hand-written file in RST-DT's format (as in wsj_*.out.dis: fine relation names with
#: -e / -n / -s suffixes, a multinuclear List, Same-Unit, <P> paragraph marks)
DIS = """( Root (span 1 5)
  ( Nucleus (span 1 3) (rel2par span)
    ( Nucleus (span 1 2) (rel2par span)
      ( Satellite (leaf 1) (rel2par attribution) (text _!Mr. Smith, the chairman, said!_) )
      ( Nucleus (leaf 2) (rel2par span) (text _!the company would expand (slowly) in Europe,!_) )
    )
    ( Satellite (leaf 3) (rel2par purpose) (text _!to reach new buyers.<P>!_) )
  )
  ( Satellite (span 4 5) (rel2par elaboration-additional-e)
    ( Nucleus (leaf 4) (rel2par List) (text _!Sales rose 5%!_) )
    ( Nucleus (leaf 5) (rel2par List) (text _!and profits doubled.<P>!_) )
  )
)
"""

EXPECTED = ("(Elaboration[N][S] (Enablement[N][S] (Attribution[S][N] _!Mr. Smith, the chairman, said!_ "
            "_!the company would expand (slowly) in Europe,!_) _!to reach new buyers.!_) "
            "(Joint[N][N] _!Sales rose 5%!_ _!and profits doubled.!_))")


def test_reads_a_rst_dt_dis_file(tmp_path):
    path = tmp_path / "wsj_0000.out.dis"
    path.write_text(DIS)
    text = path.read_text()
    assert looks_like_rst(text)
    tree = from_rst(text)
    assert to_rst(tree) == EXPECTED
    assert [e.words for e in tree.edus()][2] == ("to", "reach", "new", "buyers")
    assert len(tree.edus()) == 5


def test_dis_round_trip():
    tree = from_rst(DIS)
    written = to_dis(tree)
    assert written.splitlines()[0] == "( Root (span 1 5)"
    assert "( Satellite (span 4 5) (rel2par Elaboration)" in written
    assert "( Nucleus (leaf 4) (rel2par Joint) (text _!Sales rose 5%_!) )" in written  # RST-DT's own form
    assert from_rst(written) == tree
    assert to_dis(from_rst(written)) == written
    single = DiscourseTree.edu("Just one unit.")
    assert from_rst(to_dis(single)) == single and to_dis(None) == ""


def test_bracketed_labels_with_several_words():
    tree = from_rst("(elaboration additional[N][S] _!The man left!_ (Same Unit[N][N] _!who,!_ _!came.!_))")
    assert tree.relation == "Elaboration" and tree.children[1].relation == "Same-Unit"
    assert to_rst(tree) == "(Elaboration[N][S] _!The man left!_ (Same-Unit[N][N] _!who,!_ _!came.!_))"
    assert from_rst(to_rst(tree)) == tree
    other = from_rst("(my own relation[N][S] _!a!_ _!b!_)")
    assert other.relation == "my-own-relation"


def test_relation_classes():
    assert coarse_relation("elaboration-additional-e") == "Elaboration"
    assert coarse_relation("consequence-n") == "Cause"
    assert coarse_relation("Consequence-S") == "Cause"
    assert coarse_relation("circumstance-e") == "Background"
    assert coarse_relation("temporal-same-time") == "Temporal"
    assert coarse_relation("problem-solution-n") == "Topic-Comment"
    assert coarse_relation("TextualOrganization") == "Textual-Organization"
    for coarse in COARSE_CLASSES:  # every class maps to itself
        assert coarse_relation(coarse) == coarse
    assert len(COARSE_CLASSES) == 18


@pytest.mark.parametrize("bad", [
    "( Root (span 1 2) ( Nucleus (leaf 1) (rel2par span) (text _!a!_) ) )",             # one child
    "( Root (span 1 2) ( Nucleus (leaf 1) (rel2par span) (text _!a!_) )"
    " ( Nucleus (leaf 2) (rel2par span) (text _!b!_) ) )",                             # no relation
    "( Root (span 1 2) ( Nucleus (leaf 1) (rel2par span) (txt _!a!_) ) ( Satellite (leaf 2)"
    " (rel2par purpose) (text _!b!_) ) )",                                               # unknown field
    "( Root (span 1 2) ( Nucleus (leaf 1) (rel2par span) (text _!a!_) ) ( Satellite (leaf 2)"
    " (rel2par purpose) (text _!b!_) )",                                                 # unbalanced
    "( Root (span 1 2) ( Satellite (leaf 1) (rel2par x) (text _!a!_) ) ( Satellite (leaf 2)"
    " (rel2par purpose) (text _!b!_) ) )",                                               # no nucleus
    "(Same Unit _!a!_ _!b!_)",                                                           # no marks
])
def test_malformed_dis_and_labels_are_clear_errors(bad):
    with pytest.raises(ValueError):
        from_rst(bad)


def test_scoring_dis_input_equals_scoring_its_bracketed_form():
    scorer = DiscoTK(variant="light", normalization="none", quiet=True)
    hyp = EXPECTED.replace("Enablement", "Joint").replace("[N][S] _!to reach", "[N][N] _!to reach")
    via_dis = scorer.score([hyp, DIS], [DIS, DIS])
    via_bracketed = scorer.score([hyp, EXPECTED], [EXPECTED, EXPECTED])
    assert via_dis.scores == pytest.approx(via_bracketed.scores)
    assert via_dis.scores[1] == pytest.approx(1.0) and via_dis.scores[0] < 1.0


def _nested(depth: int) -> str:
    text = "_!the last unit!_"
    for i in range(depth):
        text = f"(Elaboration[N][S] _!unit {i}!_ {text})"
    return text


def test_too_deep_rst_trees_are_a_clear_error():
    from nlgmetrics.discotk.discourse.rst import MAX_DEPTH

    assert MAX_DEPTH == 400
    for depth in (MAX_DEPTH + 1, 1200):  # 1200 used to raise RecursionError
        with pytest.raises(ValueError, match=f"nested {depth} relation nodes deep; at most 400"):
            from_rst(_nested(depth))
    # the scorer's work budget refuses such a tree before it is read (issue 37: light reads at most 200 EDUs)
    with pytest.raises(ValueError, match="an RST tree of 1,201 EDUs and 2,403 tokens"):
        DiscoTK(variant="light", input_format="rst", quiet=True).score([_nested(1200)], [_nested(2)])
    with pytest.raises(ValueError, match="an RST tree of 100,907 characters; DiscoTK reads at most 100,000"):
        DiscoTK(variant="light", input_format="rst", quiet=True).score([_nested(3000)], [_nested(2)])
    # the deepest allowed tree reads, writes (both formats) and scores
    tree = from_rst(_nested(MAX_DEPTH))
    assert len(tree.edus()) == MAX_DEPTH + 1
    assert to_rst(from_rst(to_dis(tree))) == to_rst(tree) == _nested(MAX_DEPTH)
    with pytest.raises(ValueError, match="nested 401 relation nodes deep"):
        from_rst(to_dis(DiscourseTree("Elaboration", [DiscourseTree.edu("one more"), tree], ("N", "S"))))
    scorer = DiscoTK(variant="light", input_format="rst", normalization="none", quiet=True)
    with pytest.raises(ValueError, match="an RST tree of 401 EDUs .* at most 200 EDUs"):
        scorer.score([_nested(MAX_DEPTH)], [_nested(MAX_DEPTH)])
    result = scorer.score([_nested(100)], [_nested(100)])  # 101 EDUs and 203 tokens: within the caps
    assert result.scores == [pytest.approx(1.0)]

"""The real RST-DT ``.dis`` files in ../shared/data/rst_real/ (written by CODRA, the Feng-Hirst
parser and educe's corpus tools, byte for byte): each is read, an identical pair scores the top,
a tree the project writes reads back equal, and the partial one is one error naming its line
and column. Also auto-detection and hand-made broken trees."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlgmetrics.discotk import DiscoTK
from nlgmetrics.discotk.discourse import DiscourseTree, from_rst, looks_like_rst, to_dis, to_rst

#: file -> (EDUs, the root's relation and nuclearity)
REAL = {
    "codra-docker_test_codra_expected.dis": (2, "Contrast", ("S", "N")),
    "codra-service_README_output.dis": (3, "Same-Unit", ("N", "N")),
    "educe_tests_rst-multinuclear.dis": (10, "Cause", ("N", "S")),
    "educe_tests_rst-mononuclear-multisatellite.dis": (3, "Attribution", ("S", "N")),
    "feng-hirst_examples_AFP_ENG_20030304.0250.txt.dis": (27, "Elaboration", ("N", "S")),
}
TRUNCATED = "educe_test_TSTR2_truncated.dis"


@pytest.fixture(scope="module")
def light():
    return DiscoTK(variant="light", normalization="none", quiet=True)


def _read(shared_data, name: str) -> str:
    return (shared_data / "rst_real" / name).read_bytes().decode("utf-8")


def test_the_folder_holds_the_files_these_tests_name(shared_data):
    assert sorted(p.name for p in (shared_data / "rst_real").iterdir()) == sorted([*REAL, TRUNCATED])


@pytest.mark.parametrize("name", sorted(REAL))
def test_each_real_file_is_read_scored_and_written_back(shared_data, light, name):
    text = _read(shared_data, name)
    assert "_!" in text and "!_" not in text  # the files write EDUs _!text_!, as RST-DT does
    edus, relation, nuclearity = REAL[name]
    tree = from_rst(text)
    assert len(tree.edus()) == edus
    assert (tree.relation, tree.nuclearity) == (relation, nuclearity)
    assert all("<P>" not in e.text and e.text for e in tree.edus())
    assert from_rst(to_dis(tree)) == tree and from_rst(to_rst(tree)) == tree
    assert looks_like_rst(text)
    result = light.score([text], [text])
    assert result.scores == [1.0]
    assert all(v == pytest.approx(1.0) for v in result.details[0]["features"].values())


def test_the_truncated_file_is_one_error_naming_line_and_column(shared_data, light):
    text = _read(shared_data, TRUNCATED)
    with pytest.raises(ValueError) as err:
        from_rst(text)
    assert str(err.value) == (".dis tree: line 5, column 7: the node (span 2 4) has 1 child; a span needs two "
                              "or more (a partial tree?)")
    assert looks_like_rst(text)  # recognised as a tree: an error, not a score as plain text
    with pytest.raises(ValueError, match=r"^\.dis tree: line 5, column 7"):
        light.score([text], [_read(shared_data, "codra-docker_test_codra_expected.dis")])


def test_what_the_real_files_show(shared_data):
    multi = from_rst(_read(shared_data, "educe_tests_rst-multinuclear.dis"))
    # a fragment rooted at span 7-16; Same-Unit over (But + a temporal span), then the earthquake
    same_unit = multi.children[0]
    assert same_unit.relation == "Same-Unit" and same_unit.nuclearity == ("N", "N")
    assert same_unit.children[0].relation == "Temporal"  # temporal-same-time
    assert multi.children[0].children[0].children[1].relation == "Enablement"  # purpose
    # consequence-s -> Cause, a three-way List -> Joint[N][N][N], antithesis -> Contrast
    cause = multi.children[1]
    assert cause.relation == "Cause" and cause.children[0].relation == "Joint"
    assert cause.children[0].nuclearity == ("N", "N", "N")
    assert cause.children[0].children[2].children[0].relation == "Contrast"
    assert multi.edus()[-1].text == "...REST"
    # one nucleus, two satellites with different relations: nested, the later satellite first
    mono = from_rst(_read(shared_data, "educe_tests_rst-mononuclear-multisatellite.dis"))
    assert to_rst(mono) == ("(Attribution[S][N] _!One temple official said!_ (Explanation[N][S] _!about three times "
                            "as much genmai was being eaten as in previous years!_ _!-- not surprisingly, as the temple "
                            "had recently welcomed many new practitioners.!_))")
    # CODRA: a Same-Unit whose first part holds an attribution
    codra = from_rst(_read(shared_data, "codra-service_README_output.dis"))
    assert to_rst(codra) == ("(Same-Unit[N][N] (Attribution[S][N] _!Altough!_ _!they did n't like him ,!_) "
                             "_!they accepted the offer .!_)")


def test_a_real_file_scores_the_same_through_auto_rst_and_its_bracketed_form(shared_data, light):
    text = _read(shared_data, "feng-hirst_examples_AFP_ENG_20030304.0250.txt.dis")
    other = _read(shared_data, "educe_tests_rst-multinuclear.dis")
    auto = light.score([text], [other]).scores
    forced = DiscoTK(variant="light", normalization="none", input_format="rst", quiet=True).score([text], [other])
    bracketed = light.score([to_rst(from_rst(text))], [to_rst(from_rst(other))]).scores
    assert auto == forced.scores == bracketed and 0.0 < auto[0] < 1.0


def test_both_edu_forms_read_the_same():
    old = "( Root (span 1 2)\n ( Nucleus (leaf 1) (rel2par span) (text _!It rained!_) )\n" \
          " ( Satellite (leaf 2) (rel2par cause-s) (text _!so we stayed.<P>!_) ) )"
    assert from_rst(old) == from_rst(old.replace("!_)", "_!)"))
    assert to_rst(from_rst(old)) == "(Cause[N][S] _!It rained!_ _!so we stayed.!_)"
    # an exclamation mark at the end of an EDU is text, in either form
    assert from_rst("(Joint[N][N] _!Wow!!_ _!b!_)").edus()[0].text == "Wow!"
    assert from_rst(old.replace("It rained!_", "It rained!_!")).edus()[0].text == "It rained!"


@pytest.mark.parametrize("bad, where", [
    ("( Root (span 1 3)\n ( Nucleus (leaf 1) (rel2par span) (text _!a_!) )\n"
     " ( Satellite (leaf 2) (rel2par purpose) (text _!b_!) ) )", "line 1, column 1: (span 1 3) but the leaves under it are 1-2"),
    ("( Root (span 1 2)\n ( Nucleus (leaf 1) (rel2par span) (text _!a_!) )\n"
     " ( Satellite (leaf 3) (rel2par purpose) (text _!b_!) ) )", "line 3, column 2: leaf 3 where leaf 2 comes next"),
    ("( Root (span 1 2)\n ( Nucleus (leaf 1) (rel2par span) (text _!a_!) )\n"
     " ( Satellite (leaf 2) (rel2par purpose) (text _!b_!) ) ", "line 1, column 1: the Root opened here is never closed"),
    ("( Root (span 1 2)\n ( Nucleus (leaf 1) (rel2par span) (text _!a) )\n"
     " ( Satellite (leaf 2) (rel2par purpose) (text _!b_!) ) )", "line 2, column 36: EDU text must be written _!text_!"),
    ("( Root (span 1 2)\n ( Nucleus (leaf 1) (rel2par span) (text _!a_!) )\n"
     " ( Satellite (leaf 2) (rel2par purpose) (text _!b_!) ) ) x", "line 3, column 58: text after the end"),
    ("( Root (span 1 2)\n ( Nucleus (leaf 1) (rel2par span) (txt _!a_!) )\n"
     " ( Satellite (leaf 2) (rel2par purpose) (text _!b_!) ) )", "line 2, column 36: unknown field 'txt'"),
    ("(Elaboration[N][S]\n  word _!b!_)", "line 2, column 3: expected '(' or an EDU"),
    ("(Joint[N][N] _!a!_ _!b)", "line 1, column 20: an EDU that is not closed"),
])
def test_a_broken_tree_is_one_error_naming_line_and_column(bad, where):
    with pytest.raises(ValueError, match=re.escape(where)):
        from_rst(bad)


def test_auto_detection_calls_text_a_tree_only_when_it_is_one():
    assert not looks_like_rst("(see below) the _!x!_ thing")
    assert not looks_like_rst("_!not closed, so plain text")
    assert looks_like_rst("_!one EDU!_") and looks_like_rst("  ( Root (span 1 2)\n ...")
    assert looks_like_rst("(Elaboration[N][S] _!a!_ broken")  # a tree's opening: must parse, else an error
    scorer = DiscoTK(variant="light", normalization="none", quiet=True)
    with pytest.raises(ValueError, match="line 1, column 26: expected '\\(', '\\)' or an EDU after an EDU, got 'broken'"):
        scorer.score(["(Elaboration[N][S] _!a!_ broken"], ["_!a!_"])


_TEXT = st.text(st.sampled_from("ab !_(),.<>P"), min_size=1, max_size=12).filter(
    lambda s: "_!" not in s and "!_" not in s and "<P>" not in s and s.split())


@st.composite
def trees(draw, depth: int = 3) -> DiscourseTree:
    if depth == 0 or draw(st.booleans()):
        return DiscourseTree.edu(draw(_TEXT))
    n = draw(st.integers(2, 3))
    nuc = tuple(draw(st.sampled_from("NS")) for _ in range(n))
    if "N" not in nuc:
        nuc = ("N",) + nuc[1:]
    if nuc.count("N") == 1 and n > 2:
        nuc = ("N",) * n  # a lone nucleus takes satellites of one relation only in a flat node
    rel = draw(st.sampled_from(["Elaboration", "Joint", "Same-Unit", "Cause", "my-scheme"]))
    return DiscourseTree(rel, [draw(trees(depth - 1)) for _ in range(n)], nuc)


@settings(max_examples=150, deadline=None)
@given(trees())
def test_written_trees_read_back_equal(tree):
    assert from_rst(to_dis(tree)) == tree
    assert from_rst(to_rst(tree)) == tree

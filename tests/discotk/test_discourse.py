"""Discourse trees: the bracketed RST format, the five representations of a fixed parse
against their documented forms (metrics/discotk/README.md), and the heuristic parser."""
from __future__ import annotations

import pytest

from nlgmetrics.discotk.discourse import (
    REPRESENTATIONS,
    DiscourseTree,
    HeuristicRSTParser,
    draw,
    edu_words,
    from_rst,
    looks_like_rst,
    representation,
    representations,
    to_rst,
)

EXAMPLE = "(Attribution[S][N] _!Ann said!_ (Enablement[N][S] _!we left!_ _!to win.!_))"

#: the documented forms (the card draws the same trees)
FLAT = {
    "dr-nolex": "(ROOT (Attribution:Root EDU:Satellite (Enablement:Nucleus EDU:Nucleus EDU:Satellite)))",
    "dr-lex1": "(ROOT (Attribution:Root (EDU:Satellite (ann *) (said *)) (Enablement:Nucleus "
               "(EDU:Nucleus (we *) (left *)) (EDU:Satellite (to *) (win *)))))",
    "dr-lex2": "(ROOT (SPAN (NUC Root) (REL Attribution) (EDU (NUC Satellite) (NGRAM (ann *) (said *))) "
               "(SPAN (NUC Nucleus) (REL Enablement) (EDU (NUC Nucleus) (NGRAM (we *) (left *))) "
               "(EDU (NUC Satellite) (NGRAM (to *) (win *))))))",
    "dr-lex1.1": "(ROOT (Attribution:Root (EDU:Satellite (ann *) (said *) (NUC-LEX (ann Satellite) "
                 "(said Satellite)) (REL-LEX (ann Attribution) (said Attribution)) (NUCREL-LEX "
                 "(ann Attribution:Satellite) (said Attribution:Satellite))) (Enablement:Nucleus "
                 "(EDU:Nucleus (we *) (left *) (NUC-LEX (we Nucleus) (left Nucleus)) (REL-LEX "
                 "(we Enablement) (left Enablement)) (NUCREL-LEX (we Enablement:Nucleus) "
                 "(left Enablement:Nucleus))) (EDU:Satellite (to *) (win *) (NUC-LEX (to Satellite) "
                 "(win Satellite)) (REL-LEX (to Enablement) (win Enablement)) (NUCREL-LEX "
                 "(to Enablement:Satellite) (win Enablement:Satellite))))))",
    "dr-lex1.2": "(ROOT (SPAN (NUC Root) (REL Attribution) (EDU (NUC Satellite) (NGRAM (ann *) (said *)) "
                 "(NUC-LEX (ann Satellite) (said Satellite)) (REL-LEX (ann Attribution) (said Attribution)) "
                 "(NUCREL-LEX (ann Attribution:Satellite) (said Attribution:Satellite))) (SPAN (NUC Nucleus) "
                 "(REL Enablement) (EDU (NUC Nucleus) (NGRAM (we *) (left *)) (NUC-LEX (we Nucleus) "
                 "(left Nucleus)) (REL-LEX (we Enablement) (left Enablement)) (NUCREL-LEX "
                 "(we Enablement:Nucleus) (left Enablement:Nucleus))) (EDU (NUC Satellite) (NGRAM (to *) "
                 "(win *)) (NUC-LEX (to Satellite) (win Satellite)) (REL-LEX (to Enablement) "
                 "(win Enablement)) (NUCREL-LEX (to Enablement:Satellite) (win Enablement:Satellite))))))",
}


def test_representations_match_documented_forms():
    tree = from_rst(EXAMPLE)
    reps = representations(tree)
    assert tuple(reps) == REPRESENTATIONS
    for name, expected in FLAT.items():
        assert reps[name].to_bracketed() == expected, name


def test_chain_lexical_layer():
    tree = from_rst(EXAMPLE)
    assert representation(tree, "dr-lex1", "chain").to_bracketed() == (
        "(ROOT (Attribution:Root (EDU:Satellite (W (ann *) (W (said *)))) (Enablement:Nucleus "
        "(EDU:Nucleus (W (we *) (W (left *)))) (EDU:Satellite (W (to *) (W (win *)))))))")
    assert representation(tree, "dr-nolex", "chain").to_bracketed() == FLAT["dr-nolex"]
    lex12 = representation(tree, "dr-lex1.2", "chain").to_bracketed()
    assert "(NUC-LEX (W (ann Satellite) (W (said Satellite))))" in lex12


def test_single_edu_and_empty_representations():
    single = DiscourseTree.edu("Hello, world!")
    assert single.words == ("hello", "world")
    assert representation(single, "dr-nolex").to_bracketed() == "(ROOT EDU:Root)"
    assert representation(single, "dr-lex1.1").to_bracketed() == (
        "(ROOT (EDU:Root (hello *) (world *) (NUC-LEX (hello Root) (world Root)) (REL-LEX (hello Root) "
        "(world Root)) (NUCREL-LEX (hello Root:Root) (world Root:Root))))")
    for name in REPRESENTATIONS:
        assert representation(None, name).to_bracketed() == "ROOT"
    with pytest.raises(ValueError):
        representation(single, "dr-lex3")


def test_rst_round_trip():
    tree = from_rst(EXAMPLE)
    assert to_rst(tree) == EXAMPLE
    assert from_rst(to_rst(tree)) == tree
    messy = """(Joint[N][N]
        (Elaboration[N][S]  _!The  man  left!_   _!who came (yesterday)!_ )
        _!and  nobody noticed.!_)"""
    parsed = from_rst(messy)
    assert to_rst(parsed) == ("(Joint[N][N] (Elaboration[N][S] _!The man left!_ _!who came (yesterday)!_) "
                              "_!and nobody noticed.!_)")
    assert from_rst(to_rst(parsed)) == parsed
    assert parsed.children[0].children[1].words == ("who", "came", "yesterday")
    assert to_rst(from_rst("_!Just one unit.!_")) == "_!Just one unit.!_"
    assert from_rst("   ") is None and to_rst(None) == ""
    assert looks_like_rst(EXAMPLE) and not looks_like_rst("(Not) a tree")


@pytest.mark.parametrize("bad", [
    "(Elaboration[N][S] _!only one!_)",          # nuclearity marks vs children
    "(Elaboration[S][S] _!a!_ _!b!_)",          # no nucleus
    "(Elaboration _!a!_ _!b!_)",                 # no nuclearity
    "_!abc",                                     # unclosed EDU
    "(Joint[N][N] _!a!_ _!b)",                   # unclosed EDU inside a tree
    "(Elaboration[N][S] _!a!_ _!b!_",            # unbalanced
    "(Elaboration[N][S] _!a!_ _!b!_) _!c!_",     # trailing
    "(Elaboration[N][S] word _!b!_)",            # bare word
])
def test_rst_errors(bad):
    with pytest.raises(ValueError):
        from_rst(bad)


def test_edu_words_drop_punctuation_and_lowercase():
    assert edu_words('"It\'s OK," she said — 3 times!') == ["it's", "ok", "she", "said", "3", "times"]
    assert edu_words("... !!! 😀") == []


@pytest.fixture(scope="module")
def parser():
    return HeuristicRSTParser()


def test_parser_never_fails_on_degenerate_input(parser):
    texts = ["", "   ", "word", ".", "...", "!!! ???", "😀😀", "这是一个测试。", "Привет мир",
             "a " * 400]
    trees = parser.parse(texts)
    assert trees[0] is None and trees[1] is None
    assert to_rst(trees[2]) == "_!word!_"
    assert all(t is None for t in trees[3:7])
    for t in trees[7:]:
        assert t is not None and all(e.words for e in t.edus())
    for t in trees:  # every tree has all five representations
        for name in REPRESENTATIONS:
            representation(t, name)


def test_parser_relations_from_connectives(parser):
    cond, attribution, purpose, two = parser.parse([
        "If it rains tomorrow, we will stay at home.",
        '"The plan will work," the minister said.',
        "The company cut prices to attract new customers.",
        "The shop closed early. However, nobody complained.",
    ])
    assert cond.relation == "Condition" and cond.nuclearity == ("S", "N")
    assert cond.children[0].text.lower().startswith("if it rains")
    assert attribution.relation == "Attribution" and attribution.nuclearity == ("N", "S")
    assert "said" in attribution.children[1].words
    assert purpose.relation == "Enablement" and purpose.children[1].words[:2] == ("to", "attract")
    assert two.relation == "Contrast" and two.nuclearity == ("N", "N")


def test_draw():
    drawing = draw(representation(from_rst(EXAMPLE), "dr-nolex"))
    assert drawing.splitlines() == [
        "ROOT",
        "└── Attribution:Root",
        "    ├── EDU:Satellite",
        "    └── Enablement:Nucleus",
        "        ├── EDU:Nucleus",
        "        └── EDU:Satellite",
    ]

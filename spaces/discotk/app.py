"""Gradio Space for DiscoTK (Joty et al., WMT 2014): the discourse trees of the hypothesis and
of the reference drawn side by side, the subset-tree-kernel similarity of the two trees under
each of the five representations and party's other features, each label explained, with how to
read the score (the core's warnings show in the page). Run ``python app.py``; tests call
:func:`build_demo`."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

import gradio as gr

from nlgmetrics import space as ui
from nlgmetrics.discotk import PARTY_MEMBERS, DiscoTK
from nlgmetrics.discotk.discourse import REPRESENTATIONS, DiscourseTree
from nlgmetrics.registry import example

_DEMO = example("discotk").inputs
_REF3 = "He stayed at home because it was raining, although he wanted to go out."
EXAMPLES = [
    # three segments: light normalises each kernel by its maximum over the test set
    {"predictions": "\n".join(list(_DEMO["predictions"]) + ["He went out because it was sunny."]),
     "references": "\n".join(list(_DEMO["references"]) + [_REF3])},
    {"predictions": "He stayed at home because it was raining, although he wanted to go out.\n"
                    "Although he wanted to go out, he stayed home since it rained.\n"
                    "He wanted to go out.",
     "references": "\n".join(["Although he wanted to go out, he stayed at home because it rained."] * 3)},
]

SUMMARY = ("Compares the discourse (RST) tree of a translation with its reference's by tree kernels; "
           "0 to 1, higher is better.")
INTRO = """DiscoTK compares the **RST discourse tree** of a translation with that of its reference: a
subset-tree kernel counts the tree fragments they share under five representations (with or
without the words, relation and nuclearity labels on the words), each normalised to [0, 1].
**light** averages the five (normalised per test set); **party** adds TER, METEOR and dependency
features and combines them with weights learned from human better/worse pairs. The trees come
from an offline heuristic parser on the dependency parse (the paper used CODRA); bracketed RST
trees are accepted as input too. Solid lines lead to nuclei (N), dashed lines to satellites (S).
The parser and METEOR's synonyms are English-only."""

SETTINGS = [ui.Setting("variant", label="Variant",
                       info="light: the five tree kernels; party: plus TER, METEOR, dependencies")]
LEGEND = [
    ("dr-nolex", "discourse tree without words: relations and nuclearity only"),
    ("dr-lex1", "the tree with the words of each EDU under it"),
    ("dr-lex2", "another layout (span / nucleus / relation nodes) with the words as n-grams"),
    ("dr-lex1.1", "dr-lex1 where a word matches only under the same nuclearity, relation, or both"),
    ("dr-lex1.2", "dr-lex2 with the same word-under-label subtrees as dr-lex1.1"),
    ("ter", "1 − TER/100: 1 for identical texts, below 0 when edits outnumber the reference words"),
    ("meteor", "METEOR with WordNet synonyms, 0 to 1"),
    ("dp-hwcm_c-4", "head-word chains (up to 4 words) of the dependency trees matched with their categories"),
    ("dp-hwcm_r-4", "head-word chains (up to 4 words) matched with their relations"),
    ("dp-or", "overlap of dependency relations"),
]
_REF = "Although he wanted to go out, he stayed at home because it rained."
ANCHORS = (ui.Anchor("exact copy", _REF, _REF),
           ui.Anchor("paraphrase", "He stayed at home because it was raining, although he wanted to go out.", _REF),
           ui.Anchor("discourse lost (an error)", "He wanted to go out. It rained.", _REF))


def reading(scorer: DiscoTK) -> ui.Reading:
    light = scorer.config.variant == "light"
    scale = ("DiscoTK-light is between 0 and 1; higher is better. Each kernel is divided by its maximum over the "
             "lines scored together, so the best line of a test set gets 1 on it." if light else
             "DiscoTK-party is between 0 and 1 (a logistic model's probability that the translation is the better "
             "one of a pair); higher is better.")
    corpus = ("The corpus score is the mean of the segment scores, and each segment's score depends on the other "
              "lines (per-test-set normalisation): score at least three lines." if light else
              "The corpus score is the mean of the segment scores; with learned weights a segment's score does "
              "not depend on the other lines.")
    return ui.Reading(scale=scale, corpus=corpus, anchors=ANCHORS)


def as_node(tree: Optional[DiscourseTree]) -> ui.TreeNode:
    """A discourse tree as a drawable node (an empty text draws as an empty EDU)."""
    if tree is None:
        return ui.TreeNode("(no words)")
    if tree.is_edu():
        return ui.TreeNode(tree.text)
    return ui.TreeNode(tree.relation, [
        _edge(as_node(child), nuc) for child, nuc in zip(tree.children, tree.nuclearity)])


def _edge(node: ui.TreeNode, nuclearity: str) -> ui.TreeNode:
    node.edge, node.strong = nuclearity, nuclearity == "N"
    return node


def _tree(side: str, tree: Optional[DiscourseTree]) -> str:
    node = as_node(tree)
    leaves = ui.count_leaves(node)
    if leaves > ui.MAX_LEAVES:
        return (f"<div><b>{side.capitalize()} tree</b></div>"
                + ui.note(f"{leaves} discourse units: too many to draw (at most {ui.MAX_LEAVES}); the kernels below "
                          "are computed on the whole tree."))
    return f"<div><b>{side.capitalize()} tree</b></div>" + ui.tree_svg(node, role=f"{side}-tree")


def explain(scorer: DiscoTK, result: Any, inputs: Dict[str, Any]) -> List[str]:
    blocks = []
    for i, (hyp, ref) in enumerate(zip(inputs["predictions"], inputs["references"])):
        if i >= ui.MAX_DRAWN:
            break
        hyp_analysis, ref_analysis = scorer.analyze([hyp, ref])
        features = result.details[i]["features"]
        trees = ui.flex_row([_tree("hypothesis", hyp_analysis.tree), _tree("reference", ref_analysis.tree)])
        kernels = ui.bar_chart([(name, features[name]) for name in REPRESENTATIONS], digits=3, domain=(0, 1),
                               width=460, label_width=90, title="tree-kernel similarity per representation",
                               role="kernels")
        others = [(name, features[name]) for name in PARTY_MEMBERS if name in features]
        party = ui.bar_chart(others, digits=3, domain=(0, 1), width=460, label_width=110, color="#54a24b",
                             title="party's other features (before weighting)", role="party-features") \
            if others else ""
        blocks.append(ui.section(f"Segment {i + 1}", trees + ui.flex_row([kernels, party])))
    return [ui.legend(LEGEND) + "".join(blocks)]


def note(result: Any) -> str:
    corpus = result.corpus
    return f"DiscoTK-{corpus['variant']} with {corpus['weights']} weights"


SPEC = ui.SpaceSpec(
    metric="discotk", title="DiscoTK: discourse trees compared by tree kernels", summary=SUMMARY, intro=INTRO,
    settings=SETTINGS, visuals=lambda: [gr.HTML(elem_id="discotk-trees")], explain=explain,
    examples=EXAMPLES, note=note, reading=reading,
    english_only="DiscoTK's discourse parser and METEOR's synonyms")


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The DiscoTK Space (not launched); see :func:`nlgmetrics.space.build_space`."""
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

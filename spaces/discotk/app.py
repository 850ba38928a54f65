"""Gradio Space for DiscoTK (Joty et al., WMT 2014): the discourse trees of the hypothesis and
of the reference drawn side by side, and the subset-tree-kernel similarity of the two trees
under each of the five representations. Run ``python app.py``; tests call :func:`build_demo`."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

import gradio as gr

from nlgmetrics import spaces_support as ui
from nlgmetrics.discotk import PARTY_MEMBERS, VARIANTS, DiscoTK
from nlgmetrics.discourse import REPRESENTATIONS, DiscourseTree

_DEMO = DiscoTK.demo_inputs
EXAMPLES = [
    {"predictions": "\n".join(_DEMO["predictions"]), "references": "\n".join(_DEMO["references"])},
    {"predictions": "He stayed at home because it was raining, although he wanted to go out.",
     "references": "Although he wanted to go out, he stayed at home because it rained."},
]

INTRO = """DiscoTK compares the **RST discourse tree** of a translation with that of its reference: a
subset-tree kernel counts the tree fragments they share under five representations (with or
without the words, relation and nuclearity labels on the words), each normalised to [0, 1].
**light** averages the five (normalised per test set); **party** adds TER, METEOR and dependency
features and combines them with weights learned from human better/worse pairs. The trees come
from an offline heuristic parser on the dependency parse (the paper used CODRA); bracketed RST
trees are accepted as input too. Solid lines lead to nuclei (N), dashed lines to satellites (S)."""


def settings(initial: ui.InitialValues) -> Dict[str, Any]:
    return {"variant": gr.Radio(list(VARIANTS), value=initial("variant"), label="Variant",
                                info="light: the five tree kernels; party: plus TER, METEOR, dependencies",
                                elem_id="setting-variant")}


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


def explain(scorer: DiscoTK, result: Any, inputs: Dict[str, Any]) -> List[str]:
    blocks = []
    for i, (hyp, ref) in enumerate(zip(inputs["predictions"], inputs["references"])):
        if i >= ui.MAX_DRAWN:
            break
        hyp_analysis, ref_analysis = scorer.analyze([hyp, ref])
        features = result.details[i]["features"]
        trees = ui.flex_row([
            f"<div><b>{side.capitalize()} tree</b></div>" + ui.tree_svg(as_node(analysis.tree), role=f"{side}-tree")
            for side, analysis in (("hypothesis", hyp_analysis), ("reference", ref_analysis))])
        kernels = ui.bar_chart([(name, features[name]) for name in REPRESENTATIONS], digits=3, domain=(0, 1),
                               width=460, label_width=90, title="tree-kernel similarity per representation",
                               role="kernels")
        others = [(name, features[name]) for name in PARTY_MEMBERS if name in features]
        party = ui.bar_chart(others, digits=3, domain=(0, 1), width=460, label_width=110, color="#54a24b",
                             title="party's other features (raw)", role="party-features") if others else ""
        charts = ui.flex_row([kernels, party])
        blocks.append(ui.section(f"Segment {i + 1}", trees + charts))
    return ["".join(blocks)]


def note(result: Any) -> str:
    corpus = result.corpus
    return f"DiscoTK-{corpus['variant']} with {corpus['weights']} weights"


SPEC = ui.SpaceSpec(
    metric="discotk", title="DiscoTK: discourse trees compared by tree kernels", intro=INTRO,
    settings=settings, visuals=lambda: [gr.HTML(elem_id="discotk-trees")], explain=explain,
    examples=EXAMPLES, note=note)


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The DiscoTK Space (not launched); see :func:`nlgmetrics.spaces_support.build_space`."""
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

"""Gradio Space for TextEval (Brew and Thompson, 1994): each prediction with its standard set of
translations placed on the 1-D scale (classical MDS of the pairwise distances, with its r2)
and every member's distance to the composite of the rest. Run ``python app.py``; tests call
:func:`build_demo`."""
from __future__ import annotations

import html
from typing import Any, Dict, List, Mapping, Optional

import gradio as gr

from nlgmetrics import spaces_support as ui
from nlgmetrics.texteval import APPROACHES, DISTANCES, MODELS, TextEval

_DEMO = TextEval.demo_inputs
EXAMPLES = [
    {"predictions": "\n".join(_DEMO["predictions"]), "references": "\n".join(_DEMO["references"][0])},
    {"predictions": "The cat sat on the mat.\nMat the on sat cat the.",
     "references": "The cat sat on the mat.\nA cat was sitting on the mat.\nThe cat is sitting on the rug."},
]

INTRO = """TextEval rates a translation by how much it resembles the other translations of the same
source, its **standard set**: every text becomes a multinomial over words, part-of-speech tags or
ambiguity classes, and two texts differ by Dunning's G² (or −ln p of it). The **direct** approach
scores a prediction by minus its distance to the composite (summed counts) of the set; the
**scaling** approach places the whole set on one dimension by classical MDS, and r² says how much
of the pairwise distances that scale explains (the paper distrusts scales with r² below 0.1).
Here every prediction line is rated against *all* reference lines (its standard set)."""


def settings(initial: ui.InitialValues) -> Dict[str, Any]:
    return {
        "model": gr.Radio(list(MODELS), value=initial("model"), label="Features",
                          info="words, POS tags (spaCy) or ambiguity classes (WordNet)", elem_id="setting-model"),
        "approach": gr.Radio(list(APPROACHES), value=initial("approach"), label="Approach",
                             elem_id="setting-approach"),
        "distance": gr.Radio(list(DISTANCES), value=initial("distance"), label="Distance",
                             info="G², or −ln p of G² (the paper reports −ln p)", elem_id="setting-distance"),
    }


def scale_svg(names: List[str], coords: List[float], highlight: int = 0, width: int = 640) -> str:
    """The members of a set as dots on the 1-D scale; labels alternate above and below."""
    lo, hi = min(coords + [0.0]), max(coords + [0.0])
    span = (hi - lo) or 1.0
    left, right, axis_y = 40, width - 40, 60

    def x_of(v: float) -> float:
        return left + (right - left) * (v - lo) / span

    parts = [f'<svg class="nlgm-scale" data-role="scale" width="{width}" height="120" viewBox="0 0 {width} 120" '
             f'xmlns="http://www.w3.org/2000/svg" style="font-family:sans-serif;font-size:12px">',
             f'<line x1="{left}" y1="{axis_y}" x2="{right}" y2="{axis_y}" stroke="#333"/>',
             f'<text x="{left}" y="{axis_y + 50}" fill="#777">{ui.fmt(lo, 2)}</text>',
             f'<text x="{right}" y="{axis_y + 50}" fill="#777" text-anchor="end">'
             f"{ui.fmt(hi, 2)} (closer to consensus →)</text>"]
    order = sorted(range(len(coords)), key=lambda k: coords[k])
    for rank, k in enumerate(order):
        x = x_of(coords[k])
        above = rank % 2 == 0
        colour = "#f58518" if k == highlight else "#4c78a8"
        parts.append(f'<circle cx="{x:.1f}" cy="{axis_y}" r="{7 if k == highlight else 5}" fill="{colour}" '
                     f'data-name="{html.escape(names[k])}" data-value="{coords[k]!r}"/>')
        parts.append(f'<text x="{x:.1f}" y="{axis_y - 14 if above else axis_y + 22}" text-anchor="middle" '
                     f'fill="{colour}">{html.escape(names[k])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def explain(scorer: TextEval, result: Any, inputs: Dict[str, Any]) -> List[str]:
    blocks = []
    unit = "−ln p" if scorer.distance == "neg_log_p" else "G²"
    for i, (pred, refs) in enumerate(zip(inputs["predictions"], inputs["references"])):
        if i >= ui.MAX_DRAWN:
            break
        names = ["prediction"] + [f"ref {k + 1}" for k in range(len(refs))]
        ranking = scorer.rank_set([pred] + list(refs), names=names)
        if len(names) >= 3:
            reliability = "reliable" if ranking.reliable else f"below {scorer.min_r2:g}: the scale is not trustworthy"
            head = (f'<div>1-D scale of the set (classical MDS): <b data-role="r2" data-value="{ranking.r2!r}">'
                    f"r² = {ui.fmt(ranking.r2, 3)}</b> ({reliability})</div>")
            scale = scale_svg(names, ranking.scaling)
        else:
            head, scale = "<div>A scale needs at least three texts (the prediction and two references).</div>", ""
        distances = ui.bar_chart([(n, -d) for n, d in zip(names, ranking.direct)], digits=2,
                                 title=f"distance to the composite of the rest ({unit}; lower = closer)",
                                 role="distances")
        blocks.append(ui.section(f"Segment {i + 1}: {ui.shorten(pred, 70)}", head + scale + distances))
    return ["".join(blocks)]


def note(result: Any) -> str:
    corpus = result.corpus
    extra = f"; mean r² {ui.fmt(corpus['mean_r2'], 3)}" if "mean_r2" in corpus else ""
    return f"corpus score: {corpus.get('corpus', '')} level{extra}"


SPEC = ui.SpaceSpec(
    metric="texteval", title="TextEval: translations rated against their standard set", intro=INTRO,
    settings=settings, visuals=lambda: [gr.HTML(elem_id="texteval-scale")], explain=explain,
    examples=EXAMPLES, reference_set=True, note=note,
    labels={"predictions": "Predictions (one per line, each rated against the whole set)",
            "references": "Standard set: other translations of the same source (one per line)"})


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The TextEval Space (not launched); see :func:`nlgmetrics.spaces_support.build_space`."""
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

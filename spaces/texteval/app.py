"""Gradio Space for TextEval (Brew and Thompson, 1994): each prediction with its standard set of
translations placed on the 1-D scale (classical MDS of the pairwise distances, with its r2)
and every member's direct score (minus its distance to the composite of the rest), both drawn
with the same orientation (right = closer to the consensus). Run ``python app.py``; tests call
:func:`build_demo`."""
from __future__ import annotations

import html
from typing import Any, Dict, List, Mapping, Optional

import gradio as gr

from nlgmetrics import space as ui
from nlgmetrics.registry import example
from nlgmetrics.texteval import TextEval
from nlgmetrics.texteval.explain import segment_ranking

_DEMO = example("texteval").inputs
_SET = list(_DEMO["references"][0])
EXAMPLES = [
    # three predictions: the corpus score (one document) depends on every line
    {"predictions": "\n".join(list(_DEMO["predictions"])
                              + ["This report describes the chances and dangers of the many languages of Europe."]),
     "references": "\n".join(_SET)},
    {"predictions": "The cat sat on the mat.\nMat the on sat cat the.\nA cat sat on a mat.",
     "references": "The cat sat on the mat.\nA cat was sitting on the mat.\nThe cat is sitting on the rug."},
]

SUMMARY = ("Rates each translation by how much it resembles the other translations of the same source "
           "(its standard set); higher (closer to 0) is better.")
INTRO = """TextEval rates a translation by how much it resembles the other translations of the same
source, its **standard set**: every text becomes a multinomial over words, part-of-speech tags or
ambiguity classes, and two texts differ by Dunning's G² (or −ln p of it). The **direct** approach
scores a prediction by minus its distance to the composite (summed counts) of the set; the
**scaling** approach places the whole set on one dimension by classical MDS, and r² says how much
of the pairwise distances that scale explains (the paper distrusts scales with r² below 0.1).
Here every prediction line is rated against *all* reference lines (its standard set). The tagger
and WordNet's ambiguity classes are English-only."""

SETTINGS = [ui.Setting("features", label="Features", info="words, POS tags (spaCy) or ambiguity classes (WordNet)"),
            ui.Setting("approach", label="Approach"),
            ui.Setting("distance", label="Distance", info="G², or −ln p of G² (the paper reports −ln p)")]
_REFS = list(_SET)
ANCHORS = (ui.Anchor("exact copy of a member of the set", _SET[0], _REFS),
           ui.Anchor("paraphrase", _DEMO["predictions"][0], _REFS),
           ui.Anchor("scrambled word order (an error)", _DEMO["predictions"][1], _REFS))
LEGEND = [("prediction", "the line being rated (orange)"),
          ("ref k", "member k of its standard set (the reference lines)"),
          ("r²", "share of the pairwise distances the 1-D scale explains; below 0.1 the scale is not trustworthy"),
          ("direct score", "minus the distance (G² or −ln p) to the composite of the other members")]


def reading(scorer: Any) -> ui.Reading:
    cfg = scorer.config
    unit = "−ln p" if cfg.distance == "neg_log_p" else "G²"
    if cfg.approach == "direct":
        scale = (f"A segment's score is minus its distance ({unit}) to the composite of its standard set: 0 for a "
                 "text identical to the composite, more negative when further; higher is better. There is no lower "
                 "bound, and values grow with text length.")
    else:
        scale = ("A segment's score is its coordinate on the set's 1-D MDS scale, oriented so that higher is closer "
                 "to the consensus; trust it only when r² is at least 0.1.")
    if getattr(cfg, "corpus", "document") == "document":
        corpus = ("The corpus score rates all predictions joined as one document against the joined standard set: "
                  "it is neither the mean nor the sum of the segment scores, and it depends on every line. Each "
                  "segment's own score depends only on its standard set.")
    else:
        corpus = "The corpus score is the mean of the segment scores."
    return ui.Reading(scale=scale, corpus=corpus, anchors=ANCHORS)


def scale_svg(names: List[str], coords: List[float], highlight: int = 0, width: int = 640,
              role: str = "scale") -> str:
    """The members of a set as dots on the 1-D scale; labels alternate above and below."""
    lo, hi = min(coords + [0.0]), max(coords + [0.0])
    span = (hi - lo) or 1.0
    left, right, axis_y = 40, width - 40, 60

    def x_of(v: float) -> float:
        return left + (right - left) * (v - lo) / span

    parts = [f'<svg class="nlgm-scale" data-role="{role}" width="{width}" height="120" viewBox="0 0 {width} 120" '
             f'xmlns="http://www.w3.org/2000/svg" style="font-family:sans-serif;font-size:12px;max-width:100%;'
             f'height:auto">',
             f'<line x1="{left}" y1="{axis_y}" x2="{right}" y2="{axis_y}" stroke="#333"/>',
             f'<text x="{left}" y="{axis_y + 50}" fill="#777">{ui.fmt(lo, 2)}</text>',
             f'<text x="{right}" y="{axis_y + 50}" fill="#777" text-anchor="end">'
             f"{ui.fmt(hi, 2)} (closer to the consensus →)</text>"]
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
    unit = "−ln p" if scorer.config.distance == "neg_log_p" else "G²"
    pair_cache: Dict[Any, float] = {}  # the segments share their set: its distances computed once
    for i, (pred, refs) in enumerate(zip(inputs["predictions"], inputs["references"])):
        if i >= ui.MAX_DRAWN:
            break
        names, ranking = segment_ranking(scorer, pred, refs, pair_cache)
        if len(names) >= 3:
            reliability = "reliable" if ranking.reliable else \
                f"below {scorer.config.min_r2:g}: the scale is not trustworthy"
            head = (f'<div>1-D scale of the set (classical MDS): <b data-role="r2" data-value="{ranking.r2!r}">'
                    f"r² = {ui.fmt(ranking.r2, 3)}</b> ({reliability})</div>")
            scale = scale_svg(names, ranking.scaling)
        else:
            head, scale = "<div>A scale needs at least three texts (the prediction and two references).</div>", ""
        direct = ('<div style="margin-top:6px">Direct score: minus the distance to the composite of the rest '
                  f'({unit}); same orientation, right = closer</div>'
                  + scale_svg(names, list(ranking.direct), role="direct"))
        left_out = len(refs) - (len(names) - 1)
        cut = ui.note(f"The first {len(names) - 1} references are ranked, as in the score ({left_out} left out).") \
            if left_out else ""
        blocks.append(ui.section(f"Segment {i + 1}: {ui.shorten(pred, 70)}", head + scale + direct + cut))
    return [ui.legend(LEGEND) + "".join(blocks)]


def note(result: Any) -> str:
    corpus = result.corpus
    extra = f"; mean r² {ui.fmt(corpus['mean_r2'], 3)}" if "mean_r2" in corpus else ""
    return f"corpus score: {corpus.get('corpus', '')} level{extra}"


SPEC = ui.SpaceSpec(
    metric="texteval", title="TextEval: translations rated against their standard set", intro=INTRO,
    summary=SUMMARY, settings=SETTINGS, visuals=lambda: [gr.HTML(elem_id="texteval-scale")], explain=explain,
    examples=EXAMPLES, reference_set=True, note=note, reading=reading,
    english_only="TextEval's tagger and WordNet ambiguity classes (the words features work in any language)",
    labels={"predictions": "Predictions (one per line, each rated against the whole set)",
            "references": "Standard set: other translations of the same source (one per line)"})


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The TextEval Space (not launched); see :func:`nlgmetrics.space.build_space`."""
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

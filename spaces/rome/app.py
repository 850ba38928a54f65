"""Gradio Space for RoMe (Rony et al., ACL 2022): the word alignment behind F_EMD as a heatmap
of contextual cosine similarities (aligned pairs framed), the three component scores and the
final score. Run ``python app.py``; tests call :func:`build_demo`."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

import gradio as gr

from nlgmetrics import spaces_support as ui
from nlgmetrics.core.embeddings import normalize_rows
from nlgmetrics.rome import PROFILES, RoMe, preprocess

_DEMO = RoMe.demo_inputs
EXAMPLES = [
    {"predictions": "\n".join(_DEMO["predictions"]), "references": "\n".join(_DEMO["references"])},
    # the appendix's TED example (Figure 6)
    {"predictions": "aida cruises, which is in rostock, operates aidaluna.",
     "references": "the aidaluna is operated by aida cruises which are located at rostock."},
]

INTRO = """RoMe combines three features of a hypothesis–reference pair with a small trained network:
**F_EMD**, one minus the earth mover's distance between the two sentences' contextual word vectors
after a hard, position-aware word alignment (the heatmap: cosine similarity of every word pair,
aligned pairs framed in red); **F_TED**, the tree edit distance of the two dependency trees where
words with similar vectors count as equal (a distance: lower is better); and **F_grammar**, the
probability that the hypothesis is grammatical (a CoLA classifier). The `paper` profile uses
ALBERT-large and a BERT CoLA model from the Hub; `lite` uses all-MiniLM-L6-v2 and the project's
CoLA head, offline. Several references for one hypothesis go on one line separated by `|||`."""


def settings(initial: ui.InitialValues) -> Dict[str, Any]:
    return {"profile": gr.Radio(list(PROFILES), value=initial("profile", ui.default_profile(list(PROFILES))),
                                label="Profile", info="paper: ALBERT-large + BERT CoLA (Hub); lite: MiniLM, offline",
                                elem_id="setting-profile")}


def alignment_heatmap(scorer: RoMe, hypothesis: str, reference: str, pairs: List[List[Any]]) -> str:
    """Cosine similarities of the two sentences' words (as F_EMD sees them), aligned pairs
    marked."""
    hyp_words = preprocess(hypothesis)[: scorer.max_words]
    ref_words = preprocess(reference)[: scorer.max_words]
    if not hyp_words or not ref_words:
        return "<div>(no words to align)</div>"
    hyp_vecs, ref_vecs = scorer.encoder.word_vectors([hyp_words, ref_words])
    cosine = normalize_rows(hyp_vecs) @ normalize_rows(ref_vecs).T
    return ui.heatmap(hyp_words, ref_words, cosine.tolist(), marked=[(p[0], p[1]) for p in pairs],
                      lo=0.0, hi=1.0, role="alignment")


def explain(scorer: RoMe, result: Any, inputs: Dict[str, Any]) -> List[str]:
    blocks = []
    for i, (hyp, refs) in enumerate(zip(inputs["predictions"], inputs["references"])):
        if i >= ui.MAX_DRAWN:
            break
        d = result.details[i]
        ref = refs if isinstance(refs, str) else refs[d.get("reference_index", 0)]
        components = ui.bar_chart(
            [("F_EMD (higher better)", d["f_emd"]), ("F_TED (lower better)", d["f_ted"]),
             ("F_grammar", d["f_grammar"]), ("RoMe", result.scores[i])], digits=3, domain=(0, 1),
            role="components")
        heat = alignment_heatmap(scorer, hyp, ref, d.get("alignment", []))
        caption = (f'<div style="margin:4px 0;color:#555;max-width:520px">cosine of the word vectors; rows: '
                   f"hypothesis, columns: reference. Framed: the {len(d.get('alignment', []))} hard-aligned pairs "
                   f"(each hypothesis word takes the best cosine × position factor, kept when the cosine exceeds "
                   f"δ = {scorer.delta_emd:g} and the reference word is free)</div>")
        body = ui.flex_row([components, caption + heat])
        blocks.append(ui.section(f"Segment {i + 1}: {ui.shorten(hyp, 70)}", body))
    return ["".join(blocks)]


SPEC = ui.SpaceSpec(
    metric="rome", title="RoMe: a robust metric for NLG", intro=INTRO, settings=settings,
    visuals=lambda: [gr.HTML(elem_id="rome-alignment")], explain=explain, examples=EXAMPLES,
    fixed_options={"return_alignment": True},
    labels={"references": "References (one per line, aligned; several on a line separated by |||)"})


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The RoMe Space (not launched); see :func:`nlgmetrics.spaces_support.build_space`."""
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

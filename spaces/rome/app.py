"""Gradio Space for RoMe (Rony et al., ACL 2022): the word alignment behind F_EMD as a heatmap
of the alignment score RoMe picks pairs by (cosine x position factor; kept pairs framed), the
three component scores and the final score, with how to read them. Run ``python app.py``;
tests call :func:`build_demo`."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

import gradio as gr
import numpy as np

from nlgmetrics import space as ui
from nlgmetrics.registry import example
from nlgmetrics.rome import RoMe
from nlgmetrics.rome.explain import alignment_map

_DEMO = example("rome").inputs
EXAMPLES = [
    {"predictions": "\n".join(_DEMO["predictions"]), "references": "\n".join(_DEMO["references"])},
    # the appendix's TED example (Figure 6)
    {"predictions": "aida cruises, which is in rostock, operates aidaluna.",
     "references": "the aidaluna is operated by aida cruises which are located at rostock."},
]

SUMMARY = ("Scores a hypothesis against a reference from 0 to 1 (higher is better) by word alignment, "
           "dependency trees and grammaticality.")
INTRO = """RoMe combines three features of a hypothesis–reference pair with a small trained network:
**F_EMD**, one minus the earth mover's distance between the two sentences' contextual word vectors
after a hard, position-aware word alignment (the heatmap); **F_TED**, the tree edit distance of the
two dependency trees where words with similar vectors count as equal (a distance: lower is better);
and **F_grammar**, the probability that the hypothesis is grammatical (a CoLA classifier). The
`paper` profile uses ALBERT-large and a BERT CoLA model from the Hub; `lite` uses all-MiniLM-L6-v2
and the project's CoLA head, offline. Several references for one hypothesis go on one line
separated by `|||`. The parser, the CoLA head and the lite encoder are English-only."""

_REF = "Shakespeare has written Macbeth."
READING = ui.Reading(
    scale="RoMe is between 0 and 1; higher is better. F_EMD and F_grammar: 0 to 1, higher is better; "
          "F_TED: a distance from 0 to 1, lower is better.",
    corpus="The corpus score is the mean of the segment scores; a segment's score does not depend on the "
           "other lines.",
    anchors=(ui.Anchor("exact copy", _REF, _REF), ui.Anchor("paraphrase", "Macbeth was written by Shakespeare.", _REF),
             ui.Anchor("roles swapped (an error)", "Macbeth has written Shakespeare.", _REF)))
LEGEND = [("F_EMD", "1 − word mover's distance after the framed alignment (higher is better)"),
          ("F_TED", "tree edit distance of the dependency trees, normalised (lower is better)"),
          ("F_grammar", "probability that the hypothesis is grammatical (CoLA classifier)"),
          ("RoMe", "the network's combination of the three")]
SETTINGS = [ui.Setting("profile", info="paper: ALBERT-large + BERT CoLA (Hub); lite: MiniLM, offline")]


def alignment_heatmap(scorer: RoMe, hypothesis: str, reference: str, pairs: List[List[Any]]) -> str:
    """The alignment score of every word pair as RoMe picks pairs by it, cos x (1 - |i/m - j/n|),
    kept pairs framed; each cell's tooltip gives the plain cosine. Long sentences are cut."""
    amap = alignment_map(scorer, hypothesis, reference)  # RoMe's own analysis: what the score used
    hyp_words, ref_words, cosine, factor = amap.hyp_words, amap.ref_words, amap.cosine, amap.factor
    if not hyp_words or not ref_words:
        return "<div>(no words to align)</div>"
    none = np.zeros(cosine.shape, dtype=bool)
    antonyms, names = amap.zeroed.get("antonyms", none), amap.zeroed.get("names", none)
    score = amap.score  # as F_EMD: zeroed pairs' cosine counts as 0
    cap = ui.MAX_HEATMAP
    shown = np.asarray(score)[:cap, :cap]

    def title(i: int, j: int) -> str:
        why = "WordNet antonyms" if antonyms[i, j] else "two different names" if names[i, j] else ""
        return (f"{why}: cosine taken as 0 (the encoder's: {cosine[i, j]:.2f})" if why else
                f"cosine {cosine[i, j]:.2f}, position factor {factor[i, j]:.2f}")

    titles = [[title(i, j) for j in range(shown.shape[1])] for i in range(shown.shape[0])]
    table = ui.heatmap(hyp_words[:cap], ref_words[:cap], shown.tolist(), lo=0.0, hi=1.0, role="alignment",
                       marked=[(p[0], p[1]) for p in pairs if p[0] < cap and p[1] < cap], titles=titles)
    cut = ui.note(f"Only the first {cap} words of each side are drawn; all are scored.") \
        if max(len(hyp_words), len(ref_words)) > cap else ""
    return table + cut


def transport_note(emd_unaligned: str, emd_antonyms: str = "off", emd_names: str = "off") -> str:
    """What the framed and unframed cells cost in F_EMD's transport, for the scorer's settings."""
    if emd_unaligned == "cosine":
        note = ("In F_EMD's transport a framed pair costs 1 − cosine × its soft position penalty, "
                "every other pair 1 − cosine (emd_unaligned = cosine).")
    else:
        note = "In F_EMD's transport only the framed pairs cost less than 1 (emd_unaligned = one)."
    if emd_antonyms == "wordnet":
        note += " WordNet antonyms (small/large) count as cosine 0: never framed, cost 1 (emd_antonyms = wordnet)."
    if emd_names != "off":
        note += (" Two different capitalised names (Paris/London) count as cosine 0: never framed, cost 1 "
                 f"(emd_names = {emd_names}).")
    return note


def explain(scorer: RoMe, result: Any, inputs: Dict[str, Any]) -> List[str]:
    blocks = []
    delta = scorer.config.delta_emd
    for i, (hyp, refs) in enumerate(zip(inputs["predictions"], inputs["references"])):
        if i >= ui.MAX_DRAWN:
            break
        d = result.details[i]
        ref = refs if isinstance(refs, str) else refs[d.get("reference_index", 0)]
        components = ui.bar_chart(
            [("F_EMD (higher better)", d["f_emd"]), ("F_TED (lower better)", d["f_ted"]),
             ("F_grammar", d["f_grammar"]), ("RoMe", result.scores[i])], digits=3, domain=(0, 1),
            role="components")
        pairs = d.get("alignment", [])
        caption = ui.note(
            f"Rows: hypothesis words, columns: reference words. Colour and number: the alignment score "
            f"cos × (1 − |i/m − j/n|) by which each hypothesis word picks its partner (hover for the plain cosine). "
            f"Framed: the {len(pairs)} kept pairs — a row's best score, kept when its cosine exceeds δ = {delta:g} "
            f"and the reference word is still free. " + transport_note(scorer.config.emd_unaligned,
                                                                       scorer.config.emd_antonyms,
                                                                       scorer.config.emd_names))
        body = ui.flex_row([components, caption + alignment_heatmap(scorer, hyp, ref, pairs)])
        blocks.append(ui.section(f"Segment {i + 1}: {ui.shorten(hyp, 70)}", body))
    return [ui.legend(LEGEND) + "".join(blocks)]


SPEC = ui.SpaceSpec(
    metric="rome", title="RoMe: a robust metric for NLG", summary=SUMMARY, intro=INTRO, settings=SETTINGS,
    visuals=lambda: [gr.HTML(elem_id="rome-alignment")], explain=explain, examples=EXAMPLES,
    reading=lambda scorer: READING,
    english_only="RoMe's dependency parser, CoLA grammar classifier and lite encoder",
    fixed_options={"return_alignment": True},
    labels={"references": "References (one per line, aligned; several on a line separated by |||)"})


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The RoMe Space (not launched); see :func:`nlgmetrics.space.build_space`."""
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

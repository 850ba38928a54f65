"""Gradio Space for DATScore (data-augmented translation score): the score of each generation
direction centred on the hypothesis, the one-vs-rest direction weights as bar charts, and the
augmented translations (source and reference translated by the same M2M-100 model). Run
``python app.py``; tests call :func:`build_demo` with a local checkpoint."""
from __future__ import annotations

import html
from typing import Any, Dict, List, Mapping, Optional

import gradio as gr

from nlgmetrics import spaces_support as ui
from nlgmetrics.datscore import DEFAULT_MODEL, DIRECTION_SETS, DIRECTION_WEIGHTINGS, DATScore
from nlgmetrics.core.seq2seq import TOKEN_WEIGHTINGS

_DEMO = DATScore.demo_inputs
#: the demo's French-English pairs (the setting of the paper's Figure 1: Src_fr, Ref_en,
#: Hypo_en), and more segments so that the one-vs-rest weights have correlations to use
EXAMPLES = [
    {"predictions": "\n".join(_DEMO["predictions"]), "references": "\n".join(_DEMO["references"]),
     "sources": "\n".join(_DEMO["sources"])},
    {"predictions": "The cat sits on the carpet.\nIt rains since the morning.\nThe government announced new "
                    "measures.\nScientists found a frog.",
     "references": "The cat is sitting on the mat.\nIt has been raining since this morning.\nThe government "
                   "announced new measures for small businesses.\nScientists have discovered a new species of frog.",
     "sources": "Le chat est assis sur le tapis.\nIl pleut depuis ce matin.\nLe gouvernement a annoncé de "
                "nouvelles mesures pour les petites entreprises.\nDes scientifiques ont découvert une nouvelle "
                "espèce de grenouille."},
]

INTRO = """DATScore scores a hypothesis by the conditional log-likelihoods a multilingual translation
model (M2M-100) gives along up to **eight generation directions** centred on it: from and to the
source, the reference and two **augmented translations** (the source and the reference translated
into other languages by the same model). Each direction's token log-probabilities are averaged
with entropy weights; the directions are combined with **one-vs-rest weights** (how much each
direction's scores correlate with the others' over the corpus; three segments at least, else
uniform). Scores are log-probabilities: higher (closer to 0) is better. The model is a Hub id or
a local directory; the default `facebook/m2m100_418M` downloads once when the Hub is reachable."""

#: the scorer's own default (entropy token weights and one-vs-rest, uniform for bartscore)
_AUTO = ("auto", "")


def settings(initial: ui.InitialValues) -> Dict[str, Any]:
    local = (DATScore.demo_options or {}).get("model")
    return {
        "model": gr.Textbox(value=initial("model", local or DEFAULT_MODEL),
                            label="M2M-100 model (Hub id or local directory)",
                            elem_id="setting-model", scale=3),
        "source_lang": gr.Textbox(value=initial("source_lang", "fr"), label="Source language", max_lines=1,
                                  elem_id="setting-source-lang", scale=1),
        "target_lang": gr.Textbox(value=initial("target_lang"), label="Target language", max_lines=1,
                                  elem_id="setting-target-lang", scale=1),
        "directions": gr.Dropdown(["auto"] + list(DIRECTION_SETS), value=initial("directions"), label="Directions",
                                  info="auto: all eight with sources, the four reference ones without",
                                  elem_id="setting-directions"),
        "token_weights": gr.Dropdown([_AUTO] + list(TOKEN_WEIGHTINGS), value=initial("token_weights", ""),
                                     label="Token weights", elem_id="setting-token-weights"),
        "direction_weights": gr.Dropdown([_AUTO] + list(DIRECTION_WEIGHTINGS), value=initial("direction_weights", ""),
                                         label="Direction weights", elem_id="setting-direction-weights"),
    }


def _label(direction: str) -> str:
    return direction.replace("->", " → ")


def explain(scorer: DATScore, result: Any, inputs: Dict[str, Any]) -> List[str]:
    corpus = result.corpus
    weights = corpus["direction_weights"]
    note = f'<div style="color:#8a5300">{html.escape(corpus["weights_note"])}</div>' if "weights_note" in corpus else ""
    charts = [ui.section(f"Direction weights ({corpus['direction_weighting']})",
                         ui.bar_chart([(_label(d), w) for d, w in weights.items()], digits=3,
                                                      domain=(0, 1), role="weights") + note)]
    shown = result.details[: ui.MAX_DRAWN]
    lowest = min(min(detail["directions"].values()) for detail in shown)  # one axis for all segments
    segments = [ui.section(f"Segment {i + 1}", ui.bar_chart(
        [(_label(d), s) for d, s in detail["directions"].items()], digits=3, width=400, label_width=110,
        domain=(lowest, 0.0), role="directions")) for i, detail in enumerate(shown)]
    charts.append(ui.section("Score per direction (weighted mean token log-probability; higher is better)",
                             ui.flex_row(segments, gap=28)))
    langs = corpus["languages"]
    rows = []
    for i, detail in enumerate(result.details[: ui.MAX_DRAWN]):
        cells = [inputs["sources"][i] if inputs["sources"] else "", inputs["references"][i], inputs["predictions"][i]]
        translations = detail.get("translations", {})
        cells += [translations.get("trans1", "—"), translations.get("trans2", "—")]
        rows.append("<tr>" + "".join(f'<td style="padding:4px 8px;vertical-align:top">{html.escape(c)}</td>'
                                     for c in cells) + "</tr>")
    head = [f"Source ({langs.get('src', '—')})", f"Reference ({langs.get('ref', '—')})",
            f"Hypothesis ({langs.get('hypo', '—')})", f"Trans1: source → {langs.get('trans1', '—')}",
            f"Trans2: reference → {langs.get('trans2', '—')}"]
    table = ('<table data-role="translations" style="border-collapse:collapse;font-size:14px"><tr>'
             + "".join(f'<th style="text-align:left;padding:4px 8px">{html.escape(h)}</th>' for h in head)
             + "</tr>" + "".join(rows) + "</table>")
    return ["".join(charts), ui.section("Augmented translations", table)]


def note(result: Any) -> str:
    return f"{len(result.corpus['directions'])} directions, token weights {result.corpus['token_weights']}"


SPEC = ui.SpaceSpec(
    metric="datscore", title="DATScore: data-augmented translation scoring", intro=INTRO,
    settings=settings, explain=explain, examples=EXAMPLES, note=note,
    visuals=lambda: [gr.HTML(elem_id="datscore-directions"), gr.HTML(elem_id="datscore-translations")],
    fixed_options={"return_translations": True},
    labels={"predictions": "Hypotheses (one segment per line)",
            "sources": "Sources (one per line; needed for the source and Trans1 directions)"})


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The DATScore Space (not launched); see :func:`nlgmetrics.spaces_support.build_space`."""
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

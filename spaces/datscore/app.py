"""Gradio Space for DATScore (data-augmented translation score): the score of each generation
direction centred on the hypothesis, the one-vs-rest direction weights as bar charts, and the
augmented translations (source and reference translated by the same M2M-100 model), with how
to read the log-probability scores. The models offered come from the Space owner's
``NLGMETRICS_SPACE_MODELS`` (never typed by a visitor). Run ``python app.py``; tests call
:func:`build_demo` with a local checkpoint."""
from __future__ import annotations

import dataclasses
import html
import os
from typing import Any, Dict, List, Mapping, Optional

import gradio as gr

from nlgmetrics import space as ui
from nlgmetrics.datscore import DEFAULT_MODEL, DIRECTION_SETS, DIRECTION_WEIGHTINGS, DATScore
from nlgmetrics.datscore.seq2seq import TOKEN_WEIGHTINGS
from nlgmetrics.registry import example
from nlgmetrics.space.languages import language_choices

_DEMO = example("datscore").inputs
#: French-English (the setting of the paper's Figure 1: Src_fr, Ref_en, Hypo_en), three
#: segments at least so that the one-vs-rest weights have correlations to use
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

SUMMARY = ("Scores a translation by how likely a multilingual translation model finds it, in up to eight "
           "directions; log-probabilities, higher (closer to 0) is better.")
INTRO = """DATScore scores a hypothesis by the conditional log-likelihoods a multilingual translation
model (M2M-100) gives along up to **eight generation directions** centred on it: from and to the
source, the reference and two **augmented translations** (the source and the reference translated
into other languages by the same model). Each direction's token log-probabilities are averaged
with entropy weights; the directions are combined with **one-vs-rest weights** (how much each
direction's scores correlate with the others' over the corpus; three segments at least, else
uniform). The models offered are set by the Space's owner (`NLGMETRICS_SPACE_MODELS`)."""

_LANGS = language_choices()
SETTINGS = [
    ui.Setting("source_lang", label="Source language", choices=_LANGS, widget="dropdown"),
    ui.Setting("target_lang", label="Target language", choices=_LANGS, widget="dropdown"),
    ui.Setting("directions", label="Directions", choices=["auto"] + list(DIRECTION_SETS),
               info="auto: all eight with sources, the four reference ones without"),
    ui.Setting("token_weights", label="Token weights", choices=list(TOKEN_WEIGHTINGS)),
    ui.Setting("direction_weights", label="Direction weights", choices=list(DIRECTION_WEIGHTINGS)),
    ui.Setting("ovr_min_segments", label="Fewest lines for one-vs-rest"),
]
_SRC, _REF = "Le chat est assis sur le tapis.", "The cat is sitting on the mat."
ANCHORS = (ui.Anchor("exact copy", _REF, _REF, _SRC),
           ui.Anchor("paraphrase", "The cat sits on the carpet.", _REF, _SRC),
           ui.Anchor("wrong meaning (an error)", "The dog is sleeping on the sofa.", _REF, _SRC))
LEGEND = [("src → hypo", "the hypothesis generated from the source (and so on for each arrow: from → to)"),
          ("ref", "the reference"), ("trans1", "the source translated into a third language by the same model"),
          ("trans2", "the reference translated into a fourth language"),
          ("weight", "share of a direction in the score (one-vs-rest: how well it agrees with the others)")]


def reading(scorer: DATScore) -> ui.Reading:
    least = getattr(scorer.config, "ovr_min_segments", 3)
    return ui.Reading(
        scale="Scores are weighted mean token log-probabilities: at most 0, higher (closer to 0) is better. There "
              "is no fixed lower bound: compare scores of the same model and settings only.",
        corpus="The corpus score is the mean of the segment scores; with one-vs-rest weights every segment's score "
               f"depends on the other lines (the weights come from correlations over the lines; uniform below "
               f"{least} lines).",
        anchors=ANCHORS)


def _label(direction: str) -> str:
    return direction.replace("->", " → ")


def explain(scorer: DATScore, result: Any, inputs: Dict[str, Any]) -> List[str]:
    corpus = result.corpus
    weights = corpus["direction_weights"]
    charts = [ui.section(f"Direction weights ({corpus['direction_weighting']})",
                         ui.bar_chart([(_label(d), w) for d, w in weights.items()], digits=3, domain=(0, 1),
                                      role="weights"))]
    shown = result.details[: ui.MAX_DRAWN]
    lowest = min(min(detail["directions"].values()) for detail in shown)  # one axis for all segments
    segments = [ui.section(f"Segment {i + 1}", ui.bar_chart(
        [(_label(d), s) for d, s in detail["directions"].items()], digits=3, width=400, label_width=110,
        domain=(lowest, 0.0), role="directions", negative_color="#4c78a8")) for i, detail in enumerate(shown)]
    charts.append(ui.section("Score per direction (weighted mean token log-probability; closer to 0 is better)",
                             ui.flex_row(segments, gap=28)))
    langs = corpus["languages"]
    rows = []
    for i, detail in enumerate(shown):
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
    return [ui.legend(LEGEND) + "".join(charts), ui.section("Augmented translations", table)]


def note(result: Any) -> str:
    return f"{len(result.corpus['directions'])} directions, token weights {result.corpus['token_weights']}"


SPEC = ui.SpaceSpec(
    metric="datscore", title="DATScore: data-augmented translation scoring", summary=SUMMARY, intro=INTRO,
    settings=SETTINGS, explain=explain, examples=EXAMPLES, note=note, reading=reading,
    visuals=lambda: [gr.HTML(elem_id="datscore-directions"), gr.HTML(elem_id="datscore-translations")],
    fixed_options={"return_translations": True},
    noun="hypothesis",
    labels={"predictions": "Hypotheses (one segment per line)",
            "sources": "Sources (one per line; needed for the source and Trans1 directions)"})


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The DATScore Space (not launched); see :func:`nlgmetrics.space.build_space`. The model
    list: ``NLGMETRICS_SPACE_MODELS``, else the local example checkpoint and the default."""
    initial = {"source_lang": "fr", "target_lang": "en", **dict(options or {})}
    local = os.environ.get("NLGMETRICS_DATSCORE_MODEL", "")
    models = ui.allowed_models([m for m in (local, DEFAULT_MODEL) if m], initial.get("model"))
    initial.setdefault("model", models[0])
    settings = [ui.Setting("model", label="M2M-100 model", choices=models, widget="dropdown",
                           info="the models this Space offers (set by its owner)")] + SETTINGS
    return ui.build_space(dataclasses.replace(SPEC, settings=settings), scorer_factory, initial, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

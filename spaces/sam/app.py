"""Gradio Space for SAM (Saadany et al., RANLP 2021): the hypothesis and the reference with the
words they do not share coloured by prior polarity, the base metric score and the
sentiment-adjusted score, with how to read them. Run ``python app.py``; tests call
:func:`build_demo`."""
from __future__ import annotations

import html
from typing import Any, Dict, List, Mapping, Optional, Sequence

import gradio as gr

from nlgmetrics import space as ui
from nlgmetrics.sam import BASE_SCALES, BASES
from nlgmetrics.sam.explain import item_spans

#: the paper's examples 1-4 (Section 2)
EXAMPLES = [
    {"predictions": "If he had blown himself up in your country, God would forgive him",
     "references": "If he had blown himself up in your country, God would not forgive"},
    {"predictions": "What is this amount of anger, I don't understand!",
     "references": "What is this amount of happiness, I don't understand!"},
    {"predictions": "The weather is sunny, what a happy day\nI'm not sure why, but I feel so happy today",
     "references": "The sun is shining, what a cheerful day\nI don't get it, but I feel so sad today"},
]

#: the axis of the base-vs-SAM chart per base-metric scale
SCALE_DOMAINS = {"0-1": (0.0, 1.0), "0-100": (0.0, 100.0)}

SUMMARY = ("Lowers a translation metric's score (METEOR, BLEU, chrF, BERTScore) when the hypothesis and the "
           "reference differ in sentiment.")
INTRO = """SAM adjusts a sentence-level metric C_hr (METEOR, BLEU, chrF or BERTScore) by the sentiment
of the words the hypothesis and the reference **do not** share: each side's unmatched words get
their prior polarity from a lexicon (here `sentivader`: VADER's lexicon combined with the
SentiWordNet 3.0 prior; `sentiwordnet`, the paper-like prior, is an option), S_h and S_r are
their |s|-weighted means, p = |S_h − S_r| / 2 and **SAM = C_hr · (1 − p)**. Unmatched words are coloured
<span style="background:#c7e9c0">positive</span>, <span style="background:#fcbba1">negative</span>
or <span style="text-decoration:underline dotted">without polarity</span>. The `paper` profile
uses roberta-large for BERTScore (from the Hub); `lite` uses all-MiniLM-L6-v2 and runs offline.
The sentiment lexicon and the tagger are English-only."""

SETTINGS = [ui.Setting("base", label="Base metric C_hr", choices=[b for b in BASES if b != "given"],
                       info="sentence BLEU or chrF (0-100), METEOR or BERTScore F1 (0-1)"),
            ui.Setting("profile", info="the BERTScore encoder: paper = roberta-large, lite = MiniLM"),
            ui.Setting("matching", info="lemma#pos, or METEOR's exact/stem/synonym stages")]
_REF = "The weather is sunny, what a happy day"
ANCHORS = (ui.Anchor("exact copy", _REF, _REF),
           ui.Anchor("paraphrase", "The sun is shining, what a cheerful day", _REF),
           ui.Anchor("sentiment flipped (an error)", "The weather is sunny, what a sad day", _REF))
LEGEND = [("S_h, S_r", "polarity of the hypothesis's / reference's unmatched words, |s|-weighted mean in [−1, 1]"),
          ("p", "sentiment penalty |S_h − S_r| / 2, in [0, 1]; 0 when both sides agree"),
          ("base", "the base metric C_hr on its own scale"),
          ("SAM = base·(1−p)", "the adjusted score: never above the base")]


def reading(scorer: Any) -> ui.Reading:
    base = scorer.config.base
    scale = BASE_SCALES.get(base, "0-1")
    top = "100" if scale == "0-100" else "1"
    return ui.Reading(
        scale=f"SAM is on the scale of the base metric ({base}: 0 to {top}); higher is better. It equals the base "
              "score when the unmatched words carry the same sentiment and drops with the difference (p).",
        corpus="The corpus score is the mean of the segment scores; a segment's score does not depend on the "
               "other lines.",
        anchors=ANCHORS)


def polarity_style(polarity: float, known: bool) -> str:
    """Background by polarity (green positive, red negative, darker when stronger)."""
    if not known or polarity == 0:
        return "text-decoration:underline dotted #888;"
    strength = min(abs(polarity), 1.0)
    colour = (199, 233, 192) if polarity > 0 else (252, 187, 161)
    dark = (49, 163, 84) if polarity > 0 else (222, 45, 38)
    mixed = tuple(int(c + (d - c) * strength * 0.6) for c, d in zip(colour, dark))
    return f"background:rgb{mixed};border-radius:3px;padding:0 2px;"


def highlight(text: str, items: Sequence[Mapping[str, Any]]) -> str:
    """``text`` with each mismatched item marked where it occurs (:func:`nlgmetrics.sam.explain.item_spans`)."""
    out: List[str] = []
    pos = 0
    for start, end, item in item_spans(text, items):
        polarity = float(item["polarity"])
        sign = "positive" if polarity > 0 else "negative" if polarity < 0 else "neutral"
        out.append(html.escape(text[pos:start]))
        out.append(f'<span class="sam-word" data-polarity="{sign}" data-value="{polarity!r}" '
                   f'title="{html.escape(item["item"])}: {polarity:+.3f}" '
                   f'style="{polarity_style(polarity, bool(item.get("known")))}">{html.escape(text[start:end])}</span>')
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def explain(scorer: Any, result: Any, inputs: Dict[str, Any]) -> List[str]:
    blocks = []
    base = scorer.config.base
    scale = BASE_SCALES.get(base, "")
    for i, (hyp, ref) in enumerate(zip(inputs["predictions"], inputs["references"])):
        if i >= ui.MAX_DRAWN:
            break
        d = result.details[i]
        lines = [f'<b>{side.capitalize()}</b>&nbsp; <span data-role="{side}">'
                 f'{highlight(text, d["mismatches"][side])}</span>'
                 for side, text in (("hypothesis", hyp), ("reference", ref))]
        words = f'<div style="font-size:16px;line-height:1.9">{"<br>".join(lines)}</div>'
        numbers = (f'<div style="margin:6px 0">S_h = {ui.fmt(d["s_h"])}, S_r = {ui.fmt(d["s_r"])}, '
                   f'p = |S_h − S_r| / 2 = {ui.fmt(d["p"])}</div>')
        chart = ui.bar_chart([(f"base {base}", d["base"]), ("SAM = base·(1−p)", result.scores[i])],
                             digits=4, domain=SCALE_DOMAINS.get(scale), role="base-vs-sam")
        blocks.append(ui.section(f"Segment {i + 1} (scale {scale})", words + numbers + chart))
    return [ui.legend(LEGEND) + "".join(blocks)]


def warnings(scorer: Any, result: Any, inputs: Dict[str, Any]) -> List[Any]:
    flagged = [i + 1 for i, d in enumerate(result.details) if d.get("non_english")]
    if not flagged:
        return []
    return [("non-english", f"Line(s) {', '.join(map(str, flagged))} are mostly not English: SAM's lexicon knows "
                            "none of their words, so p = 0 and SAM equals the base score.")]


def note(result: Any) -> str:
    corpus = result.corpus
    return (f"mean base {corpus['base']} = {ui.fmt(corpus['base_score'])} (scale {corpus['scale']}); "
            f"mean p = {ui.fmt(corpus['mean_p'])}")


SPEC = ui.SpaceSpec(
    metric="sam", title="SAM: sentiment-aware adjustment of MT metrics", summary=SUMMARY, intro=INTRO,
    settings=SETTINGS, visuals=lambda: [gr.HTML(elem_id="sam-words")], explain=explain,
    examples=EXAMPLES, note=note, reading=reading, warnings=warnings,
    english_only="SAM's sentiment lexicon (VADER + SentiWordNet) and tagger")


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    """The SAM Space (not launched); see :func:`nlgmetrics.space.build_space`."""
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())

"""What a Space says about a result: message boxes, the corpus score with its "how to read
this" box (range, direction, whether a segment's score depends on the other lines, and
reference points measured with the current settings: an exact copy, a paraphrase, an error),
the per-segment table, in-page warnings (the package's own, captured while scoring, and the
app's: :func:`all_warnings`), and a rough check for non-English input to metrics whose
resources are English-only."""
from __future__ import annotations

import html
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from nlgmetrics.core.cache import LRUCache
from nlgmetrics.core.inputs import reference_group
from nlgmetrics.core.result import MetricResult

from .draw import fmt, shorten
from .limits import Limits

#: a warning: (key for scripts and tests, text for people)
Warning_ = Tuple[str, str]


def message_html(text: str, kind: str = "error", key: str = "") -> str:
    """A message box in the page (``error``, ``warning`` or ``info``)."""
    colours = {"error": ("#fdecea", "#b3261e"), "warning": ("#fff4e5", "#8a5300"), "info": ("#e8f1fb", "#174ea6")}
    bg, fg = colours[kind]
    data = f' data-warning="{html.escape(key)}"' if key else ""
    return (f'<div class="nlgm-message nlgm-{kind}" data-kind="{kind}"{data} style="background:{bg};color:{fg};'
            f'border-left:4px solid {fg};padding:8px 12px;border-radius:4px;white-space:pre-wrap;'
            f'margin:4px 0;overflow-wrap:anywhere">{html.escape(text)}</div>')


def explain_error(err: BaseException) -> str:
    """One readable line for the page: the message of input errors as it is, the type for
    anything unexpected."""
    if isinstance(err, (ValueError, FileNotFoundError)):
        return str(err)
    from nlgmetrics.core.models import ModelUnavailableError

    if isinstance(err, ModelUnavailableError):
        return str(err)
    return f"{type(err).__name__}: {err}"


@dataclass(frozen=True)
class Anchor:
    """A reference point: a prediction (and its reference / source) scored with the current
    settings so that the page can say what, e.g., an exact copy gets."""

    label: str
    prediction: str
    reference: Any = None
    source: Optional[str] = None


@dataclass(frozen=True)
class Reading:
    """How to read a metric's scores: ``scale`` (range and direction, one sentence),
    ``corpus`` (how the corpus score comes from the segments and whether a segment's score
    depends on the other lines) and the ``anchors`` measured on the current settings."""

    scale: str
    corpus: str
    anchors: Tuple[Anchor, ...] = ()


@dataclass
class AnchorScores:
    """Anchors scored per configuration (few configurations: a small bounded cache)."""

    cache: LRUCache = field(default_factory=lambda: LRUCache(max_entries=16))

    def measure(self, key: Any, scorer: Any, anchors: Sequence[Anchor]) -> List[Tuple[str, float]]:
        if not anchors:
            return []
        found = self.cache.get(key)
        if found is None:
            refs = None if all(a.reference is None for a in anchors) else [a.reference for a in anchors]
            srcs = None if all(a.source is None for a in anchors) else [a.source for a in anchors]
            result = scorer.score([a.prediction for a in anchors], refs, srcs)
            found = [(a.label, float(s)) for a, s in zip(anchors, result.scores)]
            self.cache[key] = found
        return found


def reading_html(reading: Reading, measured: Sequence[Tuple[str, float]], anchors: Sequence[Anchor]) -> str:
    """The "how to read this" box beside the corpus score."""
    points = ""
    if measured:
        items = "".join(
            f'<li data-anchor="{html.escape(label)}" data-value="{value!r}"><b>{fmt(value)}</b> {html.escape(label)}'
            f'<span style="color:#666"> ({html.escape(shorten(a.prediction, 60))})</span></li>'
            for (label, value), a in zip(measured, anchors))
        points = ('<div style="margin-top:4px">Reference points, scored now with these settings '
                  f'(together, as one small corpus):</div><ul style="margin:2px 0;padding-left:18px">{items}</ul>')
    return (f'<div class="nlgm-reading" data-role="how-to-read" style="background:#f6f8fa;border-radius:6px;'
            f'padding:8px 12px;font-size:14px;max-width:100%;overflow-wrap:anywhere">'
            f"<b>How to read this</b><div>{html.escape(reading.scale)}</div>"
            f"<div>{html.escape(reading.corpus)}</div>{points}</div>")


def score_html(result: MetricResult, predictions: Sequence[str], note: str = "", reading: str = "") -> str:
    """The corpus score (large) with the how-to-read box beside it, the per-segment scores and
    the signature. Every number carries its full-precision value in ``data-value``."""
    rows = "".join(
        f'<tr><td>{i + 1}</td><td class="nlgm-seg" data-role="segment" data-index="{i}" data-value="{s!r}">'
        f'<b>{fmt(s)}</b></td><td style="overflow-wrap:anywhere">{html.escape(shorten(p))}</td></tr>'
        for i, (p, s) in enumerate(zip(predictions, result.scores)))
    note_html = f'<div style="color:#555;margin-top:4px">{html.escape(note)}</div>' if note else ""
    corpus = (f'<div style="min-width:160px"><div style="font-size:14px;color:#555">{html.escape(result.metric)} '
              f'corpus score</div><div data-role="corpus" data-value="{result.score!r}" '
              f'style="font-size:34px;font-weight:700">{fmt(result.score)}</div>{note_html}</div>')
    return (
        f'<div class="nlgm-score" style="max-width:100%">'
        f'<div style="display:flex;flex-wrap:wrap;gap:8px 20px;align-items:flex-start">{corpus}'
        f'<div style="flex:1 1 260px;min-width:0">{reading}</div></div>'
        f'<table style="margin-top:8px;border-collapse:collapse;font-size:14px;max-width:100%">'
        f"<tr><th>#</th><th>score</th><th>prediction</th></tr>{rows}</table>"
        f'<div data-role="signature" style="font-family:monospace;font-size:12px;color:#666;margin-top:6px;'
        f'word-break:break-all">{html.escape(result.signature)}</div></div>')


def warnings_html(warnings: Sequence[Warning_]) -> str:
    return "".join(message_html(text, "warning", key) for key, text in warnings)


#: frequent English function words (the check below is a rough heuristic, not language id)
_ENGLISH = frozenset("""a an the and or but if of to in on at by for with from as is are was were be been
it its this that these those he she they we you i his her their our your not no do does did have has had
will would can could should there here what which who when where how than then so very""".split())
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def looks_non_english(texts: Sequence[str], min_words: int = 6, threshold: float = 0.12) -> bool:
    """True when the texts have at least ``min_words`` words and fewer than ``threshold`` of
    them are frequent English function words (English prose has about 0.4; German, Spanish
    or French about 0.05). A heuristic for a warning only."""
    words = [w.lower() for t in texts for w in _WORD.findall(t)]
    if len(words) < min_words:
        return False
    return sum(w in _ENGLISH for w in words) / len(words) < threshold


def english_warning(texts: Sequence[str], resources: str) -> List[Warning_]:
    """A warning when the input does not look English for a metric with English-only parts."""
    if not looks_non_english(texts):
        return []
    return [("non-english", f"This input does not look English. {resources} are English-only: scores of other "
                            "languages are not meaningful.")]


def warning_key(message: str) -> str:
    """A key for a metric's own warning: truncation, tiny-corpus, non-english or metric."""
    text = message.lower()
    if "truncat" in text or " cut " in text or "stopped at the generation" in text:
        return "truncation"
    if "english" in text or "look like language" in text:  # the core's language check (core.language)
        return "non-english"
    if "segment" in text and ("at least" in text or "normalisation over" in text or "few" in text):
        return "tiny-corpus"
    return "metric"


def captured(records: Sequence[Any]) -> List[Warning_]:
    """The warnings the package itself issued while scoring (``warnings.catch_warnings``
    records), each once, keyed by :func:`warning_key`; library noise is left out."""
    out: List[Warning_] = []
    seen = set()
    for record in records:
        filename = str(getattr(record, "filename", ""))
        message = str(getattr(record, "message", ""))
        if "nlgmetrics" not in filename or message in seen:
            continue
        seen.add(message)
        out.append((warning_key(message), message))
    return out


def count_words(text: str) -> int:
    return len(text.split())


def truncation_warning(texts: Sequence[str], limit: int, unit: str, what: str,
                       measure: Any = count_words) -> List[Warning_]:
    """A warning naming the lines longer than ``limit`` (``measure`` counts ``unit``s)."""
    long = [i + 1 for i, t in enumerate(texts) if measure(t) > limit]
    if not long:
        return []
    lines = ", ".join(map(str, long[:10])) + (" ..." if len(long) > 10 else "")
    return [("truncation", f"Line(s) {lines} are longer than {limit} {unit}: {what} only the first {limit}.")]


def score_capturing(scorer: Any, inputs: Dict[str, Any], lock: Any = None, limits: Optional[Limits] = None,
                    extras: Optional[Mapping[str, Any]] = None) -> Tuple[MetricResult, List[Warning_]]:
    """The scorer's result and the warnings the package issued meanwhile (truncation, tiny
    corpora, ...): the page shows the core's own words. With ``lock``: within the request
    ``limits`` (:mod:`.limits`), the lock held per chunk of segments. ``extras``: the call's
    per-segment inputs."""
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        if lock is not None:
            result = (limits or Limits()).score(scorer, inputs, lock, extras=extras)
        else:
            result = scorer.score(inputs["predictions"], inputs["references"], inputs["sources"], **dict(extras or {}))
    return result, captured(records)


def all_warnings(spec: Any, scorer: Any, result: MetricResult, inputs: Dict[str, Any],
                 issued: Sequence[Warning_] = ()) -> List[Warning_]:
    """The metric's own warnings, the app's and, for English-only metrics, the language check
    (unless the metric said so itself)."""
    out = list(issued) + list(spec.warnings(scorer, result, inputs))
    out += [("metric", str(text)) for text in result.corpus.get("warnings", []) or []]
    empty = sum(not str(p).strip() for p in inputs["predictions"])
    if empty:  # a stray blank line (a trailing one, say) is a segment, as in a file, and moves the score
        out.append(("empty", f"{empty} of {len(inputs['predictions'])} prediction(s) are empty and are scored as "
                             "empty texts (in the text boxes a blank line is a segment, as in a file): remove "
                             "blank lines or empty rows you did not mean."))
    if spec.english_only:
        refs = inputs.get("references") or []
        texts = list(inputs["predictions"]) + [r for ref in refs for r in reference_group(ref)]
        flagged = result.corpus.get("non_english_segments")
        if flagged and not any(key == "non-english" for key, _ in out):
            # the metric's own flag: its Python warning comes once per scorer, and the page reuses scorers
            out.append(("non-english", f"{flagged} segment(s) are mostly in a non-Latin script. {spec.english_only} "
                                       "are English-only: scores of other languages are not meaningful."))
        if not any(key == "non-english" for key, _ in out):
            out += english_warning(texts, spec.english_only)
    return out

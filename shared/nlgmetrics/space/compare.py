"""The Space's optional second-system box: paste a second system's outputs of the same
segments, and the page shows the difference to the first (the Example tab's predictions) with
its 95 % interval and p-values (:mod:`nlgmetrics.core.significance`: both systems scored once,
then paired bootstrap and approximate randomisation over the records, each resample
re-running the metric's own corpus reduction)."""
from __future__ import annotations

import html
import math
import traceback
from typing import Any, Callable, Dict, List, Sequence, Tuple

import gradio as gr

from nlgmetrics.core.significance import Comparison, compare_records

from .inputs import _lines, example_inputs
from .report import explain_error, message_html

#: the page's tests: sacrebleu's 1,000 bootstrap resamples; 1,000 randomisation trials (the
#: command line's default is 10,000) keep the page responsive
SPACE_RESAMPLES = 1000
SPACE_TRIALS = 1000


def compare_components() -> Tuple[Any, Any, Any]:
    """The box (closed by default): the second system's text box, its button and the result."""
    with gr.Accordion("Compare with a second system (optional)", open=False, elem_id="compare"):
        second = gr.Textbox(lines=2, max_lines=12, elem_id="input-second",
                            label="Second system's predictions (one per line, the same segments as above)")
        button = gr.Button("Compare", elem_id="compare-run")
        out = gr.HTML(elem_id="compare-result", label="comparison")
    return second, button, out


def comparison_html(c: Comparison) -> str:
    """The difference (second - first) with its interval and p-values, and both scores."""
    first, other = c.systems[0], c.systems[1]

    def num(x: Any) -> str:
        return f"{x:.4f}" if x is not None and math.isfinite(x) else "-"

    lo, hi = other.diff_ci or (float("nan"), float("nan"))
    verdict = ("the interval excludes 0: the difference is unlikely to be chance" if lo > 0 or hi < 0 else
               "the interval includes 0: no significant difference")
    rows = [("first system", num(first.score), f"[{num(first.ci[0])}, {num(first.ci[1])}]" if first.ci else "-"),
            ("second system", num(other.score), f"[{num(other.ci[0])}, {num(other.ci[1])}]" if other.ci else "-"),
            ("difference (second - first)", num(other.diff), f"[{num(lo)}, {num(hi)}]")]
    body = "".join(f"<tr><td>{html.escape(a)}</td><td>{b}</td><td>{c_}</td></tr>" for a, b, c_ in rows)
    return (f'<div class="nlgm-compare"><table><tr><th></th><th>score</th><th>95% interval</th></tr>{body}</table>'
            f"<p>p = {num(other.p_bootstrap)} (paired bootstrap, {SPACE_RESAMPLES} resamples), "
            f"p = {num(other.p_randomization)} (approximate randomisation, {SPACE_TRIALS} trials): "
            f"{html.escape(verdict)}.</p><p style='color:#555;font-size:12px'>{html.escape(c.signature)}<br>"
            f"{html.escape(c.test_signature)}</p></div>")


def compare_handler(cls: Any, keys: Sequence[str], reference_set: bool,
                    scorer_for: Callable[[Sequence[Any]], Any], lock: Any) -> Callable[..., str]:
    """The button's handler: ``values`` are the Example tab's text boxes (``keys``), the second
    system's text, then the settings (``scorer_for(settings)`` gives the scorer)."""
    n_text = len(keys)

    def run(*values: Any) -> str:
        texts: Dict[str, Any] = dict(zip(keys, values[:n_text]))
        try:
            first = example_inputs(cls, texts.get("predictions"), texts.get("references"), texts.get("sources"),
                                   reference_set)
            lines = len(_lines(values[n_text]))
            if lines != len(first["predictions"]):
                raise ValueError(f"the second system has {lines} line(s), the first {len(first['predictions'])}: "
                                 "give one output per segment of the first")
            second = example_inputs(cls, values[n_text], texts.get("references"), texts.get("sources"),
                                    reference_set)
            scorer = scorer_for(values[n_text + 1:])
            with lock:
                records: List[List[Any]] = [
                    scorer.score_segments(scorer.validate(x["predictions"], x["references"], x["sources"]))
                    for x in (first, second)]
                result = compare_records(scorer, {"first": records[0], "second": records[1]},
                                         resamples=SPACE_RESAMPLES, trials=SPACE_TRIALS)
        except Exception as err:  # noqa: BLE001 - every failure becomes a message in the page
            traceback.print_exc()
            return message_html(explain_error(err))
        return comparison_html(result)

    return run

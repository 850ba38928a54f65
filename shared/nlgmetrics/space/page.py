"""The page every Space shares: title and a one-line summary, the metric's description in a
closed "About" panel, the inputs (example tab with the papers' examples, batch tab for
CSV/JSONL files) beside the settings generated from the configuration, then the score with its
"how to read this" box, in-page warnings and the metric's drawings. An app describes itself
with a :class:`SpaceSpec` and calls :func:`build_space`, which returns the ``gr.Blocks``
without launching it."""
from __future__ import annotations

import html
import os
import re
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import gradio as gr

from nlgmetrics.core.call import Call
from nlgmetrics.core.result import MetricResult

from .api import TEXTS, describe, named, option_type, result_json, text_types, typed
from .compare import compare_components, compare_handler
from .draw import MAX_DRAWN
from .inputs import MAX_BATCH_ROWS, example_inputs, read_batch, write_batch
from .limits import Limits, queued
from .report import (
    AnchorScores,
    Reading,
    Warning_,
    all_warnings,
    explain_error,
    message_html,
    reading_html,
    score_capturing,
    score_html,
    warnings_html,
)
from .runtime import Runtime, default_profile, detect_runtime, on_gpu
from .settings import Factory, ScorerPool, Setting, build_settings, setting_choices
from .workers import WorkerPool, WorkersFailed, picklable, serve_in_processes

#: the gradio version the Spaces are written for (their README's ``sdk_version``)
GRADIO_SDK_VERSION = "6.31.0"


@dataclass
class SpaceSpec:
    """What an app tells :func:`build_space`.

    ``settings``: the configuration options shown (names or :class:`Setting`), generated from
    the metric's ``Config``. ``visuals()`` creates the output components and
    ``explain(scorer, result, inputs)`` returns one value per visual. ``reading(scorer)`` says
    how to read the score; ``warnings(scorer, result, inputs)`` lists what the page must warn
    about; ``english_only`` names the English-only resources (a warning for other languages).
    ``examples`` are rows of (predictions, references, sources) texts, one segment per line.
    ``reference_set``: the references box is one standard set shared by every prediction
    (TextEval). ``gpu_dtypes``: half-precision dtypes the metric allows on a GPU.
    ``fixed_options``: configuration options the page always sets (e.g. to return what it
    draws). ``noun``: the page's word for a scored text, in its labels, messages and warnings.
    """

    metric: str
    title: str
    summary: str
    intro: str
    settings: Sequence[Union[str, Setting]]
    visuals: Callable[[], List[Any]]
    explain: Callable[[Any, MetricResult, Dict[str, Any]], List[Any]]
    examples: List[Dict[str, str]]
    reading: Callable[[Any], Reading]
    warnings: Callable[[Any, MetricResult, Dict[str, Any]], List[Warning_]] = lambda s, r, i: []
    english_only: str = ""
    reference_set: bool = False
    gpu_dtypes: Tuple[str, ...] = ("bf16", "fp16")
    labels: Dict[str, str] = field(default_factory=dict)
    note: Callable[[MetricResult], str] = lambda result: ""
    fixed_options: Dict[str, Any] = field(default_factory=dict)
    #: the page's word for a scored text (DATScore: "hypothesis")
    noun: str = "prediction"


def _dtype_choices(runtime: Runtime) -> List[str]:
    return ["fp32", "bf16"] + (["fp16"] if runtime.device == "cuda" else [])


def status_html(runtime: Runtime, uses_models: bool, preloaded: bool, error: Optional[BaseException]) -> str:
    """The line under the settings: where models run, and whether they loaded at start-up."""
    where = runtime.describe() if uses_models else "no neural model: runs on the CPU"
    loaded = " · loaded at start-up" if preloaded and error is None else ""
    line = f'<div style="color:#555;font-size:13px">{html.escape(where + loaded)}</div>'
    if error is None:
        return line
    return line + message_html(f"The models of the initial settings could not be loaded: {explain_error(error)}",
                               "warning", "startup")


#: the page's own style: the examples table wraps its cells at phone width (no column cut off)
#: and keeps each example row to two lines, so the button and the score stay in view
PAGE_CSS = ("<style>#examples td,#examples th{white-space:normal!important;overflow-wrap:anywhere;max-width:45vw}"
            "#examples td>*{display:-webkit-box;-webkit-line-clamp:2;line-clamp:2;-webkit-box-orient:vertical;"
            "overflow:hidden}</style>")
_PREDICTION = re.compile(r"(?<!['`])\bprediction(s?)\b(?!['`])")


def page_words(text: str, noun: str) -> str:
    """``text`` with the page's own word for a scored text (DATScore says "hypothesis"); file
    column names in quotes stay as they are."""
    if noun == "prediction":
        return text
    plural = "hypotheses" if noun == "hypothesis" else noun + "s"
    return _PREDICTION.sub(lambda m: plural if m.group(1) else noun, text)


def build_space(spec: SpaceSpec, scorer_factory: Optional[Factory] = None,
                options: Optional[Mapping[str, Any]] = None, preload: bool = True) -> gr.Blocks:
    """The ``gr.Blocks`` of a metric's Space (not launched). ``scorer_factory(config)``
    builds scorers (default :func:`nlgmetrics.registry.load_call`; one per configuration); ``options``
    are the initial setting values; with ``preload`` the initial configuration's models load
    now, at start-up, and a failure shows under the Score button until a score succeeds."""
    return _Page(spec, scorer_factory, options).build(preload)


class _Page:
    """One Space page: the layout (:meth:`example_tab`, :meth:`batch_tab`,
    :meth:`settings_column`), the start-up load (:meth:`preload`), one request's way
    (:meth:`call`: resolved once; :meth:`request`: scored, warned) and its three ways in
    (:meth:`score_example`, :meth:`score_file`, :meth:`score_api`)."""

    def __init__(self, spec: SpaceSpec, scorer_factory: Optional[Factory], options: Optional[Mapping[str, Any]]):
        self.spec = spec
        self.pool = ScorerPool(spec.metric, scorer_factory)
        self.cls = self.pool.cls
        self.runtime = detect_runtime(spec.gpu_dtypes)
        self.limits = Limits.from_env(serialize=self.runtime.device != "cpu")
        in_processes = self.limits.processes and not self.limits.serialize and not self.runtime.zero_gpu
        #: on the CPU, once launched, requests are scored in worker processes (:mod:`.limits`)
        self.workers = WorkerPool(self.pool.build, self.limits.concurrency) \
            if in_processes and picklable(self.pool.build) else None
        self.initial = dict(options or {})
        if "profile" in self.cls.Config.names() and "profile" not in self.initial:
            self.initial["profile"] = default_profile(list(self.cls.Config.spec("profile").choices or ()))
        self.anchors = AnchorScores()
        self.keys = ["predictions"] + [k for k, mode in (("references", self.cls.references_mode),
                                                         ("sources", self.cls.sources_mode)) if mode != "none"]
        specs = {s.name: s for s in self.cls.Config.specs()}
        for item in spec.settings:  # the values the page offers, which the pool accepts
            setting = item if isinstance(item, Setting) else Setting(item)
            choices = setting_choices(specs[setting.name], setting)
            if choices is not None:
                self.pool.offered[setting.name] = [value for _, value in choices]

    def build(self, preload: bool) -> gr.Blocks:
        with gr.Blocks(title=self.spec.title, analytics_enabled=False) as demo:
            gr.HTML(PAGE_CSS, elem_id="page-style")
            gr.Markdown(f"## {self.spec.title}\n{self.spec.summary}")
            with gr.Accordion("About this metric", open=False, elem_id="about"):
                gr.Markdown(self.spec.intro)
            with gr.Row(equal_height=False):
                with gr.Column(scale=3, min_width=300):
                    self.example_tab()
                    self.batch_tab()
                self.settings_column()
            self.preload(preload)
            self.connect()
            self.connect_api()
        demo = queued(demo, self.limits)
        return demo if self.workers is None else serve_in_processes(demo, self.workers, self.warm_up)

    def words(self, text: str) -> str:
        return page_words(text, self.spec.noun)

    def example_tab(self) -> None:
        """The text boxes (filled with the first example), the Score button, the score and its
        messages right under it, the drawings, then the examples (a SAM result stays next to
        its explanation, and the score stays in view at 1280x900)."""
        labels = {"predictions": "Predictions (one segment per line)",
                  "references": "References (one per line, aligned with the predictions)",
                  "sources": "Sources (one per line; optional)", **self.spec.labels}
        first = self.spec.examples[0] if self.spec.examples else {}
        with gr.Tab("Example", elem_id="tab-example"):
            self.text_boxes = [gr.Textbox(value=first.get(k, ""), lines=2, max_lines=12, label=self.words(labels[k]),
                                          elem_id=f"input-{k}") for k in self.keys]
            self.run_button = gr.Button("Score", variant="primary", elem_id="run")
            self.score = gr.HTML(elem_id="score", label="score")  # right under the button, messages below it
            self.message = gr.HTML(elem_id="message", label="messages")
            self.visuals = self.spec.visuals()  # the drawings next to the score, then the other examples
            for visual in self.visuals:  # named in the API page by their element id
                visual.label = visual.label or visual.elem_id
            self.second_box, self.compare_button, self.compare_out = compare_components()
            if self.spec.examples:
                gr.Examples([[ex.get(k, "") for k in self.keys] for ex in self.spec.examples], inputs=self.text_boxes,
                            label="More examples (click one, then Score)", elem_id="examples")

    def batch_tab(self) -> None:
        with gr.Tab("Batch", elem_id="tab-batch"):
            gr.Markdown(self.words(
                "Upload a **CSV** (header row: `prediction`, `reference` — or `reference_1`, "
                "`reference_2`, ... for several — and `source` where the metric uses it) or a **JSONL** "
                "file (one object a line with the same keys; a reference may be a list). The settings "
                "apply. Download one row of scores per segment (CSV) and the full result (JSON). "
                f"At most {MAX_BATCH_ROWS} rows. {self.limits.describe()}"
                + (" Here each row is scored against its own reference(s), as on the command line; the "
                   "Example tab instead rates every prediction against all reference lines as one "
                   "standard set, so the same texts score differently there." if self.spec.reference_set else "")))
            self.upload = gr.File(label="CSV or JSONL file", file_types=[".csv", ".tsv", ".jsonl", ".json"],
                                  elem_id="batch-upload")
            self.batch_button = gr.Button("Score file", variant="primary", elem_id="batch-run")
            self.batch_score = gr.HTML(elem_id="batch-score", label="score")
            self.batch_message = gr.HTML(elem_id="batch-message", label="messages")
            self.download = gr.File(label="Scores", file_count="multiple", interactive=False, elem_id="batch-download")

    def settings_column(self) -> None:
        pool, runtime = self.pool, self.runtime
        with gr.Column(scale=2, min_width=280):
            with gr.Accordion("Settings", open=True, elem_id="settings"):
                components = build_settings(self.cls.Config, self.spec.settings, self.initial)
                if pool.uses_models and "dtype" in pool.accepted:
                    components["dtype"] = gr.Radio(
                        _dtype_choices(runtime), value=self.initial.get("dtype", runtime.dtype), label="dtype",
                        info=f"models run on {runtime.device}; bf16/fp16 halve memory on a GPU", elem_id="setting-dtype")
                    pool.offered["dtype"] = _dtype_choices(runtime)
                self.status = gr.HTML(elem_id="runtime", label="status")
        self.names = list(components)
        self.settings = [components[n] for n in self.names]
        #: the settings the page starts with: what a request leaves out (the API's defaults)
        self.preset = {n: c.value for n, c in zip(self.names, self.settings)}

    def call(self, given: Mapping[str, Any]) -> Call:
        """The request's call, resolved once (:meth:`ScorerPool.resolve`): the settings
        ``given`` by name (and per-segment inputs) on top of the page's initial ones."""
        return self.pool.resolve(given, self.preset, self.runtime, self.spec.fixed_options)

    def warm_up(self) -> Optional[Tuple[Call, Dict[str, Any]]]:
        """What a worker process scores first: the settings' initial call and three short
        lines of its own (not an example: the caches it fills would keep the example's
        warnings from the first visitor); ``None`` when they are refused."""
        lines = "The first warm-up line.\nA second one, a little longer than the first.\nAnd a third."
        try:
            inputs = example_inputs(self.cls, lines, lines, lines if self.cls.sources_mode != "none" else None,
                                    self.spec.reference_set)
            return self.call({}), inputs
        except ValueError:
            return None

    def preload(self, preload: bool) -> None:
        """Load the initial configuration's models now; a failure (offline, say) shows under
        the Score button, where the visitor looks, until a score succeeds."""
        error = None
        if preload:
            try:
                self.pool.get(self.call({}))
            except Exception as err:  # noqa: BLE001 - shown in the page, the app still starts
                error = err
        self.status.value = status_html(self.runtime, self.pool.uses_models, preload and error is None, None)
        self.fresh_status = status_html(self.runtime, self.pool.uses_models, False, None)
        if error is not None:
            self.message.value = message_html(
                f"The models of the initial settings could not be loaded: {explain_error(error)}", "warning", "startup")

    def request(self, call: Call, inputs: Dict[str, Any]) -> Tuple[Any, MetricResult, List[Warning_]]:
        """One request, from the page or the API: ``call``'s scorer (the page's reading and
        drawings use it), the result (in a worker process once the Space runs them, else with
        that scorer here, within the limits) and the warnings (in the package's words). A call that
        cannot be sent (a configuration holding a mapping does not pickle) is scored here."""
        scorer = self.pool.get(call)
        scored = None
        if self.workers is not None and self.workers.running and picklable(call):
            try:
                scored = self.workers.score(call, inputs, self.limits)
            except WorkersFailed as err:  # they cannot start: score here from now on
                print(f"nlgmetrics Space: {err}", flush=True)
                self.workers.close()
        result, issued = scored or score_capturing(scorer, inputs, self.pool.lock, self.limits, call.extras)
        return scorer, result, all_warnings(self.spec, scorer, result, inputs, issued)

    def shown(self, call: Call, scorer: Any, result: MetricResult, found: List[Warning_],
              inputs: Dict[str, Any]) -> Tuple[str, str]:
        """The warnings and the score as the page shows them, with the reading and its reference
        points (measured once per configuration)."""
        reading = self.spec.reading(scorer)
        with self.pool.lock, warnings.catch_warnings():  # the reference points' own warnings are not the user's
            warnings.simplefilter("ignore")
            measured = self.anchors.measure(call.config.key(), scorer, reading.anchors)
        box = reading_html(reading, measured, reading.anchors)
        return warnings_html([(k, self.words(text)) for k, text in found]), score_html(result, inputs["predictions"], self.spec.note(result), box)

    def score_example(self, *values: Any) -> List[Any]:
        n_text = len(self.text_boxes)
        texts = dict(zip(self.keys, values[:n_text]))
        blank = [None] * len(self.visuals)
        try:
            inputs = example_inputs(self.cls, texts.get("predictions"), texts.get("references"),
                                    texts.get("sources"), self.spec.reference_set)
            call = self.call(dict(zip(self.names, values[n_text:])))
            scorer, result, found = self.request(call, inputs)
            warned, shown = self.shown(call, scorer, result, found, inputs)
            with self.pool.lock:
                drawn = list(self.spec.explain(scorer, result, inputs))
        except Exception as err:  # noqa: BLE001 - every failure becomes a message in the page
            traceback.print_exc()
            return [message_html(self.words(explain_error(err))), "", gr.update()] + blank
        more = "" if len(inputs["predictions"]) <= MAX_DRAWN else \
            message_html(f"The first {MAX_DRAWN} segments are drawn below; all are scored.", "info")
        return [warned + more, shown, self.fresh_status] + drawn

    def score_file(self, path: Optional[str], *values: Any) -> List[Any]:
        try:
            if not path:
                raise ValueError("Upload a CSV or JSONL file first.")
            with self.limits.uploads():
                inputs = read_batch(path, self.cls)
            call = self.call(dict(zip(self.names, values)))
            scorer, result, found = self.request(call, inputs)
            warned, shown = self.shown(call, scorer, result, found, inputs)
            files = write_batch(result, inputs)
        except Exception as err:  # noqa: BLE001
            traceback.print_exc()
            return [message_html(self.words(explain_error(err))), "", None, gr.update()]
        info = message_html(f"Scored {len(result)} segments from {Path(path).name}.", "info")
        return [info + warned, shown, files, self.fresh_status]

    def score_api(self, *values: Any) -> Dict[str, Any]:
        """``/score``: the texts, the per-segment inputs and the settings (``None``: the
        page's) in :meth:`api_types`' order; the JSON answer of :func:`.api.result_json`, or
        ``gr.Error`` with the message the page shows (in the parameters' words: predictions)."""
        given = dict(zip(self.api_names, values))
        inputs = {k: given.pop(k, None) for k in TEXTS}
        try:
            call = self.call(given)
            _, result, found = self.request(call, inputs)
        except Exception as err:  # noqa: BLE001 - the caller gets the page's one message
            traceback.print_exc()
            raise gr.Error(explain_error(err), print_exception=False) from err
        return result_json(result, found)

    def api_types(self) -> Dict[str, Any]:
        """``/score``'s parameters and their types: the texts, the metric's per-segment inputs,
        the page's settings."""
        specs = {s.name: s for s in self.cls.Config.specs()}
        return {**text_types(self.cls), **{name: Optional[List[Any]] for name in self.cls.extra_inputs},
                **{n: option_type(specs[n], self.pool.offered.get(n)) for n in self.names}}

    def connect(self) -> None:
        """The page's events, their API parameters named after the text boxes and settings."""
        self.run_button.click(on_gpu(named(self.score_example, self.keys + self.names)),
                              inputs=self.text_boxes + self.settings,
                              outputs=[self.message, self.score, self.status] + self.visuals, api_name="score_page",
                              show_progress_on=[self.score])
        compare = compare_handler(self.cls, self.keys, self.spec.reference_set,
                                  lambda v: self.pool.get(self.call(dict(zip(self.names, v)))), self.pool.lock)
        self.compare_button.click(on_gpu(named(compare, self.keys + ["second_predictions"] + self.names)),
                                  inputs=self.text_boxes + [self.second_box] + self.settings,
                                  outputs=[self.compare_out], api_name="compare", show_progress_on=[self.compare_out])
        self.batch_button.click(on_gpu(named(self.score_file, ["file"] + self.names), duration=300),
                                inputs=[self.upload] + self.settings,
                                outputs=[self.batch_message, self.batch_score, self.download, self.status],
                                api_name="score_file", show_progress_on=[self.batch_score])

    def connect_api(self) -> None:
        """``/score`` for programs (:mod:`.api`): the same request as the page's."""
        types = self.api_types()
        required = {"predictions"} | {k for k, mode in (("references", self.cls.references_mode),
                                                         ("sources", self.cls.sources_mode)) if mode == "required"}
        doc = describe(self.cls.name, self.cls.extra_inputs, {s.name: s for s in self.cls.Config.specs()}, self.names)
        self.api_names = list(types)
        fn = typed(self.score_api, types, {n: None for n in types if n not in required}, doc)
        gr.api(on_gpu(fn), api_name="score", api_description=doc)


def launch(demo: gr.Blocks, **kwargs: Any) -> Any:
    """Launch a Space app (``python app.py``): the server name and port from the usual
    ``GRADIO_SERVER_NAME``/``GRADIO_SERVER_PORT`` variables."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    return demo.launch(**kwargs)

"""One surface harness (torchmetrics' MetricTester, applied to surfaces): a metric's call run
through every surface gives the same per-segment scores, corpus score, signature and warnings
as ``nlgmetrics.score``. A surface is a function ``(case, tmp) -> Outcome``; what a surface
cannot show (a Trainer hook logs the corpus score only) is ``None`` and not compared.

A :class:`Case` is one call: the metric, its options (Python spelling), texts, the metric's
per-segment inputs (``extras``) and a second system for compare."""
from __future__ import annotations

import contextlib
import io
import json
import math
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import nlgmetrics
from nlgmetrics import cli

#: this checkout (the Spaces are not installed with the package)
CHECKOUT = Path(__file__).resolve().parents[2]


@dataclass
class Case:
    metric: str
    options: Dict[str, Any]
    predictions: List[str]
    references: List[str]
    other: List[str]
    sources: Optional[List[str]] = None
    extras: Dict[str, List[float]] = field(default_factory=dict)
    #: evaluate module folder (default: nlgmetrics.metric_path)
    module: Optional[str] = None


@dataclass
class Outcome:
    """What a surface gives: per-segment scores, corpus score, signature, warnings (the set of
    their texts); ``None``: the surface does not show it."""

    scores: Optional[List[float]]
    score: Optional[float]
    signature: Optional[str]
    warnings: Optional[frozenset] = None
    #: meta-evaluation: the segment-level Pearson correlation with :data:`HUMAN` (checked
    #: against scipy's of the reference per-segment scores)
    pearson: Optional[float] = None


def human(n: int) -> List[float]:
    """The human scores of a meta-evaluation surface: 0, 1, ..., n-1."""
    return [float(k) for k in range(n)]


def _texts(warned: List[warnings.WarningMessage]) -> frozenset:
    return frozenset(str(w.message) for w in warned if issubclass(w.category, UserWarning))


def same_words(texts: frozenset) -> frozenset:
    """Warnings with each surface's own spelling written one way: an option as Python writes it
    (the CLI's ``--language en`` is ``language='en'``) and a system's name left out ("the
    predictions of A" is "the predictions"): what they say must be the same."""
    out = set()
    for text in texts:
        text = re.sub(r"--([a-z][a-z-]*) ([\w.-]+)", lambda m: f"{m.group(1).replace('-', '_')}={m.group(2)!r}", text)
        out.add(re.sub(r"(predictions|references|sources) of \S+ \(", r"\1 (", text))
    return frozenset(out)


@contextlib.contextmanager
def caught() -> Iterator[List[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        yield warned


def _lines(path: Path, lines: List[Any]) -> str:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def _cli_options(case: Case, derived: bool = False) -> List[str]:
    """The case's options as the CLI's generic ``-o name=value`` flags (a string as it is, any
    other value as JSON); ``derived``: with the options the metric derives from the per-segment
    inputs given (SAM's ``base_scores`` means ``base=given``), as ``reduce`` needs them named."""
    options = dict(case.options)
    if derived:
        options = nlgmetrics.scorer_class(case.metric).call_options(options, list(case.extras))
    return [a for k, v in options.items() for a in ("-o", f"{k}={v if isinstance(v, str) else json.dumps(v)}")]


def _cli_extras(case: Case, tmp: Path, index: Optional[int] = None) -> List[str]:
    out: List[str] = []
    for name, values in case.extras.items():
        values = values if index is None else values[index]
        out += [f"--{name.replace('_', '-')}", _lines(tmp / f"{name}.txt", values)]
    return out


def run_cli(argv: List[str]) -> Tuple[int, str, str]:
    """``nlgmetrics ARGV`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("always")  # a warning printed by an earlier call in this process is printed again
        # printed to the standard error, as in a process of its own: pytest records the warnings of
        # each test (its warnings plugin), which would keep them from the command's output
        warnings.showwarning = warnings._showwarning_orig  # type: ignore[attr-defined]
        warnings._showwarnmsg_impl = lambda msg: sys.stderr.write(warnings._formatwarnmsg(msg))  # type: ignore[attr-defined]
        try:
            code = cli.main(argv)
        except SystemExit as stop:
            code = int(stop.code or 0)
    return code, out.getvalue(), err.getvalue()


def _cli_warnings(stderr: str) -> frozenset:
    return frozenset(m.group(1) for m in re.finditer(r"^warning: (.*)$", stderr, re.M))


# -- the surfaces -------------------------------------------------------------------------------
def python_score(case: Case, tmp: Path) -> Outcome:
    with caught() as warned:
        r = nlgmetrics.score(case.metric, case.predictions, case.references, case.sources, quiet=True,
                             **case.options, **case.extras)
    return Outcome(r.scores, r.score, r.signature, _texts(warned))


def python_compare(case: Case, tmp: Path) -> Outcome:
    extras = {k: [v, v] for k, v in case.extras.items()}
    with caught() as warned:
        c = nlgmetrics.compare(case.metric, {"A": case.predictions, "B": case.other}, case.references, case.sources,
                               resamples=20, trials=20, quiet=True, **case.options, **extras)
    return Outcome(None, c.systems[0].score, c.signature, _texts(warned))


def python_meta_eval(case: Case, tmp: Path) -> Outcome:
    with caught() as warned:
        out = nlgmetrics.meta_eval(case.metric, case.predictions, case.references, case.sources,
                                   human=human(len(case.predictions)), bootstrap=0, permutations=1, quiet=True,
                                   **case.options, **case.extras)
    return Outcome(None, None, out["signature"], _texts(warned), out["segment"]["pearson"]["value"])


def cli_meta_eval(case: Case, tmp: Path) -> Outcome:
    """``meta-eval METRIC rows.jsonl --human human`` with the per-segment inputs as files (the
    same generated flags as score's)."""
    rows = [{"hyp": h, "ref": r, "human": y, **({"src": case.sources[k]} if case.sources is not None else {})}
            for k, (h, r, y) in enumerate(zip(case.predictions, case.references, human(len(case.predictions))))]
    argv = ["meta-eval", case.metric, _lines(tmp / "rows.jsonl", [json.dumps(r) for r in rows]), "--human", "human",
            "--system-field", "", "--bootstrap", "0", "--permutations", "1", "--json", "--quiet",
            *_cli_options(case), *_cli_extras(case, tmp)]
    code, out, err = run_cli(argv)
    assert code == 0, err
    got = json.loads(out)
    return Outcome(None, None, got["signature"], _cli_warnings(err), got["segment"]["pearson"]["value"])


def cli_score(case: Case, tmp: Path) -> Outcome:
    argv = ["score", case.metric, "-p", _lines(tmp / "hyp.txt", case.predictions),
            "-r", _lines(tmp / "ref.txt", case.references), "--json", "--quiet", *_cli_options(case),
            *_cli_extras(case, tmp)]
    if case.sources is not None:
        argv += ["-s", _lines(tmp / "src.txt", case.sources)]
    code, out, err = run_cli(argv)
    assert code == 0, err
    got = json.loads(out)
    return Outcome(got["scores"], got["score"], got["signature"], _cli_warnings(err))


def cli_shards_and_reduce(case: Case, tmp: Path) -> Outcome:
    """``score --shard 1/2`` and ``2/2`` to records files, then ``reduce``."""
    parts, warned = [], set()
    for k in (1, 2):
        argv = ["score", case.metric, "-p", _lines(tmp / "hyp.txt", case.predictions),
                "-r", _lines(tmp / "ref.txt", case.references), "--quiet", "--shard", f"{k}/2",
                "--records", str(tmp / f"part{k}.jsonl"), *_cli_options(case), *_cli_extras(case, tmp)]
        if case.sources is not None:
            argv += ["-s", _lines(tmp / "src.txt", case.sources)]
        code, _, err = run_cli(argv)
        assert code == 0, err
        warned |= _cli_warnings(err)
        parts.append(str(tmp / f"part{k}.jsonl"))
    code, out, err = run_cli(["reduce", "--metric", case.metric, *_cli_options(case, derived=True), *parts, "--json"])
    assert code == 0, err
    got = json.loads(out)
    return Outcome(got["scores"], got["score"], got["signature"], frozenset(warned))


def cli_compare(case: Case, tmp: Path) -> Outcome:
    argv = ["compare", case.metric, "-p", _lines(tmp / "a.txt", case.predictions), "-p",
            _lines(tmp / "b.txt", case.other), "-r", _lines(tmp / "ref.txt", case.references), "--json", "--quiet",
            "--resamples", "20", "--trials", "20", *_cli_options(case)]
    for name, values in case.extras.items():  # one file per system, in the order of -p (the same values)
        argv += [f"--{name.replace('_', '-')}", _lines(tmp / f"{name}.a.txt", values),
                 f"--{name.replace('_', '-')}", _lines(tmp / f"{name}.b.txt", values)]
    if case.sources is not None:
        argv += ["-s", _lines(tmp / "src.txt", case.sources)]
    code, out, err = run_cli(argv)
    assert code == 0, err
    got = json.loads(out)
    return Outcome(None, got["systems"][0]["score"], got["signature"], _cli_warnings(err))


_MODULES: Dict[str, Any] = {}


def evaluate_module(case: Case) -> Any:
    """The case's evaluate module, loaded once per folder (``compute`` is what a surface call
    counts; loading is the module's construction)."""
    import evaluate

    folder = case.module or nlgmetrics.metric_path(case.metric)
    if folder not in _MODULES:
        _MODULES[folder] = evaluate.load(folder)
    return _MODULES[folder]


def evaluate_compute(case: Case, tmp: Path) -> Outcome:
    module = evaluate_module(case)
    kwargs = {**case.options, **case.extras, **({"sources": case.sources} if case.sources is not None else {})}
    with caught() as warned:
        out = module.compute(predictions=case.predictions, references=case.references, **kwargs)
    return Outcome(out["scores"], out["score"], out["signature"], _texts(warned))


def evaluate_add_batch(case: Case, tmp: Path) -> Outcome:
    module = evaluate_module(case)
    half = len(case.predictions) // 2
    for lo, hi in ((0, half), (half, len(case.predictions))):
        batch = {"predictions": case.predictions[lo:hi], "references": case.references[lo:hi]}
        if case.sources is not None:
            batch["sources"] = case.sources[lo:hi]
        module.add_batch(**batch)
    with caught() as warned:
        out = module.compute(**case.options, **case.extras)
    return Outcome(out["scores"], out["score"], out["signature"], _texts(warned))


def evaluate_add(case: Case, tmp: Path) -> Outcome:
    """``add`` one example at a time, then ``compute`` with the options."""
    module = evaluate_module(case)
    for k, (p, r) in enumerate(zip(case.predictions, case.references)):
        module.add(prediction=p, reference=r, **({"sources": case.sources[k]} if case.sources is not None else {}))
    with caught() as warned:
        out = module.compute(**case.options, **case.extras)
    return Outcome(out["scores"], out["score"], out["signature"], _texts(warned))


def evaluate_combine(case: Case, tmp: Path) -> Outcome:
    """``evaluate.combine([module])``: its compute passes the options through."""
    import evaluate

    combined = evaluate.combine([evaluate_module(case)])
    kwargs = {**case.options, **case.extras, **({"sources": case.sources} if case.sources is not None else {})}
    with caught() as warned:
        out = combined.compute(predictions=case.predictions, references=case.references, **kwargs)
    return Outcome(out["scores"], out["score"], out["signature"], _texts(warned))


def evaluate_evaluator(case: Case, tmp: Path) -> Outcome:
    """evaluate's ``Evaluator("text2text-generation")`` over the case's texts, its pipeline a
    stand-in that answers the case's predictions (the texts are what is compared); the module
    loaded with the case's options. evaluate's Evaluator cannot run under transformers 5 (the
    README's alternative is tested in tests/integrations/test_evaluator.py): skipped there."""
    import pytest
    import transformers

    if int(transformers.__version__.split(".")[0]) >= 5 or case.extras or case.sources is not None:
        pytest.skip("evaluate's Evaluator needs transformers < 5 (the evaluator extra) and passes no per-segment "
                    "inputs or sources")
    import evaluate
    from datasets import Dataset

    answers = dict(zip(case.references, case.predictions))

    class Pipe:  # what the Evaluator reads of a pipeline: its task, and a call on a batch of texts
        task = "text2text-generation"

        def __call__(self, texts: Any, **kwargs: Any) -> List[Dict[str, str]]:
            return [{"generated_text": answers[t]} for t in texts]

    pipe = Pipe()

    module = evaluate.load(case.module or nlgmetrics.metric_path(case.metric), quiet=True, **case.options)
    data = Dataset.from_dict({"text": case.references, "label": case.references})
    with caught() as warned:
        out = evaluate.evaluator("text2text-generation").compute(model_or_pipeline=pipe, data=data, metric=module,
                                                                 input_column="text", label_column="label")
    return Outcome(out["scores"], out["score"], out["signature"], _texts(warned))


def trainer_hook_with_module(case: Case, tmp: Path) -> Outcome:
    """The Trainer hook given a loaded evaluate module (decoded texts, as by name)."""
    from transformers import EvalPrediction

    tok = hook_tokenizer()
    fn = nlgmetrics.compute_metrics_fn(evaluate_module(case), tok, sources=case.sources, **case.options,
                                       **case.extras)
    with caught() as warned:
        out = fn(EvalPrediction(predictions=_ids(tok, case.predictions), label_ids=_ids(tok, case.references)))
    return Outcome(None, out[case.metric], None, _texts(warned))


# -- the Space: its handler in this process, and its HTTP API through gradio_client -------------
_DEMOS: Dict[Tuple[str, str], Any] = {}


def space_app(case: Case) -> Any:
    """The app module of the case's Space (``spaces/<name>/app.py``, or where the registry's
    tree puts it)."""
    import publish

    return publish.load_app(Path(nlgmetrics.space_path(case.metric, tree=CHECKOUT)) / "app.py")


def space_demo(case: Case) -> Tuple[Any, Any]:
    """The case's Space built once per options, scoring in this process, its settings started at
    the case's options; (demo, page). An option the page does not offer skips the case there."""
    import os

    import pytest

    key = (case.metric, json.dumps(case.options, sort_keys=True, default=str))
    if key not in _DEMOS:
        os.environ["NLGMETRICS_SPACE_PROCESSES"] = "0"
        try:
            demo = space_app(case).build_demo(options=case.options, preload=False)
        finally:
            del os.environ["NLGMETRICS_SPACE_PROCESSES"]
        page = next(f.fn for f in demo.fns.values() if f.api_name == "score_page").__wrapped__.__self__
        _DEMOS[key] = (demo, page)
    demo, page = _DEMOS[key]
    missing = [k for k in case.options if k not in page.names]
    if missing:
        pytest.skip(f"the {case.metric} Space does not offer {', '.join(missing)}")
    return demo, page


def _space_texts(case: Case) -> Dict[str, Any]:
    out: Dict[str, Any] = {"predictions": case.predictions, "references": case.references, **case.extras}
    if case.sources is not None:
        out["sources"] = case.sources
    return out


def _space_outcome(got: Dict[str, Any]) -> Outcome:
    """The Space's answer; its warnings are in the page's words, compared by their keys
    (:func:`space_keys`)."""
    return Outcome(got["scores"], got["score"], got["signature"], frozenset(w["key"] for w in got["warnings"]))


def space_keys(texts: frozenset) -> frozenset:
    """The keys the Space gives the package's warnings (``space.report.warning_key``)."""
    from nlgmetrics.space.report import warning_key

    return frozenset(warning_key(t) for t in texts)


def space_handler(case: Case, tmp: Path) -> Outcome:
    """The Space's ``/score`` handler called in this process, settings left to the page's."""
    _, page = space_demo(case)
    return _space_outcome(page.score_api(*[_space_texts(case).get(n) for n in page.api_names]))


def space_http(case: Case, tmp: Path) -> Outcome:
    """The Space launched on 127.0.0.1 and called by ``gradio_client`` by parameter names, the
    case's options sent as named settings."""
    demo, page = space_demo(case)
    client = served(demo)
    return _space_outcome(client.predict(**_space_texts(case), **case.options, api_name="/score"))


_CLIENTS: Dict[int, Any] = {}


def served(demo: Any) -> Any:
    """A ``gradio_client.Client`` of ``demo`` launched on a free port of 127.0.0.1 (once; closed
    when the process ends)."""
    import atexit
    import socket

    from gradio_client import Client

    if id(demo) not in _CLIENTS:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, ssr_mode=False)
        atexit.register(demo.close)
        _CLIENTS[id(demo)] = Client(f"http://127.0.0.1:{port}/", verbose=False)
    return _CLIENTS[id(demo)]


def trainer_hook_by_name(case: Case, tmp: Path) -> Outcome:
    """The hook decodes token ids: the outcome is compared with ``score`` on the decoded texts
    (:func:`decoded_case`)."""
    from transformers import EvalPrediction

    tok = hook_tokenizer()
    fn = nlgmetrics.compute_metrics_fn(case.metric, tok, sources=case.sources, **case.options, **case.extras)
    with caught() as warned:
        out = fn(EvalPrediction(predictions=_ids(tok, case.predictions), label_ids=_ids(tok, case.references)))
    return Outcome(None, out[case.metric], None, _texts(warned))


def _ids(tok: Any, texts: List[str]) -> Any:
    import numpy as np

    rows = tok(texts)["input_ids"]
    width = max(len(r) for r in rows)
    return np.array([r + [-100] * (width - len(r)) for r in rows])


_TOKENIZER: List[Any] = []


def hook_tokenizer() -> Any:
    if not _TOKENIZER:
        from transformers import AutoTokenizer

        from nlgmetrics.core.models import lite_encoder_path

        _TOKENIZER.append(AutoTokenizer.from_pretrained(lite_encoder_path()))
    return _TOKENIZER[0]


def decoded_case(case: Case) -> Case:
    """The case as the Trainer hook sees it: the texts through the tokenizer and back."""
    tok = hook_tokenizer()

    def round_trip(texts: List[str]) -> List[str]:
        return [t.strip() for t in tok.batch_decode(tok(texts)["input_ids"], skip_special_tokens=True)]

    return Case(case.metric, case.options, round_trip(case.predictions), round_trip(case.references),
                case.other, case.sources, case.extras, case.module)


SURFACES: Dict[str, Callable[[Case, Path], Outcome]] = {
    "python.score": python_score, "python.compare": python_compare, "python.meta_eval": python_meta_eval,
    "cli.score": cli_score, "cli.shards+reduce": cli_shards_and_reduce, "cli.compare": cli_compare,
    "cli.meta_eval": cli_meta_eval,
    "evaluate.compute": evaluate_compute, "evaluate.add": evaluate_add, "evaluate.add_batch": evaluate_add_batch,
    "evaluate.combine": evaluate_combine, "evaluate.evaluator": evaluate_evaluator,
    "space.handler": space_handler, "space.http": space_http,
    "trainer.by_name": trainer_hook_by_name, "trainer.with_module": trainer_hook_with_module,
}


def check(case: Case, surface: str, tmp: Path, reference: Optional[Outcome] = None, *,
          compare_warnings: bool = True) -> None:
    """``surface`` gives what ``nlgmetrics.score`` gives (``reference``; computed when not given)
    for ``case``; AssertionError naming the surface and what differs. ``compare_warnings=False``
    for a metric whose scorer warns once per instance (DATScore's generation limit): a second
    call in the process rightly says less."""
    expected_case = decoded_case(case) if surface.startswith("trainer.") else case
    want = reference if reference is not None and expected_case is case else python_score(expected_case, tmp)
    got = SURFACES[surface](case, tmp)
    if got.scores is not None:
        assert len(got.scores) == len(want.scores or []) and all(
            math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(got.scores, want.scores or [])), \
            f"{surface}: per-segment scores {got.scores} != {want.scores}"
    if got.score is not None:
        assert math.isclose(got.score, want.score or 0.0, rel_tol=1e-9, abs_tol=1e-9), \
            f"{surface}: corpus score {got.score} != {want.score}"
    if got.signature is not None:
        assert got.signature == want.signature, f"{surface}: signature {got.signature} != {want.signature}"
    if got.pearson is not None:
        from scipy.stats import pearsonr

        expected = float(pearsonr(want.scores or [], human(len(want.scores or [])))[0])
        assert math.isclose(got.pearson, expected, rel_tol=1e-9, abs_tol=1e-9), \
            f"{surface}: segment-level Pearson {got.pearson} != {expected}"
    if got.warnings is not None and compare_warnings and surface.startswith("space."):
        want = Outcome(want.scores, want.score, want.signature, space_keys(want.warnings or frozenset()))
    if got.warnings is not None and compare_warnings:
        got, want = (Outcome(o.scores, o.score, o.signature, same_words(o.warnings or frozenset())) for o in (got, want))
        assert got.warnings == want.warnings, f"{surface}: warnings {sorted(got.warnings)} != {sorted(want.warnings or [])}"


@dataclass
class Counts:
    resolves: int = 0
    configs: int = 0


@contextlib.contextmanager
def counting() -> Iterator[Counts]:
    """Counts, while open, the calls resolved (each :func:`nlgmetrics.core.call.resolve` makes
    one :class:`~nlgmetrics.core.call.Call`) and the configurations built (each runs
    ``MetricConfig.__post_init__``, the checks of every option)."""
    from nlgmetrics.core.call import Call
    from nlgmetrics.core.config import MetricConfig

    counts = Counts()
    call_init, post_init = Call.__init__, MetricConfig.__post_init__

    def made_call(self: Any, *args: Any, **kwargs: Any) -> None:
        counts.resolves += 1
        call_init(self, *args, **kwargs)

    def built(self: Any) -> None:
        counts.configs += 1
        post_init(self)

    Call.__init__, MetricConfig.__post_init__ = made_call, built  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        Call.__init__, MetricConfig.__post_init__ = call_init, post_init  # type: ignore[method-assign]

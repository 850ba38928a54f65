"""The Spaces for programs (nlgmetrics.space.api, issue 45): each app launched on 127.0.0.1
answers ``gradio_client.Client(url).predict(predictions=[...], references=[...], <options>,
api_name="/score")`` with the per-segment scores, corpus score and signature of
``nlgmetrics.score`` with the same options, and the warnings its page shows; once launched on the
CPU it scores in a worker process; refusals come back as the page's one message. One request
(from the page or the endpoint) resolves its call once and builds its configuration once,
counted over the whole request (``registry.resolve``, ``core.call.resolve`` and
``MetricConfig.__post_init__``, which every configuration build runs). The README of every
Space shows a call the endpoint takes."""
from __future__ import annotations

import contextlib
import re
import socket
import typing
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

gr = pytest.importorskip("gradio")
client_module = pytest.importorskip("gradio_client")

import publish  # noqa: E402

import nlgmetrics  # noqa: E402
from nlgmetrics import registry  # noqa: E402
from nlgmetrics.core import call as calls  # noqa: E402
from nlgmetrics.core.config import MetricConfig  # noqa: E402
from tests.spaces.test_space_parts import _handler, _page  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
APPS = tuple(registry.REGISTRY)  # the metrics, by the registry alone
#: per app: options that run offline (the page's initial ones stay as the app sets them; these
#: are sent as the endpoint's named parameters); DATScore's model is the tiny M2M-100
OPTIONS: Dict[str, Dict[str, Any]] = {"texteval": {"approach": "scaling", "features": "words"},
                                      "sam": {"base": "chrf", "matching": "lemma"},
                                      "discotk": {"variant": "party"}, "rome": {"profile": "lite"},
                                      "datscore": {"source_lang": "fr", "target_lang": "en"}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def served(demo: Any) -> Iterator[Any]:
    """``demo`` launched on 127.0.0.1 (a free port) and a client of it; closed afterwards."""
    port = _free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True, ssr_mode=False)
    try:
        yield client_module.Client(f"http://127.0.0.1:{port}/", verbose=False)
    finally:
        demo.close()


def _app(name: str) -> Any:
    return publish.load_app(ROOT / "spaces" / name / "app.py")


def example(name: str) -> Dict[str, List[Any]]:
    """The app's first example as lists (TextEval: every reference line for every prediction,
    the page's standard set), read here independently of the app's code."""
    first = _app(name).EXAMPLES[0]
    preds = first["predictions"].splitlines()
    refs: List[Any] = first["references"].splitlines()
    out: Dict[str, List[Any]] = {"predictions": preds,
                                 "references": [list(refs) for _ in preds] if name == "texteval" else refs}
    if first.get("sources"):
        out["sources"] = first["sources"].splitlines()
    return out


def _options(name: str, request: Any) -> Dict[str, Any]:
    options = dict(OPTIONS[name])
    if name == "datscore":
        options["model"] = request.getfixturevalue("tiny_m2m100")
    return options


def _in_process(monkeypatch: Any, name: str, options: Dict[str, Any]) -> Any:
    """The app's page scoring in this process (no worker processes), its settings the app's
    defaults but for the model the test offers."""
    monkeypatch.setenv("NLGMETRICS_SPACE_PROCESSES", "0")
    return _app(name).build_demo(options={"model": options["model"]} if "model" in options else None, preload=False)


def _expected(name: str, inputs: Dict[str, Any], options: Dict[str, Any]) -> Any:
    return nlgmetrics.score(name, inputs["predictions"], inputs["references"], inputs.get("sources"), quiet=True,
                            **options)


@pytest.mark.parametrize("name", APPS)
def test_the_score_endpoint_answers_what_the_package_scores(name, request, monkeypatch):
    options = _options(name, request)
    inputs = example(name)
    with served(_in_process(monkeypatch, name, options)) as client:
        out = client.predict(**inputs, **options, api_name="/score")
    expected = _expected(name, inputs, options)
    assert set(out) == {"score", "scores", "signature", "warnings"}
    assert out["scores"] == expected.scores and len(out["scores"]) == len(inputs["predictions"])
    assert out["score"] == expected.score and out["signature"] == expected.signature
    assert all(set(w) == {"key", "message"} for w in out["warnings"])


def _page_warnings(html: str) -> set:
    return set(re.findall(r'data-warning="([^"]+)"', html))


def test_texteval_endpoint_warns_refuses_and_names_its_parameters(monkeypatch):
    """The fast representative: the page's warnings, its refusals as one message each, the
    options by name (left out: the page's initial settings) and the API page's names."""
    monkeypatch.setenv("NLGMETRICS_SPACE_PROCESSES", "0")
    demo = _app("texteval").build_demo(options={"features": "words"}, preload=False)  # no tagger to load
    german = ["Die Regierung kündigte gestern neue Maßnahmen für kleine Unternehmen an."]
    german_refs = [["Die Regierung hat neue Maßnahmen für kleine Firmen angekündigt."]]
    with served(demo) as client:
        out = client.predict(predictions=german, references=german_refs, api_name="/score")
        shown = client.predict(predictions=german[0], references=german_refs[0][0], api_name="/score_page")
        with pytest.raises(client_module.exceptions.AppError, match="approach 'nonsense' is not offered by this Space"):
            client.predict(predictions=["a"], references=[["b"]], approach="nonsense", api_name="/score")
        with pytest.raises(client_module.exceptions.AppError, match="references has 1 items but predictions has 2"):
            client.predict(predictions=["a", "b"], references=[["b"]], api_name="/score")
        info = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    assert {w["key"] for w in out["warnings"]} == _page_warnings(shown[0]) and "non-english" in _page_warnings(shown[0])
    initial = nlgmetrics.score("texteval", german, german_refs, features="words", approach="direct", quiet=True)
    assert out["scores"] == initial.scores and out["signature"] == initial.signature  # the page's initial settings
    names = [p["parameter_name"] for p in info["/score"]["parameters"]]
    assert names == ["predictions", "references", "features", "approach", "distance"]
    assert [p["parameter_name"] for p in info["/score_page"]["parameters"]][:2] == ["predictions", "references"]
    assert "score" in [r["label"] for r in info["/score_page"]["returns"]]


def test_sam_endpoint_takes_base_scores_and_refuses_what_the_page_does_not_offer():
    """SAM's per-segment input by name (``base_scores`` means base='given', as in
    nlgmetrics.score); a base the page does not offer, named, is refused."""
    demo = _app("sam").build_demo(preload=False)
    api = _handler(demo, "score")
    preds, refs = ["what a happy day", "the cat sat"], ["what a sad day", "the cat sat"]
    out = api(predictions=preds, references=refs, base_scores=[0.5, 0.25])
    expected = nlgmetrics.score("sam", preds, refs, base_scores=[0.5, 0.25], quiet=True)
    assert out["scores"] == expected.scores and out["signature"] == expected.signature
    with pytest.raises(gr.Error, match="base 'given' is not offered by this Space"):
        api(predictions=preds, references=refs, base="given")
    with pytest.raises(gr.Error, match="base_scores"):  # the resolver's: a base that takes none
        api(predictions=preds, references=refs, base="chrf", base_scores=[0.5, 0.25])


class Counts:
    """Calls of the front door and configuration builds while counting."""

    def __init__(self, monkeypatch: Any) -> None:
        self.counts: Counter = Counter()
        self.on = False
        for module, name, key in ((registry, "resolve", "resolve"), (calls, "resolve", "core resolve")):
            monkeypatch.setattr(module, name, self.counted(getattr(module, name), key))
        monkeypatch.setattr(MetricConfig, "__post_init__", self.counted(MetricConfig.__post_init__, "build"))

    def counted(self, fn: Any, key: str) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.counts[key] += 1
            return fn(*args, **kwargs)
        return wrapper

    @contextlib.contextmanager
    def __call__(self) -> Iterator[Counter]:
        self.counts.clear()
        self.on = True
        try:
            yield self.counts
        finally:
            self.on = False


def _request_counts(name: str, options: Dict[str, Any], monkeypatch: Any) -> Dict[str, Dict[str, int]]:
    """Per way in (the endpoint, the page), the counts of two requests (the first builds the
    scorer); and those of the resolve step alone."""
    demo = _in_process(monkeypatch, name, {})
    page, api, shown = _page(demo), _handler(demo, "score"), _handler(demo, "score_page")
    counts = Counts(monkeypatch)
    inputs = {"predictions": ["the cat sat on the mat", "what a happy day"],
              "references": ["the cat sat on a mat", "what a sad day"]}
    out: Dict[str, Dict[str, int]] = {}
    for k in range(2):
        with counts() as c:
            assert api(**inputs, **options)["signature"]
        out[f"api {k}"] = dict(c)
        with counts() as c:
            message, score, *_ = shown("\n".join(inputs["predictions"]), "\n".join(inputs["references"]),
                                       **{**page.preset, **options})
            assert "data-role=\"corpus\"" in score, message
        out[f"page {k}"] = dict(c)
    with counts() as c:
        page.call(options)
    out["resolve step"] = dict(c)
    return out


ONE_EACH = {"resolve": 1, "core resolve": 1, "build": 1}
BERTSCORE_LITE = {"base": "bertscore", "profile": "lite"}


@pytest.mark.parametrize("name, options", [("sam", {"base": "chrf"}), ("discotk", {"variant": "party"}),
                                           ("sam", BERTSCORE_LITE)])
def test_a_request_adds_no_resolve_and_no_configuration_build_to_the_front_doors(name, options, monkeypatch):
    counts = _request_counts(name, options, monkeypatch)
    step = counts.pop("resolve step")
    assert step["resolve"] == 1 == step["core resolve"]
    assert all(got == step for got in counts.values()), (step, counts)


@pytest.mark.parametrize("name, options", [
    ("sam", {"base": "chrf"}), ("discotk", {"variant": "party"}),
    ("sam", BERTSCORE_LITE)])
def test_a_request_resolves_once_and_builds_one_configuration(name, options, monkeypatch):
    counts = _request_counts(name, options, monkeypatch)
    assert all(got == ONE_EACH for got in counts.values()), counts


def test_once_launched_the_endpoint_scores_in_a_worker_process(monkeypatch):
    """On the CPU a launched Space scores in worker processes (one here): the endpoint's
    request goes there too, and answers as the package."""
    monkeypatch.delenv("NLGMETRICS_SPACE_PROCESSES", raising=False)
    monkeypatch.setenv("NLGMETRICS_SPACE_CONCURRENCY", "1")
    demo = _app("sam").build_demo(options={"base": "chrf"}, preload=False)
    page = _page(demo)
    inputs = example("sam")
    lexicon = {"happy#a": 0.75, "sad#a": -0.5}
    with served(demo) as client:
        assert page.workers is not None and page.workers.running and not page.workers.started
        out = client.predict(**inputs, api_name="/score")
        assert page.workers.started  # a worker took the request
        # a configuration holding a mapping does not pickle: that call is scored in the server
        mood = {"predictions": ["what a happy day"], "references": ["what a sad day"]}
        _, own, _ = page.request(registry.resolve("sam", {"base": "chrf", "lexicon": lexicon}), mood)
    expected = _expected("sam", inputs, {"base": "chrf"})
    assert out["scores"] == expected.scores and out["signature"] == expected.signature
    assert own.scores == _expected("sam", mood, {"base": "chrf", "lexicon": lexicon}).scores
    assert own.scores != _expected("sam", mood, {"base": "chrf"}).scores  # the caller's lexicon counted


class RecordingClient:
    """Stands in for ``gradio_client.Client`` while a README's code runs: records the calls."""

    calls: List[Dict[str, Any]] = []

    def __init__(self, src: str, *args: Any, **kwargs: Any) -> None:
        self.src = src

    def predict(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        type(self).calls.append({"src": self.src, "args": args, **kwargs})
        return {"score": 0.0, "scores": [], "signature": "", "warnings": []}


@pytest.mark.parametrize("name", APPS)
def test_each_readme_shows_a_call_the_endpoint_takes(name, monkeypatch):
    """The README's code, run with a recording client: one call of ``/score`` by this Space's
    name, with the texts and only parameters (and offered values) the endpoint has."""
    readme = (ROOT / "spaces" / name / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    monkeypatch.setattr(client_module, "Client", RecordingClient)
    monkeypatch.setattr(RecordingClient, "calls", [])
    for block in blocks:
        exec(compile(block, f"spaces/{name}/README.md", "exec"), {})  # noqa: S102 - the project's own README
    assert len(RecordingClient.calls) == 1, RecordingClient.calls
    given = dict(RecordingClient.calls[0])
    assert given.pop("src") == f"nlgmetrics/{name}" and given.pop("args") == ()
    assert given.pop("api_name") == "/score"
    types = _page(_app(name).build_demo(preload=False)).api_types()
    assert {"predictions", "references"} <= set(given) <= set(types)
    for key, value in given.items():
        choices = [a for t in typing.get_args(types[key]) if typing.get_origin(t) is typing.Literal
                   for a in typing.get_args(t)]
        assert not choices or value in choices, (key, value)

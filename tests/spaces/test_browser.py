"""The five Spaces in a real browser: each app is launched once on 127.0.0.1 and driven with
headless Chromium (Debian's /usr/bin/chromium through Playwright; no browser download).

At 1280x900: the Score button is in view on load; the paper's example scores and the page's
numbers (corpus, segments, the how-to-read reference points) equal the core API's; the
drawings show what the metric computed; a screenshot is taken (spaces/<name>/screenshot.png
with --update-screenshots, else in a temporary directory). At 390x844
(phone): no result region overflows without a scroll container and the page does not scroll
sideways. Warnings appear when due (non-English input, tiny corpora) and not otherwise; bad
input gives a message; a CSV batch round-trips through upload and download.
"""
from __future__ import annotations

import csv
import io
import os
import socket
from pathlib import Path
from typing import Any, Dict, List

import pytest

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ.setdefault("HF_HUB_OFFLINE", "1")

CHROMIUM = os.environ.get("NLGMETRICS_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("gradio")

from publish import load_app  # noqa: E402

import nlgmetrics  # noqa: E402

GERMAN = "Die Regierung kündigte gestern neue Maßnahmen für kleine Unternehmen an."
GERMAN_REF = "Die Regierung hat neue Maßnahmen für kleine Firmen angekündigt."
#: per app: initial settings, the example clicked, the input that must give a message, and an
#: input that must give a warning (its key)
CASES: Dict[str, Dict[str, Any]] = {
    "sam": {"options": {"base": "meteor"}, "example": 0,
            "bad": {"predictions": "a\nb", "references": "r",
                    "expected": "2 prediction line(s) but 1 reference line(s)"},
            "warn": {"predictions": GERMAN, "references": GERMAN_REF, "key": "non-english"}},
    "texteval": {"options": {"approach": "scaling"}, "example": 0,
                 "bad": {"predictions": "", "references": "r1\nr2", "expected": "Enter at least one prediction"},
                 "warn": {"predictions": GERMAN, "references": f"{GERMAN_REF}\n{GERMAN}", "key": "non-english"}},
    "discotk": {"options": {"variant": "party"}, "example": 0,
                "bad": {"predictions": "one\ntwo\nthree", "references": "one",
                        "expected": "3 prediction line(s) but 1 reference line(s)"},
                "warn": {"predictions": "He stayed at home because it rained.", "setting": ("variant", "light"),
                         "references": "Because it rained, he stayed at home.", "key": "tiny-corpus"}},
    "rome": {"options": {"profile": "lite"}, "example": 0,
             "bad": {"predictions": "h", "references": "", "expected": "Enter the reference"},
             "warn": {"predictions": GERMAN, "references": GERMAN_REF, "key": "non-english"}},
    "datscore": {"options": {"source_lang": "fr", "target_lang": "en"}, "example": 0,
                 "bad": {"predictions": "h1\nh2", "references": "r1\nr2", "sources": "s1",
                         "expected": "2 hypothesis line(s) but 1 source line(s)"},
                 "warn": {"predictions": "The cat sits.", "references": "The cat is sitting.",
                          "sources": "Le chat est assis.", "key": "tiny-corpus"}},
}
#: warnings the example itself must give: fewer lines than one-vs-rest needs; the tiny random
#: M2M-100 never ends a translation (generation limit)
EXAMPLE_WARNINGS = {"datscore": {"tiny-corpus", "truncation"}}
VISUALS = {"sam": ["#sam-words"], "texteval": ["#texteval-scale"], "discotk": ["#discotk-trees"],
           "rome": ["#rome-alignment"], "datscore": ["#datscore-directions", "#datscore-translations"]}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
TIMEOUT_MS = 240_000
DESKTOP, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}

#: every element of a result region that sticks out of it must sit in a scroll container
#: that itself fits; the page itself must not scroll sideways
OVERFLOW_JS = """(ids) => {
  const bad = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1) bad.push(`page is ${doc.scrollWidth}px wide`);
  for (const id of ids) {
    const root = document.querySelector(id);
    if (!root) continue;
    const box = root.getBoundingClientRect();
    for (const el of root.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || (r.right <= box.right + 1 && r.left >= box.left - 1)) continue;
      let p = el.parentElement, ok = false;
      while (p && p !== root) {
        const st = getComputedStyle(p);
        if ((st.overflowX === 'auto' || st.overflowX === 'scroll') &&
            p.getBoundingClientRect().right <= box.right + 1) { ok = true; break; }
        p = p.parentElement;
      }
      if (!ok) bad.push(`${id} <${el.tagName.toLowerCase()}> right ${Math.round(r.right)} > ${Math.round(box.right)}`);
    }
  }
  return bad.slice(0, 8);
}"""


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def served(tiny_m2m100):
    """Launch each app once, on first use; close them all at the end."""
    demos: Dict[str, Any] = {}
    urls: Dict[str, str] = {}

    def serve(name: str) -> str:
        if name not in urls:
            options = dict(CASES[name]["options"])
            if name == "datscore":
                options["model"] = tiny_m2m100
            # one worker process per Space (the default is two): the pages are driven one
            # request at a time, and five Spaces' workers all load their models at launch
            saved = os.environ.get("NLGMETRICS_SPACE_CONCURRENCY")
            os.environ["NLGMETRICS_SPACE_CONCURRENCY"] = "1"
            try:
                demo = load_app(ROOT / "spaces" / name / "app.py").build_demo(options=options)
            finally:
                if saved is None:
                    del os.environ["NLGMETRICS_SPACE_CONCURRENCY"]
                else:
                    os.environ["NLGMETRICS_SPACE_CONCURRENCY"] = saved
            port = _free_port()
            demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                        ssr_mode=False)
            demos[name], urls[name] = demo, f"http://127.0.0.1:{port}/"
        return urls[name]

    yield serve
    for demo in demos.values():
        demo.close()


def core_scorer(name: str, tiny: str) -> Any:
    options = dict(CASES[name]["options"])
    if name == "datscore":
        options.update(model=tiny, return_translations=True)
    if name == "rome":
        options["return_alignment"] = True
    return nlgmetrics.scorer_class(name)(quiet=True, **options)


def example_inputs(name: str, example: Dict[str, str]) -> Dict[str, Any]:
    """Text boxes as the core API takes them (read independently of the app code)."""
    preds = example["predictions"].splitlines()
    refs = example.get("references", "").splitlines()
    srcs = example.get("sources", "").splitlines() or None
    references: List[Any] = [list(refs) for _ in preds] if name == "texteval" else refs
    return {"predictions": preds, "references": references, "sources": srcs}


def open_page(browser, url: str, viewport=DESKTOP):
    page = browser.new_page(viewport=viewport)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    page.wait_for_selector("#run")
    return page


def run_and_wait(page, button: str, score: str, message: str) -> None:
    """Click ``button`` and wait for a score or an error message; fail with the message."""
    page.click(button)
    page.wait_for_selector(f"{score} [data-role=corpus], {message} .nlgm-error")
    if page.locator(f"{message} .nlgm-error").count():
        pytest.fail(f"the page shows an error: {page.inner_text(message)}")


def page_scores(page, where: str = "#score") -> List[float]:
    corpus = float(page.get_attribute(f"{where} [data-role=corpus]", "data-value"))
    segments = page.locator(f"{where} [data-role=segment]")
    return [corpus] + [float(segments.nth(k).get_attribute("data-value")) for k in range(segments.count())]


def warning_keys(page, where: str = "#message") -> set:
    found = page.locator(f"{where} [data-warning]")
    return {found.nth(k).get_attribute("data-warning") for k in range(found.count())}


def _textarea(page, elem_id: str):
    return page.locator(f"#{elem_id} textarea").first


def click_example(page, name: str) -> Dict[str, Any]:
    app = load_app(ROOT / "spaces" / name / "app.py")
    inputs = example_inputs(name, app.EXAMPLES[CASES[name]["example"]])
    page.locator("#examples tbody tr").nth(CASES[name]["example"]).click()
    page.wait_for_function(
        "expected => document.querySelector('#input-predictions textarea').value === expected",
        arg="\n".join(inputs["predictions"]))
    return inputs


def check_reading(page, name: str, scorer: Any) -> None:
    """The how-to-read box and its reference points, measured by the core."""
    assert page.locator("#score [data-role=how-to-read]").count() == 1
    app = load_app(ROOT / "spaces" / name / "app.py")
    anchors = app.SPEC.reading(scorer).anchors
    assert len(anchors) == 3
    refs = [a.reference for a in anchors]
    srcs = None if all(a.source is None for a in anchors) else [a.source for a in anchors]
    expected = scorer.score([a.prediction for a in anchors], refs, srcs).scores
    shown = page.locator("#score [data-anchor]")
    assert [float(shown.nth(k).get_attribute("data-value")) for k in range(shown.count())] == \
        pytest.approx(expected, rel=1e-9, abs=1e-12)


def check_drawings(name: str, page, result: Any, inputs: Dict[str, Any]) -> None:
    n = len(inputs["predictions"])
    assert page.locator(f"{VISUALS[name][0]} [data-role=legend]").count() == 1
    if name == "sam":
        negative = page.locator("#sam-words [data-polarity=negative]")
        assert negative.count() >= 1 and negative.first.inner_text() == "not"  # the paper's Example 3
        assert page.locator("#sam-words svg[data-role=base-vs-sam] rect").count() == 2 * n
    elif name == "texteval":
        r2 = page.locator("#texteval-scale [data-role=r2]")
        assert r2.count() == n and 0.0 <= float(r2.first.get_attribute("data-value")) <= 1.0
        for role in ("scale", "direct"):  # one orientation: both put the closest member right
            dots = page.locator(f"#texteval-scale svg[data-role={role}]").first.locator("circle")
            assert dots.count() == 1 + len(inputs["references"][0])
    elif name == "discotk":
        assert page.locator("#discotk-trees svg[data-role=hypothesis-tree]").count() == n
        bars = page.locator("#discotk-trees svg[data-role=kernels]").first.locator("rect")
        kernels = {bars.nth(k).get_attribute("data-label"): float(bars.nth(k).get_attribute("data-value"))
                   for k in range(bars.count())}
        expected = {k: v for k, v in result.details[0]["features"].items() if k.startswith("dr-")}
        assert kernels.keys() == expected.keys()
        assert all(kernels[k] == pytest.approx(expected[k], rel=1e-9, abs=1e-12) for k in kernels)
        legend = page.locator("#discotk-trees [data-role=legend] [data-label]")
        assert set(kernels) <= {legend.nth(k).get_attribute("data-label") for k in range(legend.count())}
    elif name == "rome":
        marked = page.locator("#rome-alignment table[data-role=alignment]").first.locator("td[data-marked]")
        assert marked.count() == len(result.details[0]["alignment"]) > 0
        assert page.locator("#rome-alignment svg[data-role=components]").count() == n
    elif name == "datscore":
        weights = page.locator("#datscore-directions svg[data-role=weights] rect")
        assert weights.count() == len(result.corpus["direction_weights"]) == 8
        shown = sum(float(weights.nth(k).get_attribute("data-value")) for k in range(weights.count()))
        assert shown == pytest.approx(1.0)
        assert page.locator("#datscore-translations table[data-role=translations] tr").count() == n + 1


@pytest.mark.parametrize("name", list(CASES))
def test_example_at_desktop_and_phone_width(name, browser, served, tiny_m2m100, screenshot_dir):
    page = open_page(browser, served(name))
    assert page.locator("#run").bounding_box()["y"] + page.locator("#run").bounding_box()["height"] <= 900
    inputs = click_example(page, name)
    run_and_wait(page, "#run", "#score", "#message")
    scorer = core_scorer(name, tiny_m2m100)
    result = scorer.score(inputs["predictions"], inputs["references"], inputs["sources"])
    assert page_scores(page) == pytest.approx([result.score] + list(result.scores), rel=1e-9, abs=1e-12)
    assert page.inner_text("#score [data-role=signature]") == result.signature or name == "datscore"
    assert page.locator("#score [data-role=corpus]").bounding_box()["y"] < 900  # the score in view too
    assert warning_keys(page) == EXAMPLE_WARNINGS.get(name, set())
    check_reading(page, name, scorer)
    check_drawings(name, page, result, inputs)
    # the cards' pictures (DATScore's runs the tiny random model: its caption says so)
    shot = screenshot_dir / name / "screenshot.png"  # spaces/ only with --update-screenshots
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    page.set_viewport_size(PHONE)  # the same results at phone width: they fit or scroll
    page.wait_for_timeout(300)
    assert page.evaluate(OVERFLOW_JS, ["#message", "#score"] + VISUALS[name]) == []
    page.close()


@pytest.mark.parametrize("name", list(CASES))
def test_warning_appears_when_due(name, browser, served):
    page = open_page(browser, served(name))
    case = CASES[name]["warn"]
    if "setting" in case:  # a radio setting changed in the page
        option, value = case["setting"]
        page.locator(f"#setting-{option}").get_by_label(value, exact=True).check()
    for field in ("predictions", "references", "sources"):
        if field in case:
            _textarea(page, f"input-{field}").fill(case[field])
    run_and_wait(page, "#run", "#score", "#message")
    assert case["key"] in warning_keys(page)
    page.close()


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gives_a_message(name, browser, served):
    page = open_page(browser, served(name))
    bad = CASES[name]["bad"]
    for field in ("predictions", "references", "sources"):
        if field in bad:
            _textarea(page, f"input-{field}").fill(bad[field])
    page.click("#run")
    page.wait_for_selector("#message .nlgm-error")
    assert bad["expected"] in page.inner_text("#message")
    assert page.locator("#score [data-role=corpus]").count() == 0
    page.close()


def _upload(page, path: Path) -> None:
    page.get_by_role("tab", name="Batch").click()
    page.locator("#batch-upload input[type=file]").set_input_files(str(path))
    page.wait_for_selector("#batch-upload a, #batch-upload .file-name, #batch-upload td")


@pytest.mark.parametrize("name", list(CASES))
def test_batch_file_round_trip(name, browser, served, tiny_m2m100, tmp_path):
    app = load_app(ROOT / "spaces" / name / "app.py")
    inputs = example_inputs(name, app.EXAMPLES[CASES[name]["example"]])
    path = tmp_path / "batch.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        refs = inputs["references"]
        n_refs = len(refs[0]) if name == "texteval" else 1
        ref_columns = [f"reference_{k + 1}" for k in range(n_refs)] if name == "texteval" else ["reference"]
        writer.writerow(["prediction"] + ref_columns + (["source"] if inputs["sources"] else []))
        for i, pred in enumerate(inputs["predictions"]):
            row_refs = refs[i] if name == "texteval" else [refs[i]]
            writer.writerow([pred] + row_refs + ([inputs["sources"][i]] if inputs["sources"] else []))
    page = open_page(browser, served(name))
    _upload(page, path)
    run_and_wait(page, "#batch-run", "#batch-score", "#batch-message")
    result = core_scorer(name, tiny_m2m100).score(inputs["predictions"], inputs["references"], inputs["sources"])
    assert page_scores(page, "#batch-score") == pytest.approx([result.score] + list(result.scores),
                                                             rel=1e-9, abs=1e-12)
    link = page.locator("#batch-download a[href*='_scores.csv']").first
    link.wait_for()
    response = page.request.get(link.get_attribute("href"))
    assert response.ok
    rows = list(csv.DictReader(io.StringIO(response.text())))
    assert [r["prediction"] for r in rows] == inputs["predictions"]
    assert [float(r["score"]) for r in rows] == pytest.approx(result.scores, rel=1e-9, abs=1e-12)
    page.close()


def test_batch_errors_name_the_row_and_line(browser, served, tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text('{"prediction": "a", "reference": "b"}\n{"prediction": "a"\n', encoding="utf-8")
    page = open_page(browser, served("sam"))
    _upload(page, path)
    page.click("#batch-run")
    page.wait_for_selector("#batch-message .nlgm-error")
    assert "broken.jsonl, line 2: not valid JSON" in page.inner_text("#batch-message")
    page.close()


def test_the_overflow_check_finds_a_clipped_chart(browser):
    """The phone-width check fails on a chart wider than its region without a scroll container
    and passes once the chart sits in one."""
    page = browser.new_page(viewport=PHONE)
    wide = '<svg width="652" height="20"><rect width="652" height="20"/></svg>'
    page.set_content(f'<div id="r" style="width:326px;overflow:hidden">{wide}</div>'
                     f'<div id="s" style="width:326px"><div style="overflow-x:auto">{wide}</div></div>')
    assert page.evaluate(OVERFLOW_JS, ["#r"]) and page.evaluate(OVERFLOW_JS, ["#s"]) == []
    page.close()

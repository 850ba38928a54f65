"""The five Space apps without a browser: every app builds its gr.Blocks (also when its models
cannot load), its settings come from the metric's configuration (no free text: the DATScore
model list is the owner's), its README and requirements are what the Hub needs. The shared
machinery is tested in test_space_support.py, the pages in a browser in
test_spaces_browser.py."""
from __future__ import annotations

from pathlib import Path

import pytest

gr = pytest.importorskip("gradio")

import publish  # noqa: E402

import nlgmetrics  # noqa: E402
from nlgmetrics import space as ui  # noqa: E402
from nlgmetrics.registry import REGISTRY  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
APPS = tuple(REGISTRY)  # the metrics, by the registry alone


def _block(demo, elem_id):
    return next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == elem_id)


@pytest.mark.parametrize("name", APPS)
def test_app_builds_with_settings_from_the_configuration(name):
    app = publish.load_app(ROOT / "spaces" / name / "app.py")
    demo = app.build_demo(preload=False)
    assert isinstance(demo, gr.Blocks)
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"run", "score", "message", "batch-upload", "batch-download", "about"} <= ids
    config = nlgmetrics.scorer_class(name).Config
    settings = [b for b in demo.blocks.values() if str(getattr(b, "elem_id", "") or "").startswith("setting-")]
    assert settings and not any(isinstance(b, gr.Textbox) for b in settings)  # no free text
    for block in settings:
        option = block.elem_id[len("setting-"):].replace("-", "_")
        if option == "dtype":
            continue
        spec = config.spec(option)
        assert block.label and block.info  # labelled, documented (the configuration's doc by default)
        if spec.choices is not None and option != "base":
            assert [v for _, v in block.choices if v != ui.DEFAULT] == list(spec.choices)


@pytest.mark.parametrize("name", APPS)
def test_examples_give_one_line_per_segment_in_every_box(name):
    app = publish.load_app(ROOT / "spaces" / name / "app.py")
    assert app.EXAMPLES
    for ex in app.EXAMPLES:
        assert set(ex) >= {"predictions", "references"}
        lengths = {len(text.splitlines()) for text in ex.values()}
        assert len(lengths) == 1 and lengths.pop() >= 1, ex


@pytest.mark.parametrize("name", ["datscore", "discotk", "texteval"])
def test_examples_have_three_segments_where_the_metric_is_corpus_dependent(name):
    app = publish.load_app(ROOT / "spaces" / name / "app.py")
    assert app.EXAMPLES
    assert all(len(ex["predictions"].splitlines()) >= 3 for ex in app.EXAMPLES)


def test_datscore_models_are_the_owners_list(monkeypatch):
    monkeypatch.setenv(ui.MODELS_VARIABLE, "facebook/m2m100_418M,facebook/m2m100_1.2B")
    app = publish.load_app(ROOT / "spaces" / "datscore" / "app.py")
    demo = app.build_demo(preload=False)
    model = _block(demo, "setting-model")
    assert isinstance(model, gr.Dropdown) and not model.allow_custom_value
    assert [v for _, v in model.choices] == ["facebook/m2m100_418M", "facebook/m2m100_1.2B"]
    source = _block(demo, "setting-source-lang")
    assert isinstance(source, gr.Dropdown) and ("French (fr)", "fr") in source.choices


def test_datscore_app_says_when_its_model_cannot_load(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    app = publish.load_app(ROOT / "spaces" / "datscore" / "app.py")
    demo = app.build_demo(options={"model": "facebook/m2m100_418M"})
    message = _block(demo, "message")  # under the Score button, where the visitor looks
    assert "could not be loaded" in message.value and "local directory" in message.value
    assert "could not be loaded" not in _block(demo, "runtime").value


@pytest.mark.parametrize("name", APPS)
def test_space_readme_and_requirements(name):
    readme = (ROOT / "spaces" / name / "README.md").read_text(encoding="utf-8")
    meta, body = publish.split_card(readme)
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    assert str(meta["sdk_version"]) == ui.GRADIO_SDK_VERSION
    assert meta["suggested_hardware"] and {"evaluate", "metric"} <= set(meta["tags"])
    assert len(meta["short_description"]) <= 60  # the Hub's limit
    assert "(screenshot.png)" in body
    # nlgmetrics is not on PyPI: the Space installs the wheel publish.py copies beside app.py
    requirements = [r for r in (ROOT / "spaces" / name / "requirements.txt").read_text().splitlines()
                    if r and not r.startswith("#")]
    assert any(r.startswith(f"./nlgmetrics-{nlgmetrics.__version__}-py3-none-any.whl") for r in requirements)


def test_rome_caption_says_what_unaligned_pairs_cost():
    """The RoMe Space's alignment caption follows the scorer's emd_unaligned setting: with the
    default (cosine) unframed cells still transport at 1 - cosine, with `one` they cost 1."""
    app = publish.load_app(ROOT / "spaces" / "rome" / "app.py")
    default = nlgmetrics.scorer_class("rome").Config().emd_unaligned
    assert default == "cosine"
    assert "every other pair 1 − cosine" in app.transport_note("cosine")
    assert "only the framed pairs cost less than 1" in app.transport_note("one")
    assert nlgmetrics.scorer_class("rome").Config().emd_antonyms == "wordnet"
    assert "antonyms" in app.transport_note("cosine", "wordnet") and "antonym" not in app.transport_note("one")


def test_rome_heatmap_shows_antonyms_at_cosine_zero():
    """With emd_antonyms="wordnet" (the default) the Space's heatmap shows an antonym pair's
    alignment score as 0, as F_EMD uses it, and says why in the cell's tooltip."""
    app = publish.load_app(ROOT / "spaces" / "rome" / "app.py")
    html = app.alignment_heatmap(nlgmetrics.load("rome", profile="lite", component="emd", device="cpu", quiet=True),
                                 "The hotel has a small garden.", "The hotel has a large garden.", [])
    assert html.count("WordNet antonyms: cosine taken as 0") == 1
    off = nlgmetrics.load("rome", profile="lite", component="emd", emd_antonyms="off", device="cpu", quiet=True)
    assert "WordNet antonyms" not in app.alignment_heatmap(off, "The hotel has a small garden.",
                                                           "The hotel has a large garden.", [])
    # the name rule (the default) likewise: one cell (Paris/London) at 0, named in its tooltip and the caption
    names = nlgmetrics.load("rome", profile="lite", component="emd", device="cpu", quiet=True)
    html = app.alignment_heatmap(names, "We flew to Paris.", "We flew to London.", [])
    assert html.count("two different names: cosine taken as 0") == 1
    assert "Paris/London" in app.transport_note("cosine", "wordnet", "capitalised")
    no_names = nlgmetrics.load("rome", profile="lite", component="emd", emd_names="off", device="cpu", quiet=True)
    assert "names" not in app.alignment_heatmap(no_names, "We flew to Paris.", "We flew to London.", [])


def test_rome_heatmap_words_are_the_aligned_words():
    """Invisible characters are removed before RoMe splits words, so the heatmap's rows (and the
    alignment indices it frames) are the same with them as without them."""
    app = publish.load_app(ROOT / "spaces" / "rome" / "app.py")
    scorer = nlgmetrics.load("rome", profile="lite", component="emd", return_alignment=True, device="cpu", quiet=True)
    ref = "We flew to London."
    drawn = []
    for hyp in ("We flew to Paris.", "We \u200b flew\x00 to Pa\u00adris.\ufeff"):
        pairs = scorer.score([hyp], [ref]).details[0]["alignment"]
        drawn.append(app.alignment_heatmap(scorer, hyp, ref, pairs))
    assert drawn[0] == drawn[1]


@pytest.mark.parametrize("name", APPS)
def test_boxes_hold_the_first_example_and_the_drawings_follow_the_score(name):
    app = publish.load_app(ROOT / "spaces" / name / "app.py")
    demo = app.build_demo(preload=False)
    first = app.SPEC.examples[0] if hasattr(app, "SPEC") else app.EXAMPLES[0]
    assert _block(demo, "input-predictions").value == first["predictions"]
    ids = [getattr(block, "elem_id", None) for block in demo.blocks.values()]
    visual = next(i for i, e in enumerate(ids) if e and e.startswith(f"{name}-"))
    assert ids.index("run") < ids.index("score") < ids.index("message") < visual < ids.index("examples")


def test_datscore_page_says_hypotheses_throughout():
    app = publish.load_app(ROOT / "spaces" / "datscore" / "app.py")
    demo = app.build_demo(preload=False)
    labels = [_block(demo, f"input-{k}").label for k in ("predictions", "references", "sources")]
    assert not any("rediction" in label for label in labels) and "hypotheses" in labels[1]
    assert ui.page_words("2 prediction line(s) but 3; a 'prediction' column", "hypothesis") == \
        "2 hypothesis line(s) but 3; a 'prediction' column"


def test_sam_base_help_offers_only_the_pages_bases():
    app = publish.load_app(ROOT / "spaces" / "sam" / "app.py")
    base = _block(app.build_demo(preload=False), "setting-base")
    assert "given" not in (base.info or "") and "base_scores" not in (base.info or "")
    assert [v for _, v in base.choices] == ["bleu", "chrf", "meteor", "bertscore"]

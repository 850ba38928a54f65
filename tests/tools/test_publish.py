"""The publish script: its dry run assembles, for every metric, a folder that evaluate.load
accepts (module + card) and whose Space app imports and builds; the card merge, the
requirements merge, and the refusal to push offline."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gradio")

import publish  # noqa: E402

import nlgmetrics  # noqa: E402
from nlgmetrics.registry import REGISTRY  # noqa: E402

METRICS = tuple(REGISTRY)  # the metrics, by the registry alone
SPACES = Path(__file__).resolve().parents[2] / "spaces"  # this checkout's, also for an installed wheel


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """One dry run over all metrics (exit status and folder)."""
    out = tmp_path_factory.mktemp("hub")
    wheels = tmp_path_factory.mktemp("wheels")  # stands in for python -m build's output
    (wheels / f"nlgmetrics-{nlgmetrics.__version__}-py3-none-any.whl").write_bytes(b"PK\x05\x06" + bytes(18))
    status = publish.main(["--out", str(out), "--spaces", str(SPACES), "--wheel-dir", str(wheels)])
    return status, out


@pytest.mark.parametrize("name", METRICS)
def test_dry_run_folder_is_a_metric_and_a_space(hub, name):
    status, out = hub
    folder = out / name
    assert (folder / f"{name}.py").is_file() and (folder / "app.py").is_file()
    publish.check(folder)  # evaluate.load(folder) and the app's build_demo()
    meta, body = publish.split_card((folder / "README.md").read_text(encoding="utf-8"))
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    assert str(meta["sdk_version"]) == "6.31.0" and meta["suggested_hardware"]
    assert {"evaluate", "metric"} <= set(meta["tags"])
    assert "(screenshot.png)" in body and (folder / "screenshot.png").is_file()
    requirements = (folder / "requirements.txt").read_text().splitlines()
    wheel = f"nlgmetrics-{nlgmetrics.__version__}-py3-none-any.whl"
    pins = [r for r in requirements if "nlgmetrics" in r]
    assert len(pins) == 1 and pins[0].startswith(f"./{wheel}") and (folder / wheel).is_file()


def test_dry_run_succeeds_for_every_metric(hub):
    status, out = hub
    assert status == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(METRICS)


@pytest.mark.parametrize("name, options, example", [
    ("texteval", {"features": "words"}, {"predictions": ["the cat sat", "cat the sat on"],
                                     "references": [["the cat sat down", "a cat sat"]] * 2}),
    ("sam", {"base": "chrf"}, {"predictions": ["I feel so happy today"], "references": ["I feel so sad today"]}),
])
def test_assembled_module_scores_like_the_core(hub, name, options, example):
    import evaluate

    status, out = hub
    module = evaluate.load(str(out / name))
    got = module.compute(**example, **options)
    expected = nlgmetrics.score(name, example["predictions"], example["references"], **options)
    assert got["score"] == pytest.approx(expected.score, rel=1e-12)
    assert got["scores"] == pytest.approx(expected.scores, rel=1e-12)


def test_merge_cards_keeps_the_card_and_adds_the_space():
    card = "---\ntitle: RoMe\nemoji: 🧭\nsdk: gradio\ntags:\n- evaluate\n- metric\n---\n\n# Card\n\ntext\n"
    space = ("---\ntitle: RoMe Space\nsdk: gradio\nsdk_version: 6.31.0\napp_file: app.py\n"
             "suggested_hardware: t4-small\ntags:\n- metric\n- nlg\n---\n\n# The Space\n")
    meta, body = publish.split_card(publish.merge_cards(card, space))
    assert meta["title"] == "RoMe" and meta["sdk_version"] == "6.31.0" and meta["suggested_hardware"] == "t4-small"
    assert meta["tags"] == ["evaluate", "metric", "nlg"]
    assert body.index("# Card") < body.index("# The Space")
    # without a card the Space's README stands alone
    meta, body = publish.split_card(publish.merge_cards("", space))
    assert meta["title"] == "RoMe Space" and body.strip() == "# The Space"


def test_merge_requirements_one_line_per_package():
    merged = publish.merge_requirements("nlgmetrics==0.1.0\n# note\nscipy\n", "nlgmetrics[lite]==0.1.0\n")
    assert merged.splitlines() == ["nlgmetrics[lite]==0.1.0", "scipy"]


def test_unknown_metric_and_offline_push(tmp_path, monkeypatch):
    with pytest.raises(SystemExit):
        publish.main(["--out", str(tmp_path), "bleu"])
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(SystemExit, match="cannot push"):
        publish.push(tmp_path, "someone/sam")


@pytest.mark.parametrize("state, warning", [
    ("in sync", None),
    ("stale", "sam: the card's options table is out of date; run python -m nlgmetrics.cli.cards sam"),
    ("no markers", "sam: the card has no generated options table (<!-- options:start --> ... <!-- options:end -->)"),
])
def test_assemble_warns_about_the_cards_options_table(tmp_path, monkeypatch, state, warning):
    from nlgmetrics.cli import cards

    spaces = tmp_path / "spaces"
    (spaces / "sam").mkdir(parents=True)
    (spaces / "sam" / "app.py").write_text("def build_demo(preload=False):\n    return None\n")
    module = tmp_path / "module" / "sam"  # the metric folder publish reads, with a card we write
    module.mkdir(parents=True)
    (module / "sam.py").write_text((Path(nlgmetrics.metric_path("sam")) / "sam.py").read_text(encoding="utf-8"))
    table = cards.options_table("sam")
    assert table.startswith("| option | type |") and "| `base` |" in table
    card = {"in sync": f"# SAM\n\n{cards.START}\n{table.strip()}\n{cards.END}\n\nMore text.\n",
            "stale": f"# SAM\n\n{cards.START}\n| option | type |\n|---|---|\n| base | str |\n{cards.END}\n",
            "no markers": f"# SAM\n\n{table}\n"}[state]
    (module / "README.md").write_text(card, encoding="utf-8")
    monkeypatch.setattr(nlgmetrics, "metric_path", lambda name: str(tmp_path / "module" / name))
    _, warnings = publish.assemble("sam", tmp_path / "out", spaces)
    table_warnings = [w for w in warnings if "options table" in w]
    assert table_warnings == ([warning] if warning else [])
    assert state != "in sync" or "More text." in (tmp_path / "out" / "sam" / "README.md").read_text()


def test_push_default_namespace_is_the_name_evaluate_load_resolves(monkeypatch, tmp_path):
    pushed = []
    monkeypatch.setattr(publish, "push", lambda folder, repo_id, private=False: pushed.append(repo_id) or repo_id)
    monkeypatch.setattr(publish, "check", lambda folder: None)
    assert publish.main(["--out", str(tmp_path), "--spaces", str(SPACES), "--push", "sam"]) == 0
    assert pushed == ["nlgmetrics/sam"]


def test_a_local_wheel_requirement_replaces_the_pin_and_is_copied(tmp_path):
    merged = publish.merge_requirements("nlgmetrics==0.2.0\nscipy\n", "./nlgmetrics-0.2.0-py3-none-any.whl[lite]\n")
    assert merged.splitlines() == ["./nlgmetrics-0.2.0-py3-none-any.whl[lite]", "scipy"]

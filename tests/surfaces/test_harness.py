"""Every surface gives the same answer (tests/surfaces/harness.py) for the five metrics and the
toy metric, with a per-segment input (SAM's base_scores, the toy's offsets) where the metric
has one; a deliberate drift in one surface makes the harness fail."""
from __future__ import annotations

import pytest

from nlgmetrics import registry
from tests.surfaces.harness import SURFACES, Case, check

HYPS = ["the cat sat on the mat", "it is raining today in the city", "a dog ran off quickly"]
REFS = ["a cat was sitting on the mat", "today it rains in the city", "the dog ran away quickly"]
OTHER = ["the cat sat on a mat", "it rains today", "a dog ran"]
GERMAN = ["Die Regierung kündigte heute neue Maßnahmen für kleine Unternehmen an."]


def cases(tiny_m2m100=None):
    return {
        "sam": Case("sam", {"base": "chrf"}, HYPS, REFS, OTHER),
        "sam-given": Case("sam", {}, HYPS, REFS, OTHER, extras={"base_scores": [0.5, 0.25, 0.75]}),
        "texteval": Case("texteval", {}, HYPS, REFS, OTHER),
        "toy": Case("toy", {"scale": 2.0}, HYPS, REFS, OTHER, extras={"offsets": [0.0, 1.0, 2.0]}),
    }


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(registry.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))


@pytest.mark.parametrize("surface", list(SURFACES))
@pytest.mark.parametrize("name", ["sam", "sam-given", "texteval", "toy"])
def test_every_surface_agrees(name, surface, tmp_path, toy):
    if name == "toy" and surface.startswith("evaluate."):
        pytest.skip("the toy's evaluate module: tests/test_toy_metric.py")
    check(cases()[name], surface, tmp_path)


@pytest.mark.parametrize("surface", ["python.score", "cli.score", "evaluate.compute", "trainer.by_name"])
def test_one_call_is_resolved_once_with_one_configuration(surface, tmp_path, toy):
    """Per surface, one call: one resolve and one configuration build (a second call of the same
    options reuses the scorer: no build there either)."""
    from tests.surfaces.harness import counting

    case = cases()["sam"]
    SURFACES[surface](case, tmp_path)  # warm: the scorer exists
    with counting() as counts:
        SURFACES[surface](case, tmp_path)
    assert (counts.resolves, counts.configs) == (1, 1), surface


@pytest.mark.parametrize("options", [[], ["-o", "base=chrf"]], ids=["options-from-the-files", "options-given"])
def test_reduce_resolves_once_with_one_configuration(options, tmp_path):
    """``reduce`` of two shard files: one resolve and one configuration for the run, whether the
    options come from the files' header or from --metric/-o (checked against the files)."""
    from tests.surfaces.harness import _lines, counting, run_cli

    hyp, ref = _lines(tmp_path / "h.txt", HYPS), _lines(tmp_path / "r.txt", REFS)
    parts = [str(tmp_path / f"part{k}.jsonl") for k in (1, 2)]
    for k, part in enumerate(parts, start=1):
        assert run_cli(["score", "sam", "--base", "chrf", "-p", hyp, "-r", ref, "--shard", f"{k}/2",
                        "--records", part, "-q"])[0] == 0
    argv = ["reduce", *(["--metric", "sam", *options] if options else []), *parts, "--json"]
    run_cli(argv)  # warm
    with counting() as counts:
        code, _, err = run_cli(argv)
    assert code == 0, err
    assert (counts.resolves, counts.configs) == (1, 1)

"""Every surface gives the same answer (tests/surfaces/harness.py) for the five metrics and the
toy metric, with a per-segment input (SAM's base_scores, the toy's offsets) where the metric
has one; a deliberate drift in one surface makes the harness fail."""
from __future__ import annotations

import pytest

from tests.surfaces.harness import SURFACES, Case, check

HYPS = ["the cat sat on the mat", "it is raining today in the city", "a dog ran off quickly"]
REFS = ["a cat was sitting on the mat", "today it rains in the city", "the dog ran away quickly"]
OTHER = ["the cat sat on a mat", "it rains today", "a dog ran"]
GERMAN = ["Die Regierung kündigte heute neue Maßnahmen für kleine Unternehmen an.",
          "Der Hund läuft schnell über die Straße im Dorf.", "Es regnet heute in der ganzen Stadt sehr stark."]


def cases(tiny_m2m100=None):
    return {
        "sam": Case("sam", {"base": "chrf"}, HYPS, REFS, OTHER),
        "sam-given": Case("sam", {}, HYPS, REFS, OTHER, extras={"base_scores": [0.5, 0.25, 0.75]}),
        "texteval": Case("texteval", {}, HYPS, REFS, OTHER),
        # German text scored with English resources: the language warning, never silenced by quiet
        "sam-german": Case("sam", {"base": "chrf"}, GERMAN, GERMAN[1:] + GERMAN[:1], GERMAN[::-1]),
        "toysix": Case("toysix", {"scale": 2.0}, HYPS, REFS, OTHER, extras={"offsets": [0.0, 1.0, 2.0]}),
    }


#: the model metrics, offline (slow: each loads its models once per process; DATScore adds the
#: tiny random M2M-100 of the tests' fixture)
MODEL_CASES = {
    "rome": Case("rome", {"profile": "lite"}, HYPS, REFS, OTHER),
    "discotk": Case("discotk", {"variant": "party"}, HYPS, REFS, OTHER),
    "datscore": Case("datscore", {"source_lang": "en", "target_lang": "en"}, HYPS, REFS, OTHER, sources=REFS),
}


@pytest.mark.parametrize("surface", list(SURFACES))
@pytest.mark.parametrize("name", ["sam", "sam-given", "sam-german", "texteval", "toysix"])
def test_every_surface_agrees(name, surface, tmp_path, toysix):
    """The toy sixth metric (tests/toy_tree.py) lives in its own tree as the five live in this
    one: its evaluate module and Space are found by name like theirs."""
    check(cases()[name], surface, tmp_path)


@pytest.mark.parametrize("surface", [s for s in SURFACES if s not in ("cli.shards+reduce", "evaluate.evaluator")])
def test_one_call_is_resolved_once_with_one_configuration(surface, tmp_path):
    """Per surface, one call: one resolve and one configuration build (a second call of the same
    options reuses the scorer: no build there either)."""
    from tests.surfaces.harness import counting

    case = cases()["sam"]
    SURFACES[surface](case, tmp_path)  # warm: the scorer exists
    with counting() as counts:
        SURFACES[surface](case, tmp_path)
    assert (counts.resolves, counts.configs) == (1, 1), surface


@pytest.mark.parametrize("surface", [s for s in SURFACES if not s.startswith(("trainer.", "space.http"))])
@pytest.mark.parametrize("name", list(MODEL_CASES))
def test_every_surface_agrees_for_the_model_metrics(name, surface, tmp_path, tiny_m2m100):
    case = MODEL_CASES[name]
    if name == "datscore":
        case = Case(case.metric, {**case.options, "model": tiny_m2m100}, case.predictions, case.references,
                    case.other, case.sources)
    check(case, surface, tmp_path, compare_warnings=name != "datscore")


def test_a_surface_that_drifts_fails_the_harness(tmp_path, monkeypatch):
    """A deliberate drift: the command line dropping the options given with -o (it scores with
    the defaults) is caught by the harness, which passes once the drift is gone."""
    from nlgmetrics.cli import options as cli_options

    case = cases()["sam"]
    check(case, "cli.score", tmp_path)
    monkeypatch.setattr(cli_options, "parse_key_values", lambda items, config_cls: {})
    with pytest.raises(AssertionError, match="cli.score: (per-segment scores|signature)"):
        check(case, "cli.score", tmp_path)
    monkeypatch.undo()
    drifted = dict(SURFACES)
    monkeypatch.setitem(SURFACES, "python.compare", lambda c, t: drifted["python.compare"](
        Case(c.metric, {**c.options, "eps_smoothing": True}, c.predictions, c.references, c.other), t))
    with pytest.raises(AssertionError, match="python.compare: (corpus score|signature)"):
        check(case, "python.compare", tmp_path)


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

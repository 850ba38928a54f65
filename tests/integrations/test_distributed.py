"""Sharding through the CLI and data-parallel scoring under torchrun reproduce the
single-process result exactly."""
import json
import math
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.integrations import distributed

HERE = Path(__file__).resolve().parents[1]  # tests/, where dist_worker.py is
TOY = ("toy_scorers", "ToyChrf")

HYPS = ["the cat sat on the mat", "a dog barked loudly", "it rains", "stock markets fell today",
        "hello world", "the weather is nice", "we went home early", ""]
REFS = ["a cat sat on the mat", "the dog barked", "it is raining", "markets dropped today",
        "hello there world", "nice weather today", "we left early", "nothing"]


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", TOY)
    monkeypatch.syspath_prepend(str(HERE))


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_cli_three_shards_reduce_to_the_single_run(toy_registered, tmp_path, capsys):
    hyp, ref = _write(tmp_path, "hyp.txt", HYPS), _write(tmp_path, "ref.txt", REFS)
    single = nlgmetrics.load("toy", scale=2.0).score(HYPS, REFS)
    parts = []
    for k in (1, 2, 3):
        out = str(tmp_path / f"part{k}.jsonl")
        assert cli.main(["score", "toy", "-p", hyp, "-r", ref, "-o", "scale=2.0", "--shard", f"{k}/3",
                         "--records", out]) == 0
        parts.append(out)
    first = Path(parts[0]).read_text()
    cli.main(["score", "toy", "-p", hyp, "-r", ref, "-o", "scale=2.0", "--shard", "1/3", "--records", parts[0]])
    assert Path(parts[0]).read_text() == first  # re-running a shard is idempotent
    capsys.readouterr()
    assert cli.main(["reduce", *parts, parts[0], "--json"]) == 0  # a shard given twice is fine
    merged = json.loads(capsys.readouterr().out)
    assert merged["scores"] == single.scores and merged["score"] == single.score
    assert merged["signature"] == single.signature and merged["corpus"] == single.corpus
    with pytest.raises(SystemExit, match="a shard is missing"):
        cli.main(["reduce", parts[0], parts[2]])


def test_cli_records_never_overwrite_an_input_file(toy_registered, tmp_path, capsys):
    hyp, ref = _write(tmp_path, "hyp.txt", HYPS), _write(tmp_path, "ref.txt", REFS)
    before = Path(hyp).read_bytes()
    link = tmp_path / "also_hyp.txt"
    link.symlink_to(hyp)
    for out in (hyp, ref, str(link), str(tmp_path / "." / "ref.txt")):
        with pytest.raises(SystemExit) as info:
            cli.main(["score", "toy", "-p", hyp, "-r", ref, "--shard", "1/1", "--records", out])
        assert info.value.code == 2
        assert "is the input file" in capsys.readouterr().err
    assert Path(hyp).read_bytes() == before and Path(ref).read_text().splitlines() == REFS


def _header(path):
    return json.loads(Path(path).read_text().splitlines()[0])


def test_cli_shards_of_different_inputs_are_refused(toy_registered, tmp_path, capsys):
    """Shard 1 scored from one hypothesis file and shard 2 from another (same references, same
    line count) merged into a corpus score of neither; now reduce names both files."""
    ref = _write(tmp_path, "ref.txt", REFS)
    hyp, other = _write(tmp_path, "hyp.txt", HYPS), _write(tmp_path, "other.txt", list(reversed(HYPS)))
    parts = [str(tmp_path / "part1.jsonl"), str(tmp_path / "part2.jsonl")]
    for k, (path, preds) in enumerate(zip(parts, (hyp, other)), start=1):
        assert cli.main(["score", "toy", "-p", preds, "-r", ref, "--shard", f"{k}/2", "--records", path]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        cli.main(["reduce", *parts])
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2 and err.count("\n") == 0
    assert f"{parts[1]}, line 1: was scored from other inputs than {parts[0]}" in err, err
    with pytest.raises(ValueError, match="other inputs"):
        distributed.read_records(parts)


def test_every_shard_and_chunking_carries_the_whole_corpus_fingerprint(toy_registered, tmp_path):
    hyp, ref = _write(tmp_path, "hyp.txt", HYPS), _write(tmp_path, "ref.txt", REFS)
    fingerprints = set()
    for k, chunk in ((1, "0"), (2, "1"), (3, "3")):
        out = str(tmp_path / f"part{k}.jsonl")
        assert cli.main(["score", "toy", "-q", "-p", hyp, "-r", ref, "--shard", f"{k}/3", "--records", out,
                         "--chunk-size", chunk]) == 0
        fingerprints.add(_header(out)["inputs"])
    api = distributed.corpus_fingerprint(nlgmetrics.load("toy"), HYPS, REFS)
    assert fingerprints == {api}
    # any change of a text, of the order, or a segment more changes it
    scorer = nlgmetrics.load("toy")
    for hyps, refs in ((HYPS[:-1] + ["x"], REFS), (HYPS, REFS[1:] + REFS[:1]), (HYPS + ["a"], REFS + ["b"])):
        assert distributed.corpus_fingerprint(scorer, hyps, refs) != api


@pytest.mark.parametrize("a, b", [
    ((["a b", ""], [["x"], ["y"]]), (["a", "b "], [["x"], ["y"]])),  # text boundaries
    ((["a"], [["x", "y"]]), (["a"], [["x y"]])),  # two references vs one
    ((["a"], [["x", "y"]]), (["a"], [["x\", \"y"]])),  # a reference that looks like the separator
    ((["a", "b"], [["x"], ["y"]]), (["a\nb"], [["x\ny"]])),  # a newline inside a text
])
def test_fingerprints_are_unambiguous(a, b):
    from nlgmetrics.core.inputs import validate_inputs

    def digest(inputs):
        return distributed.corpus_digest(validate_inputs(*inputs, multi_reference=True))
    assert digest(a) != digest(b)
    one = distributed.corpus_digest(validate_inputs(["a"], ["x"], multi_reference=True))
    assert one == distributed.corpus_digest(validate_inputs(["a"], [["x"]], multi_reference=True))  # same corpus
    with_source = distributed.corpus_digest(validate_inputs(["a"], ["x"], [""], sources_mode="optional"))
    assert with_source != one  # an empty source is not no source


def test_records_of_format_1_without_a_fingerprint_are_refused(toy_registered, tmp_path, capsys):
    """Older files cannot show which inputs they came from; accepting them (even when every
    file lacks the fingerprint) would merge shards of different inputs again."""
    hyp, ref = _write(tmp_path, "hyp.txt", HYPS), _write(tmp_path, "ref.txt", REFS)
    out = tmp_path / "old.jsonl"
    assert cli.main(["score", "toy", "-q", "-p", hyp, "-r", ref, "--shard", "1/1", "--records", str(out)]) == 0
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    header.pop("inputs")
    header["nlgmetrics_records"] = 1
    out.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match="records format 1, written by an older nlgmetrics, holds no fingerprint"
                                         ".*score the shards again"):
        distributed.read_records([str(out)])


def test_shards_are_round_robin_and_validated():
    assert distributed.shard_ids(7, 2, 3) == [1, 4]
    assert distributed.parse_shard("3/3") == (3, 3)
    for bad in ["0/3", "4/3", "x", "1/0"]:
        with pytest.raises(ValueError):
            distributed.parse_shard(bad)


def test_records_from_another_run_are_refused(toy_registered, tmp_path):
    scorer_a, scorer_b = nlgmetrics.load("toy", scale=1.0), nlgmetrics.load("toy", scale=3.0)
    part_a = distributed.score_shard(scorer_a, HYPS, REFS, shard=(1, 2))
    part_b = distributed.score_shard(scorer_b, HYPS, REFS, shard=(2, 2))
    fingerprint = distributed.corpus_fingerprint(scorer_a, HYPS, REFS)
    a = distributed.write_records(str(tmp_path / "a.jsonl"), "toy", {"scale": 1.0}, scorer_a, part_a,
                                  n_segments=8, shard=(1, 2), fingerprint=fingerprint)
    b = distributed.write_records(str(tmp_path / "b.jsonl.gz"), "toy", {"scale": 3.0}, scorer_b, part_b,
                                  n_segments=8, shard=(2, 2), fingerprint=fingerprint)
    with pytest.raises(ValueError, match="different run"):
        distributed.read_records([str(a), str(b)])


def test_without_process_group_it_is_plain_scoring(toy_registered):
    scorer = nlgmetrics.load("toy")
    assert distributed.score_distributed(scorer, HYPS, REFS).scores == scorer.score(HYPS, REFS).scores


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_torchrun(tmp_path, metric, options, predictions, references=None, sources=None, registry=None,
                 accelerate=False, extras=None, outputs=False, rank1_predictions=None, rank1_options=None):
    spec = {"metric": metric, "options": options, "predictions": predictions, "references": references,
            "sources": sources, "registry": registry or {}, "accelerate": accelerate, "extras": extras or {},
            "rank_predictions": {"1": rank1_predictions} if rank1_predictions else {},
            "rank_options": {"1": rank1_options} if rank1_options else {}}
    spec_path, out_path = tmp_path / "spec.json", tmp_path / "out.json"
    spec_path.write_text(json.dumps(spec))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1", GLOO_SOCKET_IFNAME="lo")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
           "--master_addr", "127.0.0.1", "--master_port", str(_free_port()),
           str(HERE / "dist_worker.py"), str(spec_path), str(out_path)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rank0 = json.loads(out_path.read_text())
    rank1 = json.loads(Path(str(out_path) + ".rank1").read_text())
    if outputs:
        return rank0, rank1
    assert rank0["world"] == 2 and rank1["result"] == rank0["result"]
    return rank0["result"]


@pytest.mark.parametrize("accelerate", [False, True])
def test_torchrun_two_processes_equal_single_process(toy_registered, tmp_path, accelerate):
    if accelerate:
        pytest.importorskip("accelerate")
    got = run_torchrun(tmp_path, "toy", {"scale": 2.0}, HYPS, REFS, registry={"toy": list(TOY)}, accelerate=accelerate)
    single = nlgmetrics.load("toy", scale=2.0).score(HYPS, REFS)
    assert got["scores"] == single.scores and got["score"] == single.score and got["corpus"] == single.corpus


def test_torchrun_ranks_with_different_inputs_or_options_are_refused(toy_registered, tmp_path):
    """Each rank scores only its shard of what it was given: ranks given different corpora (or
    differently configured scorers) would merge into a silently wrong result, so every rank
    refuses the run."""
    other = list(HYPS)
    other[-1] = other[-1] + " changed"
    rank0, rank1 = run_torchrun(tmp_path, "toy", {"scale": 2.0}, HYPS, REFS, registry={"toy": list(TOY)},
                                outputs=True, rank1_predictions=other)
    for out in (rank0, rank1):
        assert "result" not in out and "the inputs of rank(s) 1 differ from rank 0's" in out["error"]
    rank0, rank1 = run_torchrun(tmp_path, "toy", {"scale": 2.0}, HYPS, REFS, registry={"toy": list(TOY)},
                                outputs=True, rank1_options={"scale": 3.0})
    for out in (rank0, rank1):
        assert "result" not in out and "the scorer of rank(s) 1 signs differently" in out["error"]
        assert "inputs of rank" not in out["error"]
    # inputs that fail validation on one rank only: that rank raises its own error, and rank 0
    # names it instead of waiting in a collective (before: a gloo "connection reset" or a hang)
    rank0, rank1 = run_torchrun(tmp_path, "toy", {"scale": 2.0}, HYPS, REFS, registry={"toy": list(TOY)},
                                outputs=True, rank1_predictions=HYPS[:-1])
    assert "predictions has 7" in rank1["error"]
    assert rank0["error"].startswith("another rank of this distributed run could not read its inputs (rank 1: ")
    assert "predictions has 7" in rank0["error"]


@pytest.fixture(scope="module")
def tiny_m2m(tiny_m2m100):
    return tiny_m2m100


SRCS = ["le chat est assis", "un chien aboie fort", "il pleut", "les marchés ont chuté",
        "bonjour le monde", "il fait beau", "nous sommes rentrés tôt", "rien"]


def migrated(name):
    """Whether a metric is installed and on the configuration API (its module imports)."""
    if name not in nlgmetrics.list_metrics():
        return False
    try:
        nlgmetrics.scorer_class(name)
    except TypeError:  # a metric module not yet migrated: it overrides a template method
        return False
    return True


def offline_options(name):
    """The options with which a metric runs offline (None: it needs a hub model, is not
    installed or not yet on the configuration API)."""
    if not migrated(name):
        return None
    from nlgmetrics.registry import example

    options = example(name).options
    if options is None:
        return None
    return dict(options)


def real_metric_cases(tiny_m2m):
    """(metric, options, references, sources) for real metrics whose corpus step matters."""
    cases = []
    if migrated("datscore"):
        cases.append(("datscore", {"model": tiny_m2m, "source_lang": "fr", "max_new_tokens": 6}, REFS, SRCS))
    for name in (n for n in nlgmetrics.REGISTRY if n not in ("datscore", "sam")):  # SAM: test_sam_given
        options = offline_options(name)
        if options is not None:
            multi = nlgmetrics.scorer_class(name).multi_reference
            refs = [[r, h] for r, h in zip(REFS, reversed(HYPS))] if multi else REFS
            cases.append((name, options, refs, None))
    return cases


def test_real_metrics_three_shards_equal_single_run(tiny_m2m, tmp_path):
    cases = real_metric_cases(tiny_m2m)
    if not cases:
        pytest.skip("no real metric on the configuration API here")
    for metric, options, refs, srcs in cases:
        scorer = nlgmetrics.load(metric, quiet=True, **options)
        single = scorer.score(HYPS, refs, srcs)
        paths = []
        fingerprint = distributed.corpus_fingerprint(scorer, HYPS, refs, srcs)
        for k in (1, 2, 3):
            records = distributed.score_shard(scorer, HYPS, refs, srcs, shard=(k, 3))
            paths.append(str(distributed.write_records(str(tmp_path / f"{metric}{k}.jsonl"), metric, options,
                                                       scorer, records, n_segments=len(HYPS), shard=(k, 3),
                                                       fingerprint=fingerprint)))
        merged = distributed.reduce_files(paths, metric, options)
        assert merged.scores == single.scores, metric
        assert merged.score == single.score and merged.signature == single.signature, metric


def test_texteval_scaling_shards_with_nan_r2_equal_the_single_run(tmp_path, capsys):
    """One reference per row: every segment's r2 is nan (documented), which the records writer
    refused ("holds a non-finite number"); 7 lines in 9 shards, two of them empty."""
    options = offline_options("texteval")
    if options is None:
        pytest.skip("TextEval not available offline")
    argv = [f"{k}={v}" for k, v in dict(options, approach="scaling").items()]
    opts = [x for kv in argv for x in ("-o", kv)]
    hyp, ref = _write(tmp_path, "hyp.txt", HYPS[:7]), _write(tmp_path, "ref.txt", REFS[:7])
    parts = []
    for k in range(1, 10):
        parts.append(str(tmp_path / f"part{k}.jsonl"))
        assert cli.main(["score", "texteval", "-q", "-p", hyp, "-r", ref, *opts, "--shard", f"{k}/9",
                         "--records", parts[-1]]) == 0
    capsys.readouterr()
    assert cli.main(["score", "texteval", "-q", "-p", hyp, "-r", ref, *opts, "--json"]) == 0
    single = capsys.readouterr().out
    assert cli.main(["reduce", *parts, "--json"]) == 0
    assert capsys.readouterr().out == single
    merged = distributed.reduce_files(parts)
    assert all(math.isnan(d["r2"]) for d in merged.details) and math.isnan(merged.corpus["mean_r2"])


def test_torchrun_datscore_tiny_equals_single_process(tiny_m2m, tmp_path):
    if not migrated("datscore"):
        pytest.skip("DATScore not on the configuration API here")
    options = {"model": tiny_m2m, "source_lang": "fr", "max_new_tokens": 6, "quiet": True}
    got = run_torchrun(tmp_path, "datscore", options, HYPS, REFS, SRCS)
    single = nlgmetrics.load("datscore", **options).score(HYPS, REFS, SRCS)
    assert got["scores"] == pytest.approx(single.scores, abs=1e-6)
    got_w, want_w = got["corpus"]["direction_weights"], single.corpus["direction_weights"]
    assert list(got_w) == list(want_w) and list(got_w.values()) == pytest.approx(list(want_w.values()), abs=1e-6)


def test_torchrun_rome_lite_equals_single_process(tmp_path):
    options = offline_options("rome")
    if options is None:
        pytest.skip("RoMe-lite not available")
    options["quiet"] = True
    got = run_torchrun(tmp_path, "rome", options, HYPS, REFS)
    single = nlgmetrics.load("rome", **options).score(HYPS, REFS)
    assert got["scores"] == pytest.approx(single.scores, abs=1e-6)
    assert got["score"] == pytest.approx(single.score, abs=1e-6)


BASE = [0.9, 0.1, 0.5, 0.75, 0.3, 0.6, 0.2, 0.05]


def sam_given_options():
    """SAM adjusting caller-given base scores (``base="given"``), offline; skip without it."""
    options = offline_options("sam")
    if options is None or "base_scores" not in nlgmetrics.scorer_class("sam").extra_inputs:
        pytest.skip("SAM with per-segment base scores is not on the configuration API here")
    options["base"] = "given"
    options.pop("profile", None)  # the example's profile chooses the BERTScore encoder: nothing for base='given'
    return options


def _option_args(options):
    out = []
    for key, value in options.items():
        out += ["-o", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    return out


def test_sam_given_base_scores_shard_through_the_cli(tmp_path, capsys):
    options = sam_given_options()
    single = nlgmetrics.load("sam", quiet=True, **options).score(HYPS, REFS, base_scores=BASE)
    hyp, ref = _write(tmp_path, "hyp.txt", HYPS), _write(tmp_path, "ref.txt", REFS)
    base = _write(tmp_path, "base.txt", [repr(x) for x in BASE])
    common = ["score", "sam", "-p", hyp, "-r", ref, "--base-scores", base, "-q", *_option_args(options)]
    parts = []
    for k in (1, 2, 3):
        parts.append(str(tmp_path / f"sam{k}.jsonl"))
        assert cli.main([*common, "--shard", f"{k}/3", "--records", parts[-1], "--chunk-size", "2"]) == 0
    capsys.readouterr()
    assert cli.main(["reduce", *parts, "--metric", "sam", *_option_args(options), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["scores"] == single.scores and merged["signature"] == single.signature
    assert cli.main([*common, "--json"]) == 0  # the single CLI run, chunked
    assert json.loads(capsys.readouterr().out)["scores"] == single.scores


def test_sam_given_base_scores_under_torchrun_equal_single_run(tmp_path):
    options = sam_given_options()
    got = run_torchrun(tmp_path, "sam", dict(options, quiet=True), HYPS, REFS, extras={"base_scores": BASE})
    single = nlgmetrics.load("sam", quiet=True, **options).score(HYPS, REFS, base_scores=BASE)
    assert got["scores"] == pytest.approx(single.scores, abs=1e-9)
    assert got["score"] == pytest.approx(single.score, abs=1e-9)


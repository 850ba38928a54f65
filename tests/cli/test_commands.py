"""The command line, generically over a metric's configuration (tested with the toy scorer):
per-metric ``--help``, typed options checked before anything loads, one ``error:`` line with
exit code 2 for every usage or input error, strict JSON, per-segment inputs through shards and
torchrun, and chunked scoring equal to scoring all at once."""
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.cli.common import write_result
from nlgmetrics.core.result import MetricResult

HERE = Path(__file__).resolve().parents[1]  # tests/, where dist_worker.py is
TOY = ("toy_scorers", "ToyChrf")
HYPS = ["the cat sat on the mat", "a dog barked loudly", "it rains", "stock markets fell today",
        "hello world", "the weather is nice", "we went home early", "", "Upper Case Words", "tiny"]
REFS = ["a cat sat on the mat", "the dog barked", "it is raining", "markets dropped today",
        "hello there world", "nice weather today", "we left early", "nothing", "upper case words", "tin"]
OFFSETS = [0.5, -1.25, 3.0, 0.0, 2.5, -0.75, 1.0, 4.0, 0.25, -2.0]


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", TOY)
    monkeypatch.syspath_prepend(str(HERE))
    return nlgmetrics.scorer_class("toy")


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def corpus(tmp_path):
    return {"hyp": _write(tmp_path, "hyp.txt", HYPS), "ref": _write(tmp_path, "ref.txt", REFS),
            "off": _write(tmp_path, "off.txt", [str(x) for x in OFFSETS])}


def _json(capsys):
    out = capsys.readouterr().out
    return json.loads(out, parse_constant=lambda c: pytest.fail(f"bare {c} in JSON output"))


def _error(capsys, argv, code=2, match=None):
    """Run argv, expect a CLI error: one line on stderr starting 'error:', the exit code."""
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == code
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    if match:
        assert match in lines[0], lines[0]
    return lines[0]


def test_help_lists_every_option_with_type_default_and_choices(toy, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["score", "toy", "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for spec in toy.Config.specs():
        flag = f"--{spec.name.replace('_', '-')}"
        assert flag in text, flag
        assert f"{spec.doc} [{spec.type_name()}; default" in " ".join(text.split()), spec.name
    assert "one of max, none" in text and "one of fp32, bf16, fp16" in text and ">= 1" in text
    assert "--offsets" in text  # the metric's per-segment input gets a file flag


def _default_shown(value):
    """How --help writes a default: strings quoted, None/bools/containers as JSON."""
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (dict, list, bool)) or value is None:
        return json.dumps(value)
    return str(value)


@pytest.mark.parametrize("name", nlgmetrics.list_metrics())
def test_help_of_every_metric_comes_from_its_configuration(name, capsys, monkeypatch):
    try:
        cls = nlgmetrics.scorer_class(name)
    except TypeError as err:  # a metric not yet migrated to the configuration API
        pytest.skip(f"{name}: {err}")
    monkeypatch.setenv("COLUMNS", "100000")  # argparse then writes one line per option
    with pytest.raises(SystemExit):
        cli.main(["score", name, "--help"])
    lines = []  # one entry per option (argparse puts a long option's help on the next line)
    for raw in capsys.readouterr().out.splitlines():
        if raw.startswith("   ") and lines and lines[-1].startswith("-"):
            lines[-1] += " " + " ".join(raw.split())
        else:
            lines.append(" ".join(raw.split()))
    specs = cls.Config.specs()
    assert specs
    header = lines.index("metric options (from the configuration):")
    epilog = lines.index("input files:")  # the rules printed after the options (cli/help.py)
    command_lines, metric_lines = lines[:header], lines[header + 1:epilog]
    # every option, flag or not, is named in the -o help, in the configuration's order
    assert any(line.startswith("-o KEY=VALUE, --option KEY=VALUE a metric option")
               and line.endswith(f"(options: {', '.join(s.name for s in specs)})") for line in command_lines)
    flagged = 0
    for spec in specs:
        flag = f"--{spec.name.replace('_', '-')}"
        extra = spec.describe_range()
        entry = re.compile(re.escape(f"{flag} ") + r"[A-Z]+ " + re.escape(
            f"{' '.join(spec.doc.split())} [{spec.type_name()}; default {_default_shown(spec.default)}"
            + (f"; {extra}]" if extra else "]")))
        documented = [line for line in metric_lines if entry.fullmatch(line)]
        own_flag = any(re.match(r"(-\w [^ ]+, )?" + re.escape(flag) + r"( |,|$)", line) for line in command_lines)
        if spec.cli and not own_flag:
            assert len(documented) == 1, f"{name}: {spec.name}: no '{flag} ... {spec.doc} [...]' line in --help"
            flagged += 1
        else:  # not a flag (or the command's own flag of that name): reachable through -o only
            assert not documented, spec.name
    assert len([line for line in metric_lines if line]) == flagged  # nothing else in that group


def test_options_are_typed_and_equal_to_the_core(toy, corpus, capsys):
    argv = ["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"], "--json", "-q"]
    assert cli.main(argv + ["--scale", "2.5", "-o", "lowercase=yes", "-o", "mode=none"]) == 0
    got = _json(capsys)
    core = nlgmetrics.load("toy", scale=2.5, lowercase=True, mode="none").score(HYPS, REFS)
    assert got["scores"] == core.scores and got["score"] == core.score and got["signature"] == core.signature
    assert "s:2.5" in got["signature"] and "lc:yes" in got["signature"] and "m:none" in got["signature"]
    assert got["details"] == core.details and got["corpus"] == core.corpus


@pytest.mark.parametrize("extra, match", [
    (["-o", "lowercase=maybe"], "lowercase must be true or false, got 'maybe'"),
    (["-o", "batch_size=abc"], "batch_size must be an integer, got 'abc'"),
    (["--batch-size", "0"], "batch_size must be >= 1"),
    (["--scale", "nan"], "scale must be a finite number"),
    (["-o", "scale=-1"], "scale must be >= 0"),
    (["-o", "mode=median"], "unknown mode 'median'; choose one of max, none"),
    (["--device", "tpu"], "unknown device 'tpu'"),
    (["-o", "device=cuda:x"], "unknown device 'cuda:x'"),
    (["-o", "nope=1"], "toy does not take option 'nope'; it takes: scale, lowercase"),
    (["-o", "scale"], "-o expects KEY=VALUE"),
    (["--scale", "2", "-o", "scale=3"], "option scale given twice"),
    (["-o", "scale=2", "-o", "scale=3"], "option scale given twice (-o scale=2 and -o scale=3); give it once"),
    (["-o", "batch-size=2", "-o", "batch_size=2"], "option batch_size given twice"),
    (["--shard", "1/3"], "--shard and --records go together"),
    (["--shard", "4/3", "--records", "x.jsonl"], "--shard: shard '4/3'"),
    (["--chunk-size", "-1"], "--chunk-size must be"),
    (["--base-scores", "BASE"], "unrecognized arguments: --base-scores"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate"),
])
def test_option_errors_come_before_any_model_loads(toy, corpus, capsys, extra, match):
    extra = [corpus["off"] if x == "BASE" else x for x in extra]
    before = toy.setups
    _error(capsys, ["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"], *extra], match=match)
    assert toy.setups == before  # nothing was built


def test_the_resolver_checks_options_and_devices_in_each_surfaces_words(toy, corpus, capsys):
    """Unknown options, device and dtype are checked by the resolver alone (the CLI no longer
    checks them itself), worded as each surface writes them; a per-segment input given as an
    option on the command line (where it comes as a file) is an unknown option there."""
    with pytest.raises(ValueError, match=r"unknown device 'tpu' \(device=\); use auto"):
        nlgmetrics.score("toy", HYPS, REFS, device="tpu")
    with pytest.raises(ValueError, match=r"unknown option 'nope'; the options are: scale, lowercase"):
        nlgmetrics.score("toy", HYPS, REFS, nope=1)
    base = ["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"]]
    _error(capsys, base + ["-o", "device=tpu"], match=r"unknown device 'tpu' (--device); use auto")
    _error(capsys, base + ["-o", "offsets=[1,2,3]"], match="toy does not take option 'offsets'; it takes: scale")
    assert cli.main(base + ["--offsets", corpus["off"], "-q"]) == 0  # as a file, it is the per-segment input


def test_cuda_and_fp16_are_checked_up_front(toy, corpus, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    base = ["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"]]
    _error(capsys, base + ["--device", "cuda"], match="CUDA is not available")
    _error(capsys, base + ["--device", "cpu", "--dtype", "fp16"], match="fp16 is not supported on CPU")
    assert cli.main(base + ["--device", "cpu", "--dtype", "bf16", "-q"]) == 0


def test_input_file_errors_name_the_file(toy, corpus, tmp_path, capsys):
    ref = ["-r", corpus["ref"]]
    _error(capsys, ["score", "toy", "-p", str(tmp_path / "missing.txt"), *ref], match="missing.txt: no such file")
    _error(capsys, ["score", "toy", "-p", str(tmp_path), *ref], match="is a directory")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("ok\n".encode() * 9 + "caf\u00e9\n".encode("latin-1"))
    _error(capsys, ["score", "toy", "-p", corpus["hyp"], "-r", str(latin)], match="latin.txt, line 10: not valid UTF-8")
    bad_gz = tmp_path / "hyp.txt.gz"
    bad_gz.write_bytes(gzip.compress("\n".join(HYPS).encode())[:30])
    _error(capsys, ["score", "toy", "-p", str(bad_gz), *ref], match="hyp.txt.gz: not a valid gzip file")
    short = _write(tmp_path, "short.txt", REFS[:3])
    _error(capsys, ["score", "toy", "-p", corpus["hyp"], "-r", short],
           match="short.txt has 3 lines but the hypothesis file has 10")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    _error(capsys, ["score", "toy", "-p", str(empty), *ref], match="holds no lines")
    _error(capsys, ["score", "toy", "-p", corpus["hyp"]], match="toy needs references")
    _error(capsys, ["score", "toy", "-p", corpus["hyp"], *ref, "-r", corpus["ref"]], match="one reference per segment")
    bad_off = _write(tmp_path, "off.txt", ["1"] * 4 + ["x"] + ["1"] * 5)
    _error(capsys, ["score", "toy", "-p", corpus["hyp"], *ref, "--offsets", bad_off],
           match="off.txt, line 5: not a number")
    nan_off = _write(tmp_path, "nan.txt", ["1"] * 9 + ["nan"])
    _error(capsys, ["score", "toy", "-p", corpus["hyp"], *ref, "--offsets", nan_off],
           match="line 10: not a finite number")
    few_off = _write(tmp_path, "few.txt", ["1"] * 9)
    _error(capsys, ["score", "toy", "-p", corpus["hyp"], *ref, "--offsets", few_off], match="few.txt has 9 lines")


def test_bom_gzip_and_a_single_empty_line(toy, tmp_path, capsys):
    plain = tmp_path / "h.txt"
    plain.write_bytes(b"\xef\xbb\xbfthe cat sat\nhello\n")
    gz = tmp_path / "r.txt.gz"
    gz.write_bytes(gzip.compress(b"the cat sat\nhello world\n"))
    assert cli.main(["score", "toy", "-p", str(plain), "-r", str(gz), "--json", "-q", "-o", "mode=none"]) == 0
    got = _json(capsys)
    want = nlgmetrics.load("toy", mode="none").score(["the cat sat", "hello"], ["the cat sat", "hello world"])
    assert got["scores"] == want.scores
    assert got["scores"][0] == 100.0  # the BOM did not stay in line 1
    one = tmp_path / "one.txt"
    one.write_bytes(b"\n")
    assert cli.main(["score", "toy", "-p", str(one), "-r", str(one), "--json", "-q"]) == 0
    assert len(_json(capsys)["scores"]) == 1


def test_json_output_never_has_bare_nan(capsys):
    nan, inf = float("nan"), float("inf")
    result = MetricResult("x", [0.5, nan], nan, "x|v:1", [{"a": inf, "b": [1.0, nan]}, {}], {"r2": nan, "ok": 1.0})
    write_result(result, as_json=True)
    got = _json(capsys)
    assert got == {"metric": "x", "scores": [0.5, None], "score": None, "signature": "x|v:1",
                   "details": [{"a": None, "b": [1.0, None]}, {}], "corpus": {"r2": None, "ok": 1.0}}
    write_result(result, as_json=False)
    assert capsys.readouterr().out == "nan\tx|v:1\n"


@pytest.mark.parametrize("chunk", ["1", "3", "7", "0"])
def test_chunked_scoring_equals_the_whole_corpus(toy, corpus, capsys, chunk):
    argv = ["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"], "--offsets", corpus["off"], "--json", "-q"]
    assert cli.main(argv + ["--chunk-size", chunk]) == 0
    got = _json(capsys)
    core = nlgmetrics.load("toy").score(HYPS, REFS, offsets=OFFSETS)
    assert got["scores"] == core.scores and got["details"] == core.details and got["corpus"] == core.corpus
    assert got["score"] == core.score


def test_per_segment_inputs_shard_through_the_cli(toy, corpus, tmp_path, capsys):
    single = nlgmetrics.load("toy", scale=2.0).score(HYPS, REFS, offsets=OFFSETS)
    parts = []
    for k in (1, 2, 3):
        out = str(tmp_path / f"part{k}.jsonl.gz")
        assert cli.main(["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"], "--offsets", corpus["off"],
                         "--scale", "2", "--shard", f"{k}/3", "--records", out, "--chunk-size", "2", "-q"]) == 0
        parts.append(out)
    capsys.readouterr()
    assert cli.main(["reduce", *reversed(parts), "--json"]) == 0
    got = _json(capsys)
    assert got["scores"] == single.scores and got["score"] == single.score and got["corpus"] == single.corpus
    assert cli.main(["reduce", *parts, "--metric", "toy", "-o", "scale=2", "--json"]) == 0
    assert _json(capsys)["scores"] == single.scores


def _torchrun(tmp_path, argv):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1", GLOO_SOCKET_IFNAME="lo")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_addr", "127.0.0.1",
           "--master_port", str(_free_port()), str(HERE / "dist_worker.py"), "--cli", *argv]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)


def _free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_cli_distributed_with_per_segment_inputs_equals_single_run(toy, corpus, tmp_path):
    proc = _torchrun(tmp_path, ["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"], "--offsets", corpus["off"],
                                "--distributed", "--json", "-q", "--chunk-size", "3"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)  # rank 0 prints, rank 1 stays silent
    single = nlgmetrics.load("toy").score(HYPS, REFS, offsets=OFFSETS)
    assert got["scores"] == single.scores and got["corpus"] == single.corpus


def test_cli_distributed_ranks_reading_different_files_are_refused(toy, corpus, tmp_path):
    other = tmp_path / "hyp1.txt"
    lines = Path(corpus["hyp"]).read_text(encoding="utf-8").splitlines()
    other.write_text("\n".join(lines[:-1] + [lines[-1] + " changed"]) + "\n", encoding="utf-8")
    Path(tmp_path / "hyp0.txt").write_text(Path(corpus["hyp"]).read_text(encoding="utf-8"), encoding="utf-8")
    proc = _torchrun(tmp_path, ["score", "toy", "-p", str(tmp_path / "hyp{rank}.txt"), "-r", corpus["ref"],
                                "--offsets", corpus["off"], "--distributed", "--json", "-q"])
    assert proc.returncode != 0 and proc.stdout == ""
    assert proc.stderr.count("the inputs of rank(s) 1 differ from rank 0's") == 2  # both ranks refuse


def test_a_real_process_exits_2_with_one_line(toy, corpus, tmp_path):
    code = ("import sys, nlgmetrics; nlgmetrics.REGISTRY['toy'] = ('toy_scorers', 'ToyChrf');"
            "from nlgmetrics.cli import main; sys.exit(main())")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code, "score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"],
                           "-o", "batch_size=abc"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == ["error: batch_size must be an integer, got 'abc'"]


def _meta_rows(tmp_path, systems):
    rows = [{"hyp": h, "ref": r, "human": float(i % 4), **({} if s is ... else {"system": s})}
            for i, (h, r, s) in enumerate(zip(HYPS, REFS, systems))]
    return _write(tmp_path, "meta.jsonl", [json.dumps(row) for row in rows])


def test_meta_eval_system_field_is_a_name_and_rows_without_one_are_counted(toy, tmp_path, capsys):
    """A list-valued system was a TypeError (exit 1) and a null one on some rows printed 'rows
    have no system field': now a system must be a string or an integer (the line is named,
    exit 2), and rows without one (missing or null) are left out of the system level only,
    with their number said."""
    names = ["a", "b", "c", "a", "b", "c", "a", "b", "c", "a"]
    for bad, shown in ((["x"], "['x']"), ({"n": 1}, "{'n': 1}"), (1.5, "1.5"), (True, "True")):
        data = _meta_rows(tmp_path, names[:3] + [bad] + names[4:])
        _error(capsys, ["meta-eval", "toy", data, "--human", "human", "-q"],
               match=f"meta.jsonl, line 4: system {shown} in 'system' is not a string or an integer")
    data = _meta_rows(tmp_path, [None, ...] + names[2:])
    assert cli.main(["meta-eval", "toy", data, "--human", "human", "--bootstrap", "20", "-q"]) == 0
    out = capsys.readouterr().out
    assert "rows have no system field" not in out
    assert "(system level over 8 of 10 rows: 2 have no system in 'system' or null)" in out
    assert "system level over 3 systems (8 rows)" in out  # how many systems the system level rests on
    assert cli.main(["meta-eval", "toy", data, "--human", "human", "--bootstrap", "20", "--json", "-q"]) == 0
    payload = _json(capsys)
    assert payload["n"] == 10 and payload["n_system_rows"] == 8 and payload["n_systems"] == 3
    full = _meta_rows(tmp_path, [1, 2] + names[2:])  # integers are names too
    assert cli.main(["meta-eval", "toy", full, "--human", "human", "--bootstrap", "20", "--json", "-q"]) == 0
    assert _json(capsys)["n_system_rows"] == 10
    # pandas writes an integer column with gaps as floats: 1.0 is the system 1
    ints = _meta_rows(tmp_path, [1, 2, 3] * 3 + [1])
    assert cli.main(["meta-eval", "toy", ints, "--human", "human", "--bootstrap", "20", "--json", "-q"]) == 0
    by_int = _json(capsys)
    floats = _meta_rows(tmp_path, [1.0, 2.0, 3.0] * 3 + [1])
    assert cli.main(["meta-eval", "toy", floats, "--human", "human", "--bootstrap", "20", "--json", "-q"]) == 0
    assert _json(capsys) == by_int and by_int["n_systems"] == 3
    data = _meta_rows(tmp_path, [None] * 10)
    assert cli.main(["meta-eval", "toy", data, "--human", "human", "--bootstrap", "20", "-q"]) == 0
    assert "(no system-level correlation: no row has a system in 'system')" in capsys.readouterr().out


def test_reduce_refuses_a_repeated_option_key(toy, tmp_path, capsys):
    """-o base=chrf -o base=bleu silently used the last (while --base chrf -o base=bleu was an error)."""
    _error(capsys, ["reduce", "--metric", "toy", "-o", "mode=max", "-o", "mode=none", str(tmp_path / "x.jsonl")],
           match="option mode given twice (-o mode=max and -o mode=none)")


def test_warnings_print_as_one_line_while_the_cli_runs(toy, corpus, tmp_path):
    """Warnings printed in Python's two-line form with the source path and code line; on the
    command line they are one 'warning: <message>' line (here: a carriage return inside a line,
    warned once although the command reads the file twice), and a caller recording warnings
    still records them (replacing showwarning had bypassed catch_warnings(record=True))."""
    import warnings

    mac = tmp_path / "mac.txt"
    mac.write_bytes(b"the cat\rsat\n" + "".join(f"{h}\n" for h in HYPS[1:]).encode())
    code = ("import sys, nlgmetrics; nlgmetrics.REGISTRY['toy'] = ('toy_scorers', 'ToyChrf');"
            "from nlgmetrics.cli import main; sys.exit(main())")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code, "score", "toy", "-p", str(mac), "-r", corpus["ref"], "-q"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [f"warning: {mac}, line 1: a carriage return (\\r) inside the line; only "
                                        "\\n ends a line, so a file with old Mac line ends (\\r alone) reads as "
                                        "one line"], proc.stderr
    before = warnings.formatwarning
    other = tmp_path / "mac2.txt"
    other.write_bytes(mac.read_bytes())
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert cli.main(["score", "toy", "-p", str(other), "-r", corpus["ref"], "-q"]) == 0
    assert [str(w.message) for w in seen if "carriage return" in str(w.message)] == [
        f"{other}, line 1: a carriage return (\\r) inside the line; only \\n ends a line, so a file with old "
        "Mac line ends (\\r alone) reads as one line"]
    assert warnings.formatwarning is before


def test_a_closed_stdout_ends_quietly_with_141(tmp_path):
    """`nlgmetrics list | head -1` ended with 'error: BrokenPipeError', exit 1; now no message
    and exit 141 (128 + SIGPIPE), as git does."""
    code = "import sys; from nlgmetrics.cli import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", code, "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before anything is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert err == "", err


def test_meta_eval_bootstrap_zero_means_no_intervals_and_negative_is_refused(toy, tmp_path, capsys):
    """--bootstrap 0 and -5 were taken and printed '95% CI [+nan, +nan]': 0 now gives no
    intervals (null in --json), a negative number is a usage error before anything is scored."""
    data = _meta_rows(tmp_path, ["a", "b", "c", "a", "b", "c", "a", "b", "c", "a"])
    before = toy.setups
    _error(capsys, ["meta-eval", "toy", data, "--human", "human", "--bootstrap", "-5"],
           match="--bootstrap must be a number of resamples, or 0 for no confidence intervals; got -5")
    assert toy.setups == before
    assert cli.main(["meta-eval", "toy", data, "--human", "human", "--bootstrap", "0", "-q"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out and "CI" not in out and out.count("pearson") == 2, out
    assert cli.main(["meta-eval", "toy", data, "--human", "human", "--bootstrap", "0", "--json", "-q"]) == 0
    payload = _json(capsys)
    assert all(v["ci95"] is None for level in ("segment", "system") for v in payload[level].values())
    assert cli.main(["meta-eval", "toy", data, "--human", "human", "--bootstrap", "30", "--json", "-q"]) == 0
    lo, hi = _json(capsys)["segment"]["pearson"]["ci95"]
    assert lo <= hi


def test_meta_eval_empty_ref_field_is_a_usage_error(toy, tmp_path, capsys):
    """--ref-field "" failed while running ('references are required by this metric', exit 1)."""
    data = _meta_rows(tmp_path, ["a"] * 10)
    before = toy.setups
    _error(capsys, ["meta-eval", "toy", data, "--human", "human", "--ref-field", ""],
           match="--ref-field is empty, but toy needs references: name the field that holds them")
    assert toy.setups == before


@pytest.mark.parametrize("bad, message", [("1_0", "not a number ('1_0'"), ("\uff11", "not a number"),
                                          ("0x1", "not a number"), ("Infinity", "not a finite number"),
                                          ("1e999", "not a finite number")])
def test_number_files_take_plain_decimals_only(toy, corpus, tmp_path, capsys, bad, message):
    """float() read '1_0' as 10.0 and a full-width '1' as 1.0: a per-segment number is now a
    plain decimal or scientific number (the line is named); nan/inf stay refused as not finite."""
    offsets = _write(tmp_path, "off.txt", ["0.5", " .25 ", bad] + ["1E-3"] * 7)
    _error(capsys, ["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"], "--offsets", offsets],
           match=f"off.txt, line 3: {message}")
    good = _write(tmp_path, "good.txt", ["0.5", " .25 ", "-3", "+2", "5.", "1E-3", "1e+2", "0", "-0.0", "7"])
    assert cli.main(["score", "toy", "-p", corpus["hyp"], "-r", corpus["ref"], "--offsets", good, "-q"]) == 0
    capsys.readouterr()


def test_meta_eval_takes_the_per_segment_flags_of_score(tmp_path, capsys):
    """``meta-eval`` has score's generated per-segment flags: SAM's ``--base-scores FILE``, one
    number per row of the JSON-lines file, scores as ``nlgmetrics.meta_eval`` with the same
    list; a file of another length, or one with an EvalSet, is a one-line error."""
    rows = [{"hyp": h, "ref": r, "human": float(k)} for k, (h, r) in enumerate(zip(HYPS, REFS))]
    data = _write(tmp_path, "rows.jsonl", [json.dumps(r) for r in rows])
    base = [0.9, 0.2, 0.5][:len(rows)] + [0.5] * max(0, len(rows) - 3)
    scores = _write(tmp_path, "base.txt", [str(b) for b in base])
    argv = ["meta-eval", "sam", data, "--human", "human", "--system-field", "", "--bootstrap", "0", "--json", "-q"]
    assert cli.main(argv + ["--base-scores", scores]) == 0
    got = _json(capsys)
    want = nlgmetrics.meta_eval("sam", HYPS, REFS, human=[r["human"] for r in rows], base_scores=base, bootstrap=0,
                                quiet=True)
    assert got["signature"] == want["signature"] and "given" in got["signature"]
    assert got["segment"]["pearson"]["value"] == pytest.approx(want["segment"]["pearson"]["value"], abs=1e-12)
    short = _write(tmp_path, "short.txt", [str(b) for b in base[:-1]])
    _error(capsys, argv + ["--base-scores", short], match=f"short.txt has {len(base) - 1} lines but {data} has")
    _error(capsys, ["meta-eval", "sam", "--mtme", str(tmp_path), "--lp", "de-en", "--base-scores", scores],
           match="--base-scores gives one number per row of a JSON-lines file; an EvalSet (--mtme) has none")

"""``score --mtme-out``: every name that becomes part of a path (--lp, --system, --metric-name,
--ref-name) passes the writer's one rule before anything loads, so no name writes outside the
folder given, makes folders inside it or puts a newline into a file name (texteval, offline)."""
from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.meta import mtme
from tests.cli.test_records import HERE
from tests.core.test_writer import HOSTILE_NAMES as NAMES
from tests.core.test_writer import changed, snapshot

HYPS = "the cat sat on the mat\na dog ran in the park\n"
REFS = "the cat sat on a mat\nthe dog ran through the park\n"
#: texteval on word features: offline, no tagger to load
FAST = ["-o", "features=words"]


def _inputs(folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hyp.txt").write_text(HYPS)
    (folder / "ref.txt").write_text(REFS)
    return str(folder / "hyp.txt"), str(folder / "ref.txt")


def _argv(hyp, ref, out, lp="de-en", system="sysA", ref_name="refA", metric_name=None, metric="texteval"):
    argv = ["score", metric, "-p", hyp, "-r", ref, *(FAST if metric == "texteval" else []), "-q", "--json", "--mtme-out", str(out), f"--lp={lp}",
            f"--system={system}", f"--ref-name={ref_name}"]  # =: a name may start with '-'
    return argv + ([f"--metric-name={metric_name}"] if metric_name is not None else [])


def _refused(capsys, argv, message):
    with pytest.raises(SystemExit) as err:
        cli.main(argv)
    assert err.value.code == 2
    text = capsys.readouterr().err
    assert message in text, text


def test_ref_name_cannot_lead_out_of_the_folder(tmp_path, capsys):
    # main wrote /tmp/x.seg.score and /tmp/x.sys.score for --ref-name ../../../../tmp/x, exit 0
    hyp, ref = _inputs(tmp_path / "in")
    out = tmp_path / "OUT"
    before = snapshot(tmp_path)
    for name in ("../../../../x", "../../../../../../../../../tmp/x", str(tmp_path / "x")):
        _refused(capsys, _argv(hyp, ref, out, ref_name=name), f"error: --ref-name {name!r}: holds '/' or '\\'")
    assert snapshot(tmp_path) == before  # not even OUT was made: the names are checked before scoring
    assert not os.path.exists("/tmp/x.seg.score") or os.path.getmtime("/tmp/x.seg.score") < os.path.getmtime(hyp)


def test_names_with_a_slash_make_no_folders_inside_the_output(tmp_path, capsys):
    hyp, ref = _inputs(tmp_path / "in")
    out = tmp_path / "OUT"
    out.mkdir()
    for flag, name in (("ref_name", "a/b"), ("ref_name", "/tmp/x"), ("ref_name", "a\\b"), ("metric_name", "a/b"),
                       ("system", "x/y"), ("lp", "de/en")):
        option = "--" + flag.replace("_", "-")
        _refused(capsys, _argv(hyp, ref, out, **{flag: name}), f"error: {option} {name!r}: holds '/' or '\\'")
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("flag", ["ref_name", "lp", "metric_name", "system"])
@pytest.mark.parametrize("char", ["\n", "\r", "\x00", "\x7f"])
def test_a_control_character_never_reaches_a_file_name(tmp_path, capsys, flag, char):
    hyp, ref = _inputs(tmp_path / "in")
    out = tmp_path / "OUT"
    good = {"ref_name": "refA", "lp": "de-en", "metric_name": "texteval", "system": "sysA"}[flag]
    name = good[:2] + char + good[2:]
    option = "--" + flag.replace("_", "-")
    _refused(capsys, _argv(hyp, ref, out, **{flag: name}), f"error: {option} {name!r}: holds the control character "
             f"U+{ord(char):04X}")
    assert not out.exists()


def test_dot_names_and_overlong_names_are_refused(tmp_path, capsys):
    hyp, ref = _inputs(tmp_path / "in")
    out = tmp_path / "OUT"
    _refused(capsys, _argv(hyp, ref, out, ref_name=".."), "error: --ref-name '..': is not a name")
    _refused(capsys, _argv(hyp, ref, out, ref_name="r" * 256), "256 bytes, over the 255 bytes of one file name")
    # each name fits, the file name they make does not
    _refused(capsys, _argv(hyp, ref, out, metric_name="m" * 200, ref_name="r" * 60),
             "error: --metric-name with --ref-name")
    assert not out.exists()


def test_the_python_api_names_its_keywords(tmp_path):
    for kwargs, message in (({"ref": "a/b"}, "ref= 'a/b': holds '/'"), ({"lp": "de\nen"}, "lp= 'de\\nen': holds the"),
                            ({"metric": ".."}, "metric= '..': is not a name"), ({"lp": "deen"}, "lp= must be a language")):
        args = {"root": str(tmp_path), "lp": "de-en", "metric": "M", "ref": "refA", **kwargs}
        with pytest.raises(ValueError, match="^" + re.escape(message)):
            mtme.write_metric_scores(seg={"s": [1.0]}, sys={"s": 1.0}, **args)
    with pytest.raises(ValueError, match=r"^system= 'a b' holds a blank"):
        mtme.write_metric_scores(str(tmp_path), "de-en", "M", "refA", {"a b": [1.0]}, {"a b": 1.0})
    assert list(tmp_path.iterdir()) == []


def test_a_good_run_writes_both_files_inside_the_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))  # no model: fast
    monkeypatch.syspath_prepend(str(HERE))
    hyp, ref = _inputs(tmp_path / "in")
    out = tmp_path / "OUT"
    assert cli.main(_argv(hyp, ref, out, ref_name="Müller", system="sys.B", metric="toy")) == 0
    result = json.loads(capsys.readouterr().out)
    folder = out / "metric-scores" / "de-en"
    assert mtme.read_score_file(str(folder / "toy-Müller.seg.score"), human=False) == {"sys.B": result["scores"]}
    assert mtme.read_score_file(str(folder / "toy-Müller.sys.score"), "sys", human=False) == {"sys.B": [result["score"]]}
    assert sorted(p.name for p in folder.iterdir()) == [".toy-Müller.score.lock", "toy-Müller.seg.score",
                                                        "toy-Müller.sys.score"]


def test_no_name_on_the_command_line_writes_outside_the_output_folder(capsys):
    """In SLOW (a CLI run is 50-100 ms); the same property on the Python writer runs in the
    loop (tests/meta/test_mtme_writer.py)."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp, "a", "b", "c", "d", "e", "f")  # deep enough that '../' * 8 stays in tmp
        hyp, ref = _inputs(base / "in")
        out = base / "OUT"
        out.mkdir()  # made here: the folder above it changes only when OUT is made

        @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
        @given(lp=st.one_of(st.just("de-en"), NAMES), system=st.one_of(st.just("sysA"), NAMES),
               ref_name=st.one_of(st.just("refA"), NAMES, st.just(os.path.join(tmp, "victim"))),
               metric_name=st.one_of(st.none(), NAMES))
        def run(lp, system, ref_name, metric_name):
            before = snapshot(tmp)
            try:
                code = cli.main(_argv(hyp, ref, out, lp, system, ref_name, metric_name))
            except SystemExit as err:
                code = err.code
            err_text = capsys.readouterr().err
            assert code in (0, 2), err_text  # a clear usage error or a run
            if code == 2:
                assert "error: --" in err_text and "Traceback" not in err_text
            paths = changed(before, snapshot(tmp))
            assert all(Path(p).is_relative_to(out) for p in paths), sorted(paths)
            if code == 0:  # the two files, inside OUT/metric-scores/LP
                name = f"{metric_name or 'texteval'}-{ref_name}"
                for level in ("seg", "sys"):
                    assert (out / "metric-scores" / lp / f"{name}.{level}.score").is_file()

        run()


def test_a_link_inside_the_output_folder_is_one_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(nlgmetrics.REGISTRY, "toy", ("toy_scorers", "ToyChrf"))
    monkeypatch.syspath_prepend(str(HERE))
    hyp, ref = _inputs(tmp_path / "in")
    out, outside = tmp_path / "OUT", tmp_path / "outside"
    (out / "metric-scores").mkdir(parents=True)
    outside.mkdir()
    (out / "metric-scores" / "de-en").symlink_to(outside)
    with pytest.raises(SystemExit) as err:
        cli.main(_argv(hyp, ref, out, metric="toy"))
    assert err.value.code == 1
    text = capsys.readouterr().err
    assert text.startswith(f"error: --mtme-out: {out}/metric-scores/de-en is a symbolic link; nlgmetrics writes "
                           f"inside --mtme-out '{out}' and follows no link there"), text
    assert list(outside.iterdir()) == []

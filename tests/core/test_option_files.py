"""Files that options name are read like --records is written (core/option_files.py): a FIFO,
device or directory refused at once naming the option, a size cap, finite numbers, bounded
JSON nesting, caches keyed by content; errors quote at most a short excerpt; an input file
that changes while read is an error; the records writer's temporary name fits wherever the
target's does. Each test reproduces a finding of issue 37 (it failed on main, 3ce9d44)."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import stat

import numpy as np
import pytest
import sacrebleu

import nlgmetrics
from nlgmetrics.core import files
from nlgmetrics.core.option_files import (
    MAX_JSON_DEPTH,
    OptionFileError,
    content_key,
    option_files_key,
    parse_json,
    read_option_file,
    read_option_json,
)
from nlgmetrics.core.resources import data_path

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


@contextlib.contextmanager
def _never_block(seconds: int = 60):
    """A read that waits on a FIFO fails the test instead of hanging the suite."""
    def stop(*_):
        raise TimeoutError("blocked on a file")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _network(tmp_path, name="net.json", edit=None):
    payload = json.loads(data_path("rome_scorer_lite.json").read_text())
    text = json.dumps(payload)
    if edit is not None:
        payload["layers"][0]["bias"][0] = 12345.5
        text = json.dumps(payload).replace("12345.5", edit)
    path = tmp_path / name
    path.write_text(text)
    return path


# -- 1. a regular file within a size cap, anything else refused at once --------------------------
def test_the_core_reader_refuses_a_fifo_a_device_a_directory_and_a_large_file(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b"0," * 100 + b"0]")
    cases = [(fifo, "not a regular file but a FIFO (named pipe)"), ("/dev/zero", "a character device"),
             (tmp_path, "is a directory"), (tmp_path / "missing.json", "no such file")]
    for path, message in cases:
        with pytest.raises(OptionFileError) as info, _never_block():
            read_option_file(path, "scorer_weights", max_bytes=100)
        assert str(info.value).startswith(f"scorer_weights={str(path)!r}: ") and message in str(info.value)
    with pytest.raises(OptionFileError, match=r"^weights='.*big.json': larger than 100 bytes"):
        read_option_file(big, "weights", max_bytes=100)
    link = tmp_path / "link.json"
    link.symlink_to(big)  # a link to a regular file is followed
    assert read_option_file(link, "weights").data == big.read_bytes()
    (tmp_path / "to-fifo").symlink_to(fifo)
    with pytest.raises(OptionFileError, match="a FIFO"), _never_block():
        read_option_file(tmp_path / "to-fifo", "weights")


def test_every_file_option_refuses_a_fifo_and_dev_zero_before_any_model_loads(tmp_path):
    """A FIFO as --scorer-weights or --grammar-model blocked for minutes; /dev/zero took 4.6 GB
    before a MemoryError. Each is now one error naming the option, at once."""
    from nlgmetrics.discotk import DiscoTK
    from nlgmetrics.rome import RoMe
    from nlgmetrics.rome.grammar import read_head
    from nlgmetrics.rome.network import ScorerNetwork
    from nlgmetrics.sam.lexicon import load_lexicon

    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.npz"  # a .npz name: grammar_model reads it as a head file (a link is followed)
    zero.symlink_to("/dev/zero")
    for path, kind in ((str(fifo), "a FIFO"), (str(zero), "a character device")):
        builds = {"scorer_weights": lambda p: RoMe(profile="lite", scorer_weights=p, quiet=True),
                  "grammar_model": lambda p: RoMe(component="grammar", grammar_model=p, quiet=True),
                  "weights": lambda p: DiscoTK(variant="light", weights=p, quiet=True),
                  "lexicon": load_lexicon}
        loads = {"scorer_weights": ScorerNetwork, "grammar_model": read_head}
        for option, build in [*builds.items(), *loads.items()]:
            with pytest.raises(ValueError) as info, _never_block():
                build(path)
            message = str(info.value)
            assert option.split("_")[-1] in message and path in message and kind in message, message
            assert "\n" not in message


def test_the_command_line_refuses_a_fifo_option_file_with_exit_2(tmp_path, capsys):
    from nlgmetrics import cli

    fifo = tmp_path / "net.json"
    os.mkfifo(fifo)
    (tmp_path / "h.txt").write_text("a cat\n")
    with pytest.raises(SystemExit) as info, _never_block():
        cli.main(["score", "rome", "-o", "profile=lite", "--scorer-weights", str(fifo), "-q",
                  "-p", str(tmp_path / "h.txt"), "-r", str(tmp_path / "h.txt")])
    err = capsys.readouterr().err.strip().splitlines()
    assert info.value.code == 2
    assert err == [f"error: scorer_weights={str(fifo)!r}: not a regular file but a FIFO (named pipe); save it to "
                   "a regular file first"]


# -- 5. finite numbers, bounded nesting ----------------------------------------------------------
@pytest.mark.parametrize("token, message", [
    ("NaN", "NaN is not allowed"), ("Infinity", "Infinity is not allowed"), ("-Infinity", "-Infinity is not"),
    ("1e400", "the number '1e400' is beyond the float range"), ("9" * 400, "beyond the float range")])
def test_a_network_file_with_a_nan_or_infinite_number_is_refused_naming_the_option(tmp_path, token, message):
    """A scorer_weights file with NaN made every RoMe score nan, exit 0."""
    from nlgmetrics.rome import RoMe

    path = _network(tmp_path, edit=token)
    with pytest.raises(OptionFileError, match=rf"^scorer_weights='.*net\.json': .*{message}"):
        RoMe(profile="lite", scorer_weights=str(path), quiet=True)
    payload = json.loads(data_path("rome_scorer_lite.json").read_text())
    payload["layers"][2]["bias"] = ["nan"]  # a string numpy would read as NaN, in a mapping
    from nlgmetrics.rome.network import ScorerNetwork

    with pytest.raises(OptionFileError, match="NaN or infinite"):
        ScorerNetwork(payload)


def test_discotk_weights_files_hold_finite_numbers(tmp_path):
    from nlgmetrics.discotk import DiscoTK

    path = tmp_path / "w.json"
    path.write_text('{"features": ["x"], "weights": [NaN], "bias": 0}')
    with pytest.raises(OptionFileError, match=r"^weights='.*w\.json': NaN is not allowed \(every number must be finite\)$"):
        DiscoTK(variant="light", weights=str(path), quiet=True)


def test_json_nested_50000_deep_is_one_error_naming_the_option(tmp_path):
    """It was a RecursionError; nesting within MAX_JSON_DEPTH (brackets in strings not counted) parses."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 50_000 + "]" * 50_000)
    with pytest.raises(OptionFileError, match=r"^scorer_weights='.*deep\.json', line 1: nested deeper than 32 levels$"):
        read_option_json(deep, "scorer_weights")
    fine = "[" * MAX_JSON_DEPTH + '"[[[[{{{{"' + "]" * MAX_JSON_DEPTH
    assert parse_json(fine.encode(), "x") is not None
    with pytest.raises(OptionFileError, match=f"^x, line 1: nested deeper than {MAX_JSON_DEPTH} levels$"):
        parse_json(("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)).encode(), "x")


# -- 6. a text file as a .npz head ---------------------------------------------------------------
def test_a_text_file_as_grammar_model_npz_says_it_is_not_an_npz_archive(tmp_path):
    """It suggested allow_pickle."""
    from nlgmetrics.rome.grammar import read_head

    text = tmp_path / "x.npz"
    text.write_text("hello\n")
    pickled = tmp_path / "p.npz"
    np.savez(pickled, lora_scale=np.float32(1.0), metrics=np.array([{"a": 1}], dtype=object))
    nan_head = tmp_path / "n.npz"
    np.savez(nan_head, lora_scale=np.float32("nan"), metrics=np.array("{}"))
    for path, message in ((text, "not a .npz archive"), (pickled, "pickled Python objects, which are never loaded"),
                          (nan_head, "NaN or infinite")):
        with pytest.raises(OptionFileError) as info:
            read_head(str(path))
        assert str(info.value).startswith(f"grammar_model={str(path)!r}: ") and message in str(info.value)
        assert "allow_pickle" not in str(info.value)
    states, scale, metrics, where = read_head("rome_grammar_lite.npz")  # the shipped head still loads
    assert len(states) == 1 and scale >= 0 and where.name == "rome_grammar_lite.npz"


# -- 2. errors quote at most a short excerpt -----------------------------------------------------
def test_errors_quote_at_most_a_short_excerpt_of_the_file(tmp_path):
    """--lexicon /etc/passwd printed root's whole line."""
    from nlgmetrics.sam.lexicon import LexiconError, load_lexicon

    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(LexiconError) as info:
        load_lexicon(str(passwd))
    assert "root:x" not in str(info.value) and "line 1: cannot read the line (1 tab-separated field)" in str(info.value)
    secret = "s3cr3t" * 40
    bad = tmp_path / "bad.tsv"
    bad.write_text(f"good#a\t{secret}\n")
    with pytest.raises(LexiconError, match=r"the score 's3cr3ts3cr3ts3cr\.\.\.' is not a number") as info:
        load_lexicon(str(bad))
    assert secret[:30] not in str(info.value)
    assert files.excerpt("x" * 100) == repr("x" * 24 + "...") and files.excerpt(["y"]) == '["y"]'
    rows = tmp_path / "r.jsonl"
    rows.write_text(json.dumps({"s": secret}) + "\n")
    with pytest.raises(files.InputFileError) as info:
        files.number_field(next(files.iter_jsonl(rows)), "s", "r.jsonl")
    assert secret[:30] not in str(info.value)


# -- 3. caches keyed by content ------------------------------------------------------------------
def test_a_lexicon_rewritten_between_two_calls_is_read_again(tmp_path):
    """The second call used the first content under the same signature."""
    from nlgmetrics.sam.lexicon import load_lexicon

    path = tmp_path / "lex.tsv"
    path.write_text("good#a\t0.9\nbad#a\t-0.9\n")
    first = nlgmetrics.score("sam", ["a good day"], ["a bad day"], base="chrf", lexicon=str(path))
    lexicon = load_lexicon(str(path))
    path.write_text("good#a\t-0.9\nbad#a\t-0.9\n")
    assert load_lexicon(str(path)).polarity == {"good#a": -0.9, "bad#a": -0.9} != lexicon.polarity
    second = nlgmetrics.score("sam", ["a good day"], ["a bad day"], base="chrf", lexicon=str(path))
    assert first.signature != second.signature and "lex:lex.tsv@" in second.signature
    # SAM = chrF * (1 - p), p = |S_h - S_r| / 2: |0.9 - (-0.9)| / 2 = 0.9 first, 0 once both are -0.9
    chrf = sacrebleu.sentence_chrf("a good day", ["a bad day"]).score
    assert first.scores == pytest.approx([chrf * (1 - 0.9)])
    assert second.scores == pytest.approx([chrf])
    scorer = nlgmetrics.load("sam", base="chrf", lexicon=str(path))
    assert nlgmetrics.load("sam", base="chrf", lexicon=str(path)) is scorer  # unchanged: the same scorer


def test_the_content_key_follows_the_bytes_not_the_path(tmp_path):
    from nlgmetrics.rome import RoMeConfig

    path = _network(tmp_path)
    key = content_key(path)
    assert key == read_option_file(path, "x").digest
    config = RoMeConfig(profile="lite", scorer_weights=str(path))
    before = option_files_key(config)
    path.write_text(path.read_text().replace('"monotone"', '"paper"'))
    assert content_key(path) != key and option_files_key(config) != before
    assert dict(before)["grammar_model"] is None  # a shipped name or hub id: its name is the key
    for special in ("/dev/zero", str(tmp_path), "no-such-file", "tuned"):
        assert content_key(special) is None


# -- 7. a file that changes while read -----------------------------------------------------------
def test_an_input_file_truncated_while_read_is_an_error_not_a_partial_result(tmp_path):
    """10,101 of 200,000 lines were returned without an error."""
    path = tmp_path / "hyp.txt"
    path.write_text("".join(f"line {i}\n" for i in range(200_000)))
    lines = files.iter_lines(path)
    head = [next(lines) for _ in range(10)]
    os.truncate(path, 100_000)
    with pytest.raises(files.InputFileError, match=r"hyp\.txt: the file changed while it was read"):
        head.extend(lines)
    assert len(files.read_lines(path)) == path.read_bytes().count(b"\n") + 1  # whole once it rests (a cut last line)


def test_the_command_line_refuses_an_input_file_cut_after_it_was_checked(tmp_path):
    from nlgmetrics.cli.score import InputFiles

    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a\nb\nc\n")
    ref.write_text("a\nb\nc\n")
    inputs = InputFiles(str(hyp), [str(ref)], n=3)
    assert [c[1] for c in inputs.chunks(2)] == [["a", "b"], ["c"]]
    hyp.write_text("a\nb\n")  # zip stopped at the shorter file: two segments scored of three
    with pytest.raises(files.InputFileError, match=r"h\.txt: the file changed since it was checked"):
        list(inputs.chunks(2))


# -- 8. the records writer's temporary file ------------------------------------------------------
def test_a_records_file_with_a_long_name_is_written_and_errors_name_it(tmp_path):
    """A 251-byte name failed with 'File name too long': the temporary name's ('.name.XXXXXXXX')."""
    from nlgmetrics.core.records import RecordsWriter

    target = tmp_path / ("r" * 245 + ".jsonl")
    with RecordsWriter(str(target), {"metric": "x"}) as out:
        out.write([{"id": 0, "score": 1.0}])
    assert target.read_text().count("\n") == 2 and stat.S_ISREG(target.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary left
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ValueError) as info:
        RecordsWriter(str(fifo), {"metric": "x"})
    assert str(info.value).startswith(f"{fifo}: is a FIFO") and ".out.jsonl." not in str(info.value)


def test_the_fitted_network_cache_is_used_only_when_its_fit_key_matches(tmp_path):
    """Issue 37: the cached fitted network was used without checking its fit key (the file name
    keeps 24 of its 64 digits); a damaged cache file stopped the scorer. Both now refit."""
    from nlgmetrics.rome.fit import _cached

    payload = json.loads(data_path("rome_scorer_lite.json").read_text())
    path = tmp_path / "scorer-abc.json"
    path.write_text(json.dumps(dict(payload, fit_key="a" * 64)))
    assert _cached(path, "a" * 64).meta["fit_key"] == "a" * 64
    with pytest.warns(UserWarning, match="fitted for another configuration"):
        assert _cached(path, "b" * 64) is None
    path.write_text(json.dumps(dict(payload, fit_key="a" * 64))[:100])  # cut short
    with pytest.warns(UserWarning, match="cannot be used .*not valid JSON"):
        assert _cached(path, "a" * 64) is None
    assert _cached(tmp_path / "none.json", "a" * 64) is None


def test_the_regular_files_docstring_examples_run():
    import doctest

    from nlgmetrics.core import regular_files

    result = doctest.testmod(regular_files, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_a_records_temporary_that_cannot_be_opened_is_reported_under_the_records_path(tmp_path, monkeypatch):
    """The open of the temporary file was the one step whose OSError named '.out.jsonl.XXXXXXXX'."""
    from nlgmetrics.core import atomic, records

    real_open = os.open

    def failing_open(path, *args, **kwargs):  # the writer's exclusive open of its temporary file
        if os.path.basename(str(path)).startswith(".out.jsonl."):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(atomic.os, "open", failing_open)
    with pytest.raises(ValueError) as info:
        records.RecordsWriter(str(tmp_path / "out.jsonl"), {"metric": "x"})
    assert str(info.value) == f"{tmp_path / 'out.jsonl'}: cannot write the records file (Permission denied)"
    assert list(tmp_path.iterdir()) == []  # the temporary is removed

"""SAM's lexicons: the two SentiWords formats, mappings, the shipped SentiWordNet prior lexicon
and the deterministic script that builds it."""
from __future__ import annotations

import gzip

import pytest
from training import sam_lexicon

from nlgmetrics.core.resources import data_path
from nlgmetrics.sam import SAM
from nlgmetrics.sam.lexicon import load_lexicon, parse_sentiwords


def test_sentiwords_hash_format_with_comments(tmp_path):
    path = tmp_path / "SentiWords_1.1.txt"
    path.write_text("# SentiWords 1.1\n# comment\n\nhappiness#n\t0.856\nanger#n\t-0.669\n"
                    "look_up#v\t0.05\nHappy#a\t0.7\n")
    lex = load_lexicon(str(path))
    assert lex.polarity == {"happiness#n": 0.856, "anger#n": -0.669, "look_up#v": 0.05, "happy#a": 0.7}
    from nlgmetrics.sam import SAMConfig

    assert SAMConfig(lexicon=path).lexicon == str(path)  # a pathlib.Path, as the docs say "a file path"
    assert lex.name.startswith("SentiWords_1.1.txt@")
    assert lex.multiword_lengths == (2,)


def test_sentiwords_file_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("# SentiWords 1.1\nhappy#a\t0.7\n".encode("utf-8-sig"))
    assert load_lexicon(str(path)).polarity == {"happy#a": 0.7}


def test_sentiwords_three_column_format_with_header_gzipped(tmp_path):
    path = tmp_path / "sentiwords.tsv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("lemma\tpos\tprior_polarity\nhappiness\tn\t0.856\nice cream\tn\t0.3\nglad\ts\t0.4\n")
    assert load_lexicon(path).polarity == {"happiness#n": 0.856, "ice_cream#n": 0.3, "glad#a": 0.4}


def test_repeated_keys_are_averaged_and_bad_lines_refused():
    assert parse_sentiwords(["good#a\t0.5", "good#a\t0.7"]) == {"good#a": pytest.approx(0.6)}
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        parse_sentiwords(["good#a\t1.5"])
    with pytest.raises(ValueError, match="line 2"):
        parse_sentiwords(["good#a\t0.5", "good a 0.5"])
    with pytest.raises(ValueError, match="a, n, r, v"):
        parse_sentiwords(["good#x\t0.5"])
    with pytest.raises(ValueError, match="no lexicon entries"):
        parse_sentiwords(["# only a comment"])


def test_mapping_and_missing_file():
    lex = load_lexicon({"Happiness#n": 0.856, "ice cream#n": 0.3})
    assert lex.polarity == {"happiness#n": 0.856, "ice_cream#n": 0.3}
    assert lex.name == load_lexicon({"ice cream#n": 0.3, "happiness#n": 0.856}).name
    with pytest.raises(ValueError, match="lemma#pos"):
        load_lexicon({"happiness": 0.5})
    with pytest.raises(FileNotFoundError, match="SentiWords"):
        load_lexicon("/nonexistent/SentiWords_1.1.txt")


def test_default_lexicon_is_sentivader():
    assert load_lexicon().name == load_lexicon("sentivader").name == load_lexicon("default").name
    assert SAM(base="given", quiet=True).config.lexicon == "sentivader"
    assert SAM(base="given", quiet=True).config.matching == "meteor"


def test_sentiwordnet_lexicon_values():
    lex = load_lexicon("sentiwordnet")
    assert len(lex) > 30_000 and lex.name.startswith("swn3prior@")
    assert lex.get("happiness#n") > 0.5 and lex.get("anger#n") < 0
    assert lex.get("happy#a") > 0.5 > lex.get("sad#a") + 1
    assert lex.get("not#r") < 0 and lex.get("terrible#a") < 0 < lex.get("great#a")
    assert all(-1 <= v <= 1 and v != 0 for v in lex.polarity.values())
    assert data_path("sentiwordnet_prior.LICENSE").read_text().count("Attribution-ShareAlike 3.0 Unported")
    assert "ISTI-CNR" in data_path("sentiwordnet_prior.md").read_text()
    assert data_path("sentiwordnet_prior.tsv.gz").stat().st_size < 1_000_000


def test_prior_is_sense_rank_weighted():
    lines = ["# header", "a\t001\t0.5\t0\tgood#1 fine#2", "a\t002\t0\t0.75\tgood#2",
             "n\t003\t0.25\t0.25\tgood#1", "v\t004\t0\t0\tlook_up#1", "\t\t\t\t#\t"]
    priors = sam_lexicon.prior_polarities(lines)
    assert priors["good#a"] == pytest.approx((0.5 / 1 - 0.75 / 2) / (1 + 1 / 2))
    assert priors["fine#a"] == 0.5 and priors["good#n"] == 0.0 and priors["look_up#v"] == 0.0
    text = sam_lexicon.render(priors)
    assert "good#a\t0.0833\n" in text and "good#n" not in text and text.startswith("#")


def test_build_script_reproduces_the_shipped_file(shared_data, tmp_path):
    source = shared_data / "lexicons" / "SentiWordNet_3.0.0.txt.gz"
    if not source.exists():
        pytest.skip("SentiWordNet 3.0 is not in ../shared/data/lexicons")
    out = tmp_path / "prior.tsv.gz"
    sam_lexicon.main(["--source", str(source), "--output", str(out)])
    assert out.read_bytes() == data_path("sentiwordnet_prior.tsv.gz").read_bytes()


def _bad_lexicons(tmp_path):
    """(lexicon, what the one-line error must say) for every way a lexicon can be unreadable."""
    latin = tmp_path / "latin1.tsv"
    latin.write_bytes("good#a\t0.5\ncaf\u00e9#n\t0.2\n".encode("latin-1"))
    whole = gzip.compress(b"good#a\t0.5\nbad#a\t-0.5\n" * 50)
    truncated = tmp_path / "cut.tsv.gz"
    truncated.write_bytes(whole[: len(whole) // 2])
    bad_line = tmp_path / "bad.tsv"
    bad_line.write_text("good#a\t0.5\nbad#a\tminus\n")
    return [(str(latin), f"lexicon {latin}, line 2: not valid UTF-8"),
            (str(truncated), f"lexicon {truncated}: not a valid gzip file or truncated"),
            (str(bad_line), f"lexicon {bad_line}, line 2: cannot read"),
            (str(tmp_path / "missing.tsv"), "missing.tsv is neither one of"),
            ({"good#a": "x"}, "lexicon: the value of 'good#a' is 'x'; lexicon scores are numbers"),
            ({"good#a": "0.5"}, "lexicon: the value of 'good#a' is '0.5'"),
            ({"good#a": True}, "lexicon: the value of 'good#a' is True"),
            ({"good#a": None}, "lexicon: the value of 'good#a' is None"),
            ({}, "lexicon: the mapping has no entries"),
            ({"good#q": 0.5}, "lexicon key 'good#q': part of speech 'q'"),
            ({"good#a": 2}, "polarity of 'good#a' is 2.0")]


def test_every_lexicon_read_error_is_one_value_error_naming_the_file_or_key(tmp_path):
    """A Latin-1 file was a bare UnicodeDecodeError, a truncated .gz a bare EOFError, {"good#a":
    "x"} 'could not convert string to float' without the key; {} and {"good#a": true} were
    taken silently. Each is now a LexiconError (a ValueError) naming the file and line or the key."""
    from nlgmetrics.sam.lexicon import LexiconError

    for spec, message in _bad_lexicons(tmp_path):
        with pytest.raises(LexiconError) as info:
            load_lexicon(spec)
        assert message in str(info.value), (spec, str(info.value))
        assert "\n" not in str(info.value)
    with pytest.raises(FileNotFoundError):  # as before, for library callers
        load_lexicon(str(tmp_path / "missing.tsv"))


def test_cli_lexicon_errors_exit_2_with_one_line(tmp_path, capsys):
    """The README promises exit 2 and one error: line for a bad option; a lexicon that could
    not be read exited 1 (and a truncated .gz printed a bare EOFError)."""
    import json

    from nlgmetrics import cli

    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a good day\n")
    ref.write_text("a nice day\n")
    for spec, message in _bad_lexicons(tmp_path):
        value = spec if isinstance(spec, str) else json.dumps(spec)
        with pytest.raises(SystemExit) as info:
            cli.main(["score", "sam", "--base", "chrf", "-p", str(hyp), "-r", str(ref), "-q", "--lexicon", value])
        err = capsys.readouterr().err.strip().splitlines()
        assert info.value.code == 2, (spec, err)
        assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], (spec, err)


def test_mapping_values_may_be_any_real_number():
    """numpy scalars (a pandas Series' values), Decimal and Fraction are numbers; the float 0.5
    in any of these types gives the same lexicon (its name digests the values)."""
    import decimal
    import fractions

    import numpy as np

    from nlgmetrics.sam.lexicon import LexiconError, load_lexicon

    plain = load_lexicon({"good#a": 0.5})
    for value in (np.float32(0.5), np.float64(0.5), decimal.Decimal("0.5"), fractions.Fraction(1, 2)):
        assert load_lexicon({"good#a": value}).name == plain.name
    assert load_lexicon({"good#a": np.int64(1)}).name == load_lexicon({"good#a": 1.0}).name
    for bad in (np.bool_(True), True, "0.5", None):
        with pytest.raises(LexiconError, match="good#a"):
            load_lexicon({"good#a": bad})


def test_keys_that_differ_only_by_case_are_refused_naming_both(tmp_path):
    """Issue 37: 'Apple#n' and 'apple#n' were merged silently (the mean of a file's two scores;
    a mapping's later value won). Exact repeats keep the documented mean; 's' reads as 'a' and
    spaces as '_' without a refusal."""
    from nlgmetrics.sam.lexicon import LexiconError

    path = tmp_path / "case.tsv"
    path.write_text("# SentiWords\nApple#n\t0.1\ngood#a\t0.5\napple#n\t0.3\n")
    with pytest.raises(LexiconError) as info:
        load_lexicon(str(path))
    assert str(info.value) == (f"lexicon {path}: the keys 'Apple#n' (line 2) and 'apple#n' (line 4) differ only "
                               "by case; keys are read lowercased, so keep one of them")
    with pytest.raises(LexiconError, match=r"^lexicon: the keys 'Good#a' \(key 1\) and 'good#a' \(key 2\) differ"):
        load_lexicon({"Good#a": 0.5, "good#a": -0.5})
    three = tmp_path / "three.tsv"
    three.write_text("lemma\tpos\tprior\nIce Cream\tn\t0.2\nICE_CREAM\tn\t0.4\n")
    with pytest.raises(LexiconError, match=r"'Ice_Cream#n' \(line 2\) and 'ICE_CREAM#n' \(line 3\)"):
        load_lexicon(str(three))
    same = parse_sentiwords(["good#a\t0.5", "good#s\t0.7", "ice cream#n\t0.2", "ice_cream#n\t0.4"])
    assert same == {"good#a": pytest.approx(0.6), "ice_cream#n": pytest.approx(0.3)}
    for name in ("sentiwordnet", "sentivader"):  # the shipped lexicons hold no such pair
        assert len(load_lexicon(name)) > 10_000

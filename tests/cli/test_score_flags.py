"""``score``'s file flags: ``-p`` given twice is refused (argparse kept only the last: ``score
sam -p A -p B`` scored B alone, with no word), several paths after one ``-p`` stay tree files,
and ``-r`` repeats for several references."""
import pytest

from nlgmetrics import cli
from nlgmetrics.cli.common import CLIError


def _parse(argv):
    return cli.build_parser(argv[1]).parse_args(argv)


def test_p_given_twice_is_an_error_naming_compare(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["score", "sam", "-p", "A.txt", "-p", "B.txt", "-r", "refs.txt"])
    assert info.value.code == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: -p/--predictions given twice"), lines
    assert "nlgmetrics compare sam -p A.txt -p B.txt" in lines[0]


def test_p_long_and_short_forms_count_as_the_same_flag():
    with pytest.raises(CLIError, match="given twice"):
        _parse(["score", "sam", "--predictions", "A.txt", "-p", "B.txt"])


def test_several_paths_after_one_p_and_repeated_r_still_parse():
    args = _parse(["score", "discotk", "-p", "a.dis", "b.dis", "-r", "c.dis", "d.dis"])
    assert args.predictions == ["a.dis", "b.dis"] and args.references == [["c.dis", "d.dis"]]
    args = _parse(["score", "texteval", "-p", "hyp.txt", "-r", "r1.txt", "-r", "r2.txt"])
    assert args.predictions == "hyp.txt" and args.references == ["r1.txt", "r2.txt"]

"""``nlgmetrics score discotk`` with RST tree files: a tree file is one segment; -p/-r take a
folder of .dis or .tree files (paired by file name) or such paths; the real RST-DT files of
../shared/data/rst_real score through the CLI; a broken tree is one error line naming the file,
line and column, with exit 2 (an input error)."""
import json
import shutil

import pytest

from nlgmetrics import cli
from nlgmetrics.discotk import DiscoTK

GOOD = ["codra-docker_test_codra_expected.dis", "codra-service_README_output.dis",
        "educe_tests_rst-multinuclear.dis", "educe_tests_rst-mononuclear-multisatellite.dis",
        "feng-hirst_examples_AFP_ENG_20030304.0250.txt.dis"]
LIGHT = ["--variant", "light", "--norm", "none", "--json", "-q"]


def _error(capsys, argv, match):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert info.value.code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert match in lines[0], lines[0]


def _score(capsys, argv):
    assert cli.main(["score", "discotk", *argv, *LIGHT]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def folders(shared_data, tmp_path):
    hyp, ref = tmp_path / "hyp", tmp_path / "ref"
    hyp.mkdir()
    ref.mkdir()
    for name in GOOD:
        shutil.copy(shared_data / "rst_real" / name, hyp / name)
        shutil.copy(shared_data / "rst_real" / name, ref / name)
    return hyp, ref


def test_folders_paired_by_file_name_score_the_top_for_identical_trees(folders, capsys, shared_data):
    hyp, ref = folders
    (hyp / "notes.txt").write_text("not a tree")  # only .dis files are segments
    result = _score(capsys, ["-p", str(hyp), "-r", str(ref)])
    assert result["scores"] == [1.0] * len(GOOD)
    # pairing is by name: the API on the same trees, in file-name order, gives the same scores
    texts = [(shared_data / "rst_real" / n).read_text() for n in sorted(GOOD)]
    other = texts[1:] + texts[:1]
    for k, name in enumerate(sorted(GOOD)):
        (ref / name).write_text(other[k])
    shifted = _score(capsys, ["-p", str(hyp), "-r", str(ref)])
    api = DiscoTK(variant="light", normalization="none", quiet=True).score(texts, other)
    assert shifted["scores"] == api.scores and all(s < 1.0 for s in shifted["scores"])


def test_dis_paths_are_one_segment_each_paired_by_position(shared_data, capsys):
    paths = [str(shared_data / "rst_real" / n) for n in GOOD[:3]]
    result = _score(capsys, ["-p", *paths, "-r", *paths])
    assert result["scores"] == [1.0, 1.0, 1.0]
    one = _score(capsys, ["-p", paths[2], "-r", paths[0]])
    assert len(one["scores"]) == 1 and 0.0 < one["scores"][0] < 1.0


def test_the_truncated_real_file_is_one_error_naming_file_line_and_column(shared_data, capsys):
    bad = str(shared_data / "rst_real" / "educe_test_TSTR2_truncated.dis")
    good = str(shared_data / "rst_real" / GOOD[0])
    _error(capsys, ["score", "discotk", "-p", bad, "-r", good, *LIGHT],
           f"{bad}: .dis tree: line 5, column 7: the node (span 2 4) has 1 child")


def test_tree_file_errors(folders, capsys, tmp_path):
    hyp, ref = folders
    (ref / GOOD[0]).unlink()
    _error(capsys, ["score", "discotk", "-p", str(hyp), "-r", str(ref), *LIGHT],
           f"tree folders are paired by file name: {GOOD[0]} has no file of that name in -r")
    empty = tmp_path / "empty"
    empty.mkdir()
    _error(capsys, ["score", "discotk", "-p", str(empty), "-r", str(ref), *LIGHT], "a folder with no .dis or .tree files")
    one = str(hyp / GOOD[1])
    _error(capsys, ["score", "discotk", "-p", one, one, "-r", one, *LIGHT], "-p names 2 tree files but -r names 1")
    lines = tmp_path / "refs.txt"
    lines.write_text("a line\n")
    _error(capsys, ["score", "discotk", "-p", one, "-r", str(lines), *LIGHT], "give tree files for -r too")
    _error(capsys, ["score", "discotk", "-p", str(lines), "-r", one, *LIGHT], "give tree files for -p too")
    _error(capsys, ["score", "discotk", "-p", one, str(lines), "-r", one, one, *LIGHT], "must end in .dis or .tree")
    broken = tmp_path / "broken.dis"
    broken.write_text("( Root (span 1 2)\n  ( Nucleus (leaf 1) (rel2par span) (text _!a_!) )\n")
    _error(capsys, ["score", "discotk", "-p", str(broken), "-r", one, *LIGHT],
           f"{broken}: .dis tree: line 1, column 1: the Root opened here is never closed")
    _error(capsys, ["score", "sam", "-p", one, one, "-r", one], "sam: -p and -r take one file each")


def test_bracketed_tree_files_read_by_the_cli_as_by_python(shared_data, tmp_path, capsys):
    """A ``.tree`` file in the bracketed format (Feng & Hirst's) is a tree file on the command
    line, as the Python API reads it: the same scores from .tree paths, a folder of them, and the
    API on their texts."""
    from nlgmetrics.discotk.discourse import rst

    texts = []
    for k, name in enumerate(GOOD[:3]):
        tree = rst.from_rst((shared_data / "rst_real" / name).read_text())
        texts.append(rst.to_rst(tree))
        (tmp_path / f"{k}.tree").write_text(texts[-1])
    assert all(t.lstrip().startswith("(") and "Root" not in t.split()[0] for t in texts)
    paths = [str(tmp_path / f"{k}.tree") for k in range(3)]
    by_paths = _score(capsys, ["-p", *paths, "-r", *paths[::-1]])
    api = DiscoTK(variant="light", normalization="none", quiet=True).score(texts, texts[::-1])
    assert by_paths["scores"] == api.scores and by_paths["scores"][1] == 1.0
    assert _score(capsys, ["-p", str(tmp_path), "-r", str(tmp_path)])["scores"] == [1.0] * 3

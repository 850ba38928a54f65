"""Tree files on the command line: for a metric whose facts declare
:class:`~nlgmetrics.core.facts.TreeFiles` (DiscoTK: RST trees, ``.dis``), ``-p`` and ``-r``
may name tree files instead of a file of lines, each tree file one segment:

- a folder: its tree files (by the fact's suffix), in file-name order; a prediction folder and
  a reference folder are paired by file name (both must hold the same names);
- one or more tree files (``-p a.dis b.dis``), paired with the references by position.

Every tree is read when the inputs are checked, before any model loads: a broken or partial
tree is one ``error:`` line naming the file, line and column (exit 2, an input error)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

from nlgmetrics.cli.common import CLIError
from nlgmetrics.core import files
from nlgmetrics.core.facts import TreeFiles

Arg = Union[str, Sequence[str]]


def is_tree_input(value: Optional[Arg], tree: TreeFiles) -> bool:
    """Whether an ``-p``/``-r`` value names tree files (a folder, several paths, or a path
    ending in the fact's suffix)."""
    if value is None:
        return False
    paths = [value] if isinstance(value, str) else list(value)
    return len(paths) > 1 or os.path.isdir(paths[0]) or tree.matches(paths[0])


def _paths(value: Arg, option: str, tree: TreeFiles) -> Tuple[List[Path], bool]:
    """The tree files ``value`` names and whether it is a folder."""
    paths = [value] if isinstance(value, str) else list(value)
    if len(paths) == 1 and os.path.isdir(paths[0]):
        found = sorted(p for p in Path(paths[0]).iterdir() if tree.matches(p.name))
        if not found:
            raise CLIError(f"{option} {paths[0]}: a folder with no {tree.named} files")
        return found, True
    for p in paths:
        if not tree.matches(p):
            raise CLIError(f"{option}: several paths are tree files, one segment each, and must end in "
                           f"{tree.named}; got {p}")
    return [Path(p) for p in paths], False


def _read(path: Path, tree: TreeFiles, metric: str) -> str:
    max_chars = tree.max_chars
    try:
        with files.open_binary(path) as fh:
            raw = fh.read(4 * max_chars + 1)
    except files.InputFileError as err:
        raise CLIError(str(err)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CLIError(f"{path}: not UTF-8 (byte {err.start})") from None
    if len(text) > max_chars:
        raise CLIError(f"{path}: more than {max_chars:,} characters; {metric} reads {tree.kind} files of at most "
                       f"{max_chars:,}")
    return text


def read_tree_inputs(metric: str, tree: TreeFiles, predictions: Arg,
                     references: Sequence[Arg]) -> Tuple[List[str], List[str]]:
    """The trees of ``-p`` and of its one ``-r``, paired, each read and checked (see the module doc)."""
    if not is_tree_input(predictions, tree):
        raise CLIError(f"with tree files for -r, give tree files for -p too: a folder of {tree.named} files "
                       f"or {tree.named} paths")
    if len(references) != 1 or not is_tree_input(references[0], tree):
        raise CLIError(f"with tree files for -p, give tree files for -r too: one folder of {tree.named} files, "
                       f"or as many {tree.named} paths as -p has")
    hyp, hyp_folder = _paths(predictions, "-p", tree)
    ref, ref_folder = _paths(references[0], "-r", tree)
    if hyp_folder and ref_folder:
        names, ref_names = [p.name for p in hyp], {p.name for p in ref}
        missing = [n for n in names if n not in ref_names] or sorted(ref_names - set(names))
        if missing:
            side = "-r" if missing[0] in names else "-p"
            raise CLIError(f"tree folders are paired by file name: {missing[0]} has no file of that name in {side}"
                           + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
        by_name = {p.name: p for p in ref}
        ref = [by_name[n] for n in names]
    elif len(hyp) != len(ref):
        raise CLIError(f"-p names {len(hyp)} tree files but -r names {len(ref)}")
    def checked(path: Path) -> str:
        text = _read(path, tree, metric)
        try:
            parsed = tree.read(text)
        except ValueError as err:
            raise CLIError(f"{path}: {err}") from None
        if parsed is None:
            raise CLIError(f"{path}: an empty file, no {tree.kind}")
        return text

    return [checked(p) for p in hyp], [checked(p) for p in ref]

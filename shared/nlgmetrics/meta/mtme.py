"""google-research/mt-metrics-eval's EvalSet layout, read and written (the WMT metrics task's
data: its README's "File organization and naming convention"; re-implemented from that text).

One EvalSet is a test-set folder and a language pair ``SRC-TGT``:

- ``sources/SRC-TGT.txt``, ``references/SRC-TGT.NAME.txt``, ``system-outputs/SRC-TGT/SYSTEM.txt``:
  one segment a line, the same lines in every file (trailing blanks dropped; the line
  ``[No translation supplied]`` is a missing output, read as an empty text);
- ``documents/SRC-TGT.docs``: ``DOMAIN DOCNAME`` per segment (documents are contiguous);
- ``human-scores/SRC-TGT.NAME.LEVEL.score`` and ``metric-scores/SRC-TGT/METRIC-REF.LEVEL.score``
  (LEVEL ``seg``, ``doc``, ``domain`` or ``sys``): one ``[DOMAIN] SYSNAME SCORE`` a line
  (fields split on blanks; DOMAIN only at the domain level), a block of lines per system in
  segment (document) order; ``None`` marks a missing human score (metric files have none).

Files are read through :mod:`nlgmetrics.core.files` (regular files, size caps); every problem
is an :class:`~nlgmetrics.core.files.InputFileError` naming the file and line.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from functools import partial
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..core import atomic, files, structured

NO_TRANSLATION = "[No translation supplied]"
LEVELS = ("seg", "doc", "domain", "sys")
#: human or metric scores of one level: system -> its scores in order (None: missing)
Scores = Dict[str, List[Optional[float]]]


@dataclass
class EvalSet:
    """What :func:`read_evalset` read: texts, documents and the human scores per name and level."""

    root: str
    lp: str
    sources: List[str]
    references: Dict[str, List[str]]
    outputs: Dict[str, List[str]]
    documents: Optional[List[Tuple[str, str]]] = None
    human: Dict[str, Dict[str, Scores]] = field(default_factory=dict)  # name -> level -> scores

    def human_scores(self, name: str, level: str) -> Optional[Scores]:
        return self.human.get(name, {}).get(level)


def _text_lines(path: str) -> List[str]:
    return [line.rstrip() for line in files.read_lines(path)]


def _check_lp(lp: str, option: str = "--lp") -> str:
    parts = lp.split("-")
    if len(parts) != 2 or not all(parts) or any(c in lp for c in "/\\. \t"):
        raise ValueError(f"{option} must be a language pair SRC-TGT such as de-en, got {lp!r}")
    return lp


def read_score_file(path: str, level: str = "seg", *, human: bool = True) -> Scores:
    """The scores of one ``.score`` file: system -> scores in file order. ``None`` is a
    missing score in a human file and an error in a metric file (``human=False``). Read a line
    at a time within the one reader's limits (:mod:`nlgmetrics.core.structured`: bytes per
    line and per file, at most ``MAX_ITEMS`` scores)."""
    out: Scores = {}
    width = 3 if level == "domain" else 2
    count = 0
    for lineno, line in enumerate(files.iter_lines(path), start=1):
        parts = line.split()
        if not parts:
            continue
        count += 1
        structured.check_count(count, f"{path}, line {lineno}", "scores")
        if len(parts) != width:
            want = "DOMAIN SYSNAME SCORE" if width == 3 else "SYSNAME SCORE"
            raise files.InputFileError(f"{path}, line {lineno}: expected {want} (blank-separated), got {line[:60]!r}")
        system, text = parts[-2], parts[-1]
        if text == "None":
            if not human:
                raise files.InputFileError(f"{path}, line {lineno}: None in a metric score file (only human "
                                           "score files may leave a score out)")
            value: Optional[float] = None
        else:
            try:
                value = float(text)
            except ValueError:
                raise files.InputFileError(f"{path}, line {lineno}: score {text[:40]!r} is not a number") from None
            if not math.isfinite(value):
                raise files.InputFileError(f"{path}, line {lineno}: score {text[:40]!r} is not a finite number")
        out.setdefault(system, []).append(value)
    return out


def read_evalset(root: str, lp: str) -> EvalSet:
    """Read the EvalSet of ``lp`` under the test-set folder ``root`` (the folder holding
    ``sources/``, ``system-outputs/`` ...). Every output and reference must have as many lines
    as the source; human score files are read at every level found."""
    _check_lp(lp)
    if not os.path.isdir(root):
        raise files.InputFileError(f"{root}: not a folder (--mtme takes an mt-metrics-eval test-set folder "
                                   "holding sources/, references/, system-outputs/ ...)")
    sources = _text_lines(os.path.join(root, "sources", f"{lp}.txt"))
    n = len(sources)
    references: Dict[str, List[str]] = {}
    ref_dir = os.path.join(root, "references")
    for name in sorted(os.listdir(ref_dir)) if os.path.isdir(ref_dir) else []:
        if name.startswith(lp + ".") and name.endswith(".txt") and name.count(".") == 2:
            references[name.split(".")[1]] = _lines_of(os.path.join(ref_dir, name), n)
    out_dir = os.path.join(root, "system-outputs", lp)
    if not os.path.isdir(out_dir):
        raise files.InputFileError(f"{out_dir}: no such folder (the system outputs of {lp})")
    outputs = {name[:-4]: [("" if t == NO_TRANSLATION else t) for t in _lines_of(os.path.join(out_dir, name), n)]
               for name in sorted(os.listdir(out_dir)) if name.endswith(".txt")}
    docs_path = os.path.join(root, "documents", f"{lp}.docs")
    documents = _documents(docs_path, n) if os.path.exists(docs_path) else None
    human: Dict[str, Dict[str, Scores]] = {}
    score_dir = os.path.join(root, "human-scores")
    for name in sorted(os.listdir(score_dir)) if os.path.isdir(score_dir) else []:
        parts = name.split(".")
        if parts[0] == lp and len(parts) >= 4 and parts[-1] == "score" and parts[-2] in LEVELS:
            level = parts[-2]
            human.setdefault(".".join(parts[1:-2]), {})[level] = read_score_file(os.path.join(score_dir, name), level)
    return EvalSet(root, lp, sources, references, outputs, documents, human)


def _lines_of(path: str, n: int) -> List[str]:
    lines = _text_lines(path)
    if len(lines) != n:
        raise files.InputFileError(f"{path}: {len(lines)} lines, but the source has {n}")
    return lines


def _documents(path: str, n: int) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    seen: Dict[str, int] = {}
    for lineno, line in enumerate(_lines_of(path, n), start=1):
        parts = line.split()
        if len(parts) != 2:
            raise files.InputFileError(f"{path}, line {lineno}: expected DOMAIN DOCNAME, got {line[:60]!r}")
        if parts[1] in seen and out[-1][1] != parts[1]:
            raise files.InputFileError(f"{path}, line {lineno}: document {parts[1][:40]!r} is not contiguous "
                                       f"(it began on line {seen[parts[1]]})")
        seen.setdefault(parts[1], lineno)
        out.append((parts[0], parts[1]))
    return out


def format_score_lines(scores: Mapping[str, Sequence[Optional[float]]]) -> List[str]:
    """``SYSNAME<TAB>SCORE`` lines, a block per system (``repr`` of each float: read back exactly)."""
    lines = []
    for system, values in scores.items():
        if not system or any(c.isspace() for c in system):
            raise ValueError(f"system name {system!r} is empty or holds a blank; mt-metrics-eval splits lines on blanks")
        lines += [f"{system}\t{'None' if v is None else repr(float(v))}" for v in values]
    return lines


#: how errors of :func:`metric_score_paths` and :func:`write_metric_scores` name their
#: arguments (Python keywords); the command line passes its own option names
PYTHON_NAMES = {"root": "root=", "lp": "lp=", "metric": "metric=", "ref": "ref=", "system": "system="}


def _spelling(options: Optional[Mapping[str, str]]) -> Dict[str, str]:
    return {**PYTHON_NAMES, **(options or {})}


def _check_system(system: str, option: str) -> str:
    """A system name as mt-metrics-eval's score lines need it: a name without blanks."""
    atomic.check_name(system, option)
    if any(c.isspace() for c in system):
        raise ValueError(f"{option} {system!r} holds a blank; mt-metrics-eval splits lines on blanks")
    return system


def metric_score_paths(root: str, lp: str, metric: str, ref: str, *, systems: Sequence[str] = (),
                       options: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """Where a metric's scores go: ``metric-scores/LP/METRIC-REF.LEVEL.score`` per level, after
    checking every name (and each of ``systems``) by the writer's rule for names
    (:func:`nlgmetrics.core.atomic.check_name`) and mt-metrics-eval's (``METRIC-REF.LEVEL``
    must parse back). ``options`` maps ``root lp metric ref system`` to the caller's names of
    them for errors (default: the Python keywords, ``ref=``; the CLI: ``--ref-name``)."""
    spell = _spelling(options)
    _check_lp(atomic.check_name(lp, spell["lp"]), spell["lp"])
    atomic.check_name(metric, spell["metric"])
    atomic.check_name(ref, spell["ref"])
    if "-" in metric or "." in metric:
        raise ValueError(f"{spell['metric']} {metric!r}: must be without '-' or '.' (mt-metrics-eval parses METRIC-REF.LEVEL.score)")
    if "-" in ref:
        raise ValueError(f"{spell['ref']} {ref!r}: must be without '-' (mt-metrics-eval parses METRIC-REF.LEVEL.score)")
    for system in systems:
        _check_system(system, spell["system"])
    names = {level: f"{metric}-{ref}.{level}.score" for level in LEVELS}
    for name in names.values():
        atomic.check_name(name, f"{spell['metric']} with {spell['ref']}")
    return {level: os.path.join(root, "metric-scores", lp, name) for level, name in names.items()}


def write_metric_scores(root: str, lp: str, metric: str, ref: str, seg: Mapping[str, Sequence[float]],
                        sys: Mapping[str, float], *, doc: Optional[Mapping[str, Sequence[float]]] = None,
                        signatures: Optional[Mapping[str, str]] = None,
                        options: Optional[Mapping[str, str]] = None) -> List[str]:
    """Write (or, for the systems given, replace) ``METRIC-REF.seg.score`` and ``.sys.score``
    (and ``.doc.score`` with ``doc``: each system's document scores in document order) under
    ``root``; other systems already in the files are kept, systems in name order. ``signatures`` (system -> the
    signature it was scored under) are merged into ``METRIC-REF.signatures.json`` beside them
    (:func:`read_signatures`: what a resumed run compares; mt-metrics-eval reads ``*.score``
    only). Returns the paths of the score files.

    Through the package's one writer (:mod:`nlgmetrics.core.atomic`): every name checked
    (:func:`metric_score_paths`), nothing written outside ``root`` or through a link inside
    it, each file replaced atomically, and concurrent writers of the same files (other
    processes scoring other systems) serialised on a lock file, each merging under the lock,
    so no system is lost."""
    spell = _spelling(options)
    metric_score_paths(root, lp, metric, ref, systems=[*seg, *sys, *(doc or {}), *(signatures or {})], options=options)
    updates: List[Tuple[str, Scores]] = [("seg", {k: [float(v) for v in vs] for k, vs in seg.items()}),
                                         ("sys", {k: [float(v)] for k, v in sys.items()})]
    if doc:
        updates.insert(1, ("doc", {k: [float(v) for v in vs] for k, vs in doc.items()}))
    for _, new in updates:
        for system, values in new.items():
            if not all(v is not None and math.isfinite(v) for v in values):
                raise ValueError(f"{metric} gave a non-finite score for {system}; mt-metrics-eval files hold numbers only")
    written = []
    with atomic.open_folder(root, ["metric-scores", lp], option=spell["root"]) as folder, \
            atomic.locked(folder, f"{metric}-{ref}.score"):
        for level, new in updates:
            name = f"{metric}-{ref}.{level}.score"
            merged: Scores = folder.read(name, partial(read_score_file, level=level, human=False)) or {}
            merged.update(new)  # systems in name order: the same file whatever order they were written in
            text = "".join(line + "\n" for line in format_score_lines(dict(sorted(merged.items()))))
            folder.write(name, text.encode("utf-8"), "score")
            written.append(os.path.join(root, "metric-scores", lp, name))
        if signatures:
            name = _signatures_name(metric, ref)
            kept = folder.read(name, partial(_read_signatures_file, what=name)) or {}
            folder.write(name, (json.dumps({**kept, **dict(signatures)}, indent=1, sort_keys=True) + "\n").encode(),
                         "signatures")
    return written


def _signatures_name(metric: str, ref: str) -> str:
    return f"{metric}-{ref}.signatures.json"


def _read_signatures_file(path: str, what: str) -> Dict[str, str]:
    from nlgmetrics.core.structured import parse_json

    found = parse_json("\n".join(files.read_lines(path)), path, whole_file=True)
    if not isinstance(found, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in found.items()):
        raise files.InputFileError(f"{path}: expected an object of system -> signature")
    return found


def read_signatures(root: str, lp: str, metric: str, ref: str) -> Dict[str, str]:
    """The signatures :func:`write_metric_scores` recorded for ``METRIC-REF`` under ``root``
    (system -> signature; empty when none were written)."""
    metric_score_paths(root, lp, metric, ref)
    path = os.path.join(root, "metric-scores", lp, _signatures_name(metric, ref))
    if not os.path.lexists(path):
        return {}
    return _read_signatures_file(path, os.path.basename(path))


@dataclass
class Rows:
    """An EvalSet as meta-evaluation rows: one per (system, segment), systems in name order."""

    predictions: List[str]
    references: Optional[List[str]]
    sources: List[str]
    human: List[Optional[float]]
    systems: List[str]
    items: List[str]
    ref: Optional[str]
    human_name: str
    left_out: List[str]
    #: each system's score in ``human-scores/LP.NAME.sys.score`` when the file exists (None: no file)
    human_systems: Optional[Dict[str, float]] = None


def evalset_rows(es: EvalSet, ref: Optional[str] = None, human: Optional[str] = None, items: str = "document"
                 ) -> Rows:
    """The rows of every system the human segment scores ``human`` rate (default: the only
    name with a ``seg`` file), against reference ``ref`` (default: the only reference; the
    system output of that name, the reference itself, is left out). ``items``: ``document``
    (each segment's document when ``documents/`` has the file, else its segment) or ``segment``.
    ``human_systems``: the systems' scores in ``human-scores/LP.NAME.sys.score`` when it exists
    (the system level then uses them, as mt-metrics-eval does; a system without one is left
    out of the system level)."""
    names = sorted(k for k, v in es.human.items() if "seg" in v)
    if human is None:
        if len(names) != 1:
            found = ", ".join(names) or f"none: no human-scores/{es.lp}.NAME.seg.score"
            raise ValueError(f"{es.root}: name the human scores with --human ({found})")
        human = names[0]
    if human not in names:
        raise ValueError(f"{es.root}: no human-scores/{es.lp}.{human}.seg.score (human segment scores: {', '.join(names) or 'none'})")
    if ref is None and len(es.references) > 1:
        raise ValueError(f"{es.root}: {len(es.references)} references for {es.lp}; choose one with --ref "
                         f"({', '.join(es.references)})")
    if ref is None and es.references:
        ref = next(iter(es.references))
    if ref is not None and ref not in es.references:
        raise ValueError(f"{es.root}: no references/{es.lp}.{ref}.txt (references: {', '.join(es.references) or 'none'})")
    if items not in ("document", "segment"):
        raise ValueError(f"items must be 'document' or 'segment', got {items!r}")
    scores = es.human[human]["seg"]
    n = len(es.sources)
    keys = [d[1] for d in es.documents] if items == "document" and es.documents else [str(k) for k in range(n)]
    out = Rows([], None if ref is None else [], [], [], [], [], ref, human, [])
    for system in sorted(es.outputs):
        if system == ref:
            continue
        if system not in scores or all(v is None for v in scores[system]):
            out.left_out.append(system)
            continue
        if len(scores[system]) != n:
            raise ValueError(f"{es.root}: human-scores/{es.lp}.{human}.seg.score holds {len(scores[system])} scores "
                             f"for {system}, but the source has {n} segments")
        out.predictions += es.outputs[system]
        if out.references is not None and ref is not None:
            out.references += es.references[ref]
        out.sources += es.sources
        out.human += scores[system]
        out.systems += [system] * n
        out.items += keys
    if not out.systems:
        raise ValueError(f"{es.root}: no system output of {es.lp} has a {human} human score")
    given = es.human_scores(human, "sys")
    if given is not None:
        out.human_systems = {s: float(v[0]) for s, v in given.items()
                             if s in out.systems and len(v) == 1 and v[0] is not None}
    return out


__all__ = ["EvalSet", "Rows", "evalset_rows", "LEVELS", "NO_TRANSLATION", "PYTHON_NAMES", "format_score_lines",
           "metric_score_paths", "read_evalset", "read_score_file", "read_signatures", "write_metric_scores"]


def read_metric_scores(root: str, lp: str, names: Optional[Sequence[str]] = None, levels: Sequence[str] = ("seg", "sys")
                       ) -> Dict[str, Dict[str, Scores]]:
    """Published metric scores of the EvalSet under the test-set folder ``root``: per metric
    name as mt-metrics-eval spells it, ``METRIC-REF`` (``REF`` a reference name, ``src`` or
    ``all``; the basename may hold ``-``: ``BLEURT-20-refA``), the scores of each of ``levels``
    whose file ``metric-scores/LP/METRIC-REF.LEVEL.score`` exists. ``names`` None: every metric
    with a file of one of ``levels`` there. A name without any of those files is an error that
    lists the names found."""
    _check_lp(lp)
    bad = [level for level in levels if level not in LEVELS or level == "domain"]
    if bad:
        raise ValueError(f"levels must be among seg, doc, sys, got {bad[0]!r}")
    folder = os.path.join(root, "metric-scores", lp)
    found: Dict[str, List[str]] = {}
    for entry in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        stem, _, ext = entry.rpartition(".")
        name, _, level = stem.rpartition(".")
        if ext == "score" and level in levels and "-" in name and not name.startswith("."):
            found.setdefault(name, []).append(level)
    wanted = sorted(found) if names is None else list(names)
    out: Dict[str, Dict[str, Scores]] = {}
    for name in wanted:
        if not name or any(c in name for c in "/\\") or name.startswith(".") or "-" not in name:
            raise ValueError(f"metric name {name!r}: expected METRIC-REF as in metric-scores/{lp}/METRIC-REF.LEVEL.score")
        if name not in found:
            raise files.InputFileError(f"{folder}: no {name}.{'/'.join(levels)}.score (metrics there: "
                                       f"{', '.join(sorted(found)) or 'none'})")
        out[name] = {level: read_score_file(os.path.join(folder, f"{name}.{level}.score"), level, human=False)
                     for level in levels if level in found[name]}
    return out


__all__ += ["read_metric_scores"]

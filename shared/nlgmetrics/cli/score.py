"""``nlgmetrics score``: input files checked first (lines, lengths, UTF-8, per-segment
numbers), then the corpus is scored in chunks with a progress bar, so memory stays flat in the
corpus size; per-segment records stream to a records file (``--shard/--records``), to the
other ranks (``--distributed``) or into the reduction."""
from __future__ import annotations

import argparse
import itertools
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

from tqdm.auto import tqdm

from nlgmetrics.cli import trees
from nlgmetrics.cli.common import (
    CLI_SYNTAX,
    CLIError,
    add_extra_flags,
    call_from_args,
    extra_paths,
    load_scorer,
    read_extra_file,
    scorer_class,
    write_result,
)
from nlgmetrics.cli.mtme_out import add_mtme_out_arguments, check_mtme_out, score_evalset, write_mtme_out
from nlgmetrics.core import files, language
from nlgmetrics.core.cache import live_caches
from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.facts import tree_files_of
from nlgmetrics.core.inputs import Record, normalize_text
from nlgmetrics.core.language import sample_positions
from nlgmetrics.integrations import distributed

DEFAULT_CHUNK = 512
#: while streaming, each cache of the scorer keeps at most this many chunks' worth of entries
CACHE_CHUNKS = 4


def bound_caches(entries: int) -> int:
    """Cap every cache in this process (the scorer's and the shared analyzers' and encoders',
    some made lazily on first use) at ``entries`` entries, so what the caches keep while streaming
    depends on the chunk size, not on the corpus size (their byte estimates undercount parsed
    trees several-fold). Scores do not change: a cache returns what it computes, whatever it
    evicts. Returns the number of caches capped now."""
    capped = 0
    for cache in live_caches():
        if cache.max_entries > entries:
            cache.resize(max_entries=entries)
            capped += 1
    return capped


#: what a column yields once its file has ended (the others still reading)
_ENDED = object()


@dataclass
class InputFiles:
    """The files of one scoring run, checked: every file has ``n`` lines."""

    predictions: str
    references: List[str] = field(default_factory=list)
    sources: Optional[str] = None
    extras: Dict[str, str] = field(default_factory=dict)
    n: int = 0
    multi_reference: bool = False
    #: the predictions' and references' texts when they are tree files (cli/trees.py), else None
    texts: Optional[Tuple[List[str], List[str]]] = None

    def chunks(self, size: int) -> Iterator[distributed.Chunk]:
        """Consecutive chunks of ``size`` segments (0: one chunk), read lazily."""
        columns: List[Iterator[Any]] = [files.iter_lines(self.predictions)]
        columns += [files.iter_lines(p) for p in self.references]
        if self.texts is not None:  # tree files: one segment each
            columns = [iter(self.texts[0]), iter(self.texts[1])]
        if self.sources:
            columns.append(files.iter_lines(self.sources))
        columns += [files.iter_lines(p) for p in self.extras.values()]
        paths = [self.predictions, *self.references, *([self.sources] if self.sources else []), *self.extras.values()]
        n_refs, names = len(self.references), list(self.extras)
        size = size if size > 0 else max(1, self.n)
        start = 0
        rows: List[Any] = []
        for count, row in enumerate(itertools.zip_longest(*columns, fillvalue=_ENDED), start=1):
            if _ENDED in row or count > self.n:  # read to the end, each file checked unchanged as it ends
                path = paths[row.index(_ENDED)] if _ENDED in row else self.predictions
                raise files.InputFileError(f"{path}: the file changed since it was checked (it had {self.n} lines); "
                                           "score it again once nothing writes to it")
            rows.append(row)
            if len(rows) == size:
                yield self._chunk(start, rows, n_refs, names)
                start += len(rows)
                rows = []
        if rows:
            yield self._chunk(start, rows, n_refs, names)
        if start + len(rows) != self.n:
            raise files.InputFileError(f"{self.predictions}: the file changed since it was checked (it had {self.n} "
                                       "lines); score it again once nothing writes to it")

    def language_sample(self) -> Dict[str, List[str]]:
        """The segments the corpus language check reads (:func:`~nlgmetrics.core.language.sample_positions`,
        normalised as the input step does), the predictions' and the first references': the
        same sample as ``nlgmetrics.score`` takes of the whole lists, read in one pass."""
        positions = sample_positions(self.n)

        def picked(lines: Iterator[str]) -> List[str]:
            return [normalize_text(line) for line in itertools.islice(lines, 0, positions.stop, positions.step)]

        if self.texts is not None:
            return {"predictions": picked(iter(self.texts[0])), "references": picked(iter(self.texts[1]))}
        refs = picked(files.iter_lines(self.references[0])) if self.references else []
        return {"predictions": picked(files.iter_lines(self.predictions)), "references": refs}

    def fingerprint(self, scorer: Any, size: int) -> str:
        """The fingerprint of the whole corpus as ``scorer`` reads it (every shard's records
        header carries it), read ``size`` segments at a time."""
        fingerprint = distributed.Fingerprint()
        for _, preds, refs, srcs, extras in self.chunks(size):
            fingerprint.update(scorer.validate(preds, refs, srcs, **extras))
        return fingerprint.hexdigest()

    def _chunk(self, start: int, rows: List[Any], n_refs: int, names: List[str]) -> distributed.Chunk:
        preds = [r[0] for r in rows]
        refs: Optional[List[Any]] = None
        if n_refs == 1 and not self.multi_reference:
            refs = [r[1] for r in rows]
        elif n_refs:
            refs = [list(r[1:1 + n_refs]) for r in rows]
        at = 1 + n_refs
        srcs = [r[at] for r in rows] if self.sources else None
        at += 1 if self.sources else 0
        extras = {name: [float(r[at + j]) for r in rows] for j, name in enumerate(names)}
        return start, preds, refs, srcs, extras


def _count(path: str) -> int:
    try:
        return files.count_lines(path)
    except files.InputFileError as err:
        raise CLIError(str(err)) from None


def check_inputs(cls: Any, args: argparse.Namespace, config: MetricConfig) -> InputFiles:
    """Every input file read once (constant memory): readable, UTF-8, as many lines as the
    hypothesis file; references and sources as the metric takes them; per-segment number
    files (``--base-scores``) as ``config`` takes them, holding finite numbers the metric
    accepts. Nothing has loaded yet."""
    refs: List[Any] = list(args.references or [])
    if refs and cls.references_mode == "none":
        raise CLIError(f"{cls.name} takes no references (-r)")
    if not refs and cls.references_mode == "required":
        raise CLIError(f"{cls.name} needs references: give -r FILE")
    if len(refs) > 1 and not cls.multi_reference:
        raise CLIError(f"{cls.name} takes one reference per segment; got {len(refs)} reference files")
    if args.sources and cls.sources_mode == "none":
        raise CLIError(f"{cls.name} takes no sources (-s)")
    if not args.sources and cls.sources_mode == "required":
        raise CLIError(f"{cls.name} needs sources: give -s FILE")
    extras = extra_paths(args)
    for name in extras:
        if name not in cls.extra_inputs:
            raise CLIError(f"{cls.name} takes no {name.replace('_', ' ')}")
    try:
        cls.check_extra_names(config, extras, CLI_SYNTAX)
    except ValueError as err:
        raise CLIError(str(err)) from None
    tree = tree_files_of(cls)
    several = not all(isinstance(v, str) for v in [args.predictions, *refs])
    if tree is None and several:
        raise CLIError(f"{cls.name}: -p and -r take one file each (several paths are tree files, which "
                       f"{cls.name} does not read)")
    if tree is not None and (trees.is_tree_input(args.predictions, tree) or any(trees.is_tree_input(r, tree) for r in refs)):
        texts = trees.read_tree_inputs(cls.name, tree, args.predictions, refs)
        described = [v if isinstance(v, str) else " ".join(v) for v in (args.predictions, refs[0])]
        return InputFiles(described[0], described[1:], None, {}, len(texts[0]), cls.multi_reference, texts)
    n = _count(args.predictions)
    if n == 0:
        raise CLIError(f"{args.predictions} holds no lines; give at least one segment")
    for path in [*refs, *([args.sources] if args.sources else [])]:
        m = _count(path)
        if m != n:
            raise CLIError(f"{path} has {m} lines but the hypothesis file has {n}")
    for name, path in extras.items():
        read_extra_file(cls, config, name, path, n)
    return InputFiles(args.predictions, refs, args.sources, extras, n, cls.multi_reference)


def check_language(cls: Any, config: MetricConfig, inputs: List[InputFiles], names: Optional[List[str]] = None) -> None:
    """The corpus language check before anything loads, as every surface runs it
    (:func:`nlgmetrics.core.language.check_language`) on the same sample: the predictions of
    each of ``inputs`` (with ``names``: each system's, as ``nlgmetrics.compare`` names them)
    and the first's references. An error (``--language`` given, the text in another language)
    is a usage error."""
    if not language.checks_language(cls, config):
        return
    samples = [one.language_sample() for one in inputs]
    sides = {"predictions": samples[0]["predictions"]} if names is None else {
        f"predictions of {name}": sample["predictions"] for name, sample in zip(names, samples)}
    try:
        language.check_language(cls, config, {**sides, "references": samples[0]["references"]}, CLI_SYNTAX)
    except ValueError as err:
        raise CLIError(str(err)) from None


def _check_not_an_input(out: str, paths: List[str]) -> None:
    """Refuse an output path that names one of the input files (writing it would destroy the input)."""
    target = os.path.realpath(out)
    for path in paths:
        same = os.path.samefile(out, path) if os.path.exists(out) and os.path.exists(path) else \
            target == os.path.realpath(path)
        if same:
            raise CLIError(f"--records {out} is the input file {path}; write the records to another file")


def _with_progress(chunks: Iterator[distributed.Chunk], bar: Any,
                   cache_entries: int = 0) -> Iterator[distributed.Chunk]:
    """The chunks, advancing ``bar`` as each one is done; with ``cache_entries``, the caches are
    capped before every chunk (some are made lazily, during a chunk)."""
    pending = 0
    for chunk in chunks:
        bar.update(pending)
        if cache_entries:
            bound_caches(cache_entries)
        pending = len(chunk[1])
        yield chunk
    bar.update(pending)


def _check_run(args: argparse.Namespace, inputs: InputFiles) -> Tuple[int, int]:
    """The run's own flags (sharding, records file, distributed, chunk size) checked before
    anything loads; the shard ``(k, n)`` to score."""
    if bool(args.shard) != bool(args.records):
        raise CLIError("--shard and --records go together")
    if args.records:
        _check_not_an_input(args.records, [inputs.predictions, *inputs.references,
                                           *([inputs.sources] if inputs.sources else []), *inputs.extras.values()])
    if args.distributed and args.shard:
        raise CLIError("--distributed and --shard are alternatives; use one")
    if args.chunk_size < 0:
        raise CLIError("--chunk-size must be 0 (no chunks) or a positive number of segments")
    try:
        return distributed.parse_shard(args.shard) if args.shard else (1, 1)
    except ValueError as err:
        raise CLIError(f"--shard: {err}") from None


def cmd_score(args: argparse.Namespace) -> int:
    cls = scorer_class(args.metric)
    call = call_from_args(cls, args)
    if args.mtme is not None:
        return score_evalset(args, call)
    if not args.predictions:
        raise CLIError("-p/--predictions is required (or --mtme EVALSET to score a whole EvalSet)")
    config = call.config
    inputs = check_inputs(cls, args, config)
    check_mtme_out(args)
    check_language(cls, config, [inputs])
    shard = _check_run(args, inputs)
    scorer = load_scorer(args.metric, config, quiet=True)  # the command's own bar shows progress
    bar = tqdm(total=inputs.n, desc=args.metric, unit="seg", file=sys.stderr, disable=True if args.quiet else None,
               dynamic_ncols=True, leave=False)
    try:
        cache_entries = CACHE_CHUNKS * args.chunk_size * (1 + len(inputs.references) + bool(inputs.sources))
        chunks = _with_progress(inputs.chunks(args.chunk_size), bar, cache_entries)
        if args.records:
            header = distributed.records_header(args.metric, distributed.record_options(config), scorer,
                                                n_segments=inputs.n, shard=shard,
                                                fingerprint=inputs.fingerprint(scorer, args.chunk_size))
            with distributed.RecordsWriter(args.records, header) as out:
                for records in distributed.score_chunks(scorer, chunks, shard=shard):
                    out.write(records)
            bar.close()
            print(f"wrote {out.count} records of shard {args.shard} to {out.target}", file=sys.stderr)
            return 0
        rank, world = 0, 1
        if args.distributed:
            distributed.init_distributed()
            rank, world = distributed.rank_and_world()
            distributed.check_same_run(scorer, lambda: inputs.fingerprint(scorer, args.chunk_size))
        gathered: List[Record] = []
        for records in distributed.score_chunks(scorer, chunks, shard=(rank + 1, world)):
            gathered.extend(records)
        bar.close()
        result = distributed.gather_reduce(scorer, gathered, all_ranks=False) if args.distributed \
            else scorer.reduce(gathered)
    except files.InputFileError as err:  # an input file that changed while it was scored: exit 2
        raise CLIError(str(err), code=2) from None
    except (ValueError, OSError) as err:
        raise CLIError(str(err), code=1) from None
    finally:
        bar.close()
    try:
        if result is not None:  # rank 0 (or a single process)
            write_result(result, args.json)
            write_mtme_out(args, result)
    finally:
        if args.distributed:
            distributed.shutdown_distributed()
    return 0


class _OneOrMore(argparse.Action):
    """A path, or a list of paths when several are given (tree files, cli/trees.py); the option
    given a second time is an error (argparse would keep only the last use: ``score sam -p A -p
    B`` scored B alone), with the command that scores several systems."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            metric = getattr(namespace, "metric", None) or "METRIC"
            raise CLIError(f"{'/'.join(self.option_strings)} given twice; score takes one hypothesis file (several "
                           f"paths after one -p are tree files, for a metric that reads them): to score several systems, use "
                           f"nlgmetrics compare {metric} -p A.txt -p B.txt -r REFS")
        setattr(namespace, self.dest, values[0] if len(values) == 1 else list(values))


class _AppendOneOrMore(argparse.Action):
    """As :class:`_OneOrMore`, once per use of the option."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        setattr(namespace, self.dest, items + [values[0] if len(values) == 1 else list(values)])


def add_score_arguments(p: argparse.ArgumentParser, cls: Optional[Any]) -> None:
    tree = tree_files_of(cls) if cls is not None else None
    as_trees = (f"; or {tree.kind}s, one segment per file: a folder of {tree.named} files or "
                f"several {tree.named} paths" if tree else "; a metric that reads tree files takes those too (see "
                "nlgmetrics score METRIC --help)" if cls is None else "")
    p.add_argument("-p", "--predictions", metavar="FILE", nargs="+", action=_OneOrMore,
                   help=f"one hypothesis per line (UTF-8; .gz ok){as_trees}")
    p.add_argument("-r", "--references", action=_AppendOneOrMore, metavar="FILE", nargs="+",
                   help="one reference per line (repeat for several)"
                        + ("; or tree files as for -p (two folders are paired by file name)" if tree else ""))
    p.add_argument("-s", "--sources", metavar="FILE", help="one source per line")
    add_extra_flags(p, cls)  # the metric's per-segment inputs
    add_mtme_out_arguments(p)
    p.add_argument("--shard", metavar="K/N", help="score only shard K of N (round-robin segments)")
    p.add_argument("--records", metavar="OUT.jsonl", help="write the shard's per-segment records here")
    p.add_argument("--distributed", action="store_true",
                   help="data-parallel over torch.distributed ranks (launch with torchrun)")
    p.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK, metavar="N",
                   help=f"score N segments at a time, so memory stays flat in the corpus size: the metric's "
                        f"caches keep at most {CACHE_CHUNKS} chunks' worth of texts (default {DEFAULT_CHUNK}; "
                        f"0: all at once, caches as configured)")

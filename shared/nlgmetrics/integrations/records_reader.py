"""Reading records files back as untrusted data (every field checked, errors naming the file
and line, non-finite numbers only as ``{"$float": ...}``) and reducing them: the format is in
:mod:`nlgmetrics.core.records`. Each record's fields are checked against the metric's
declared fields (type and range, :mod:`nlgmetrics.core.record_fields`), and a stored score that
disagrees with the record's other fields is refused, so a reduction never prints it."""
from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Tuple

from nlgmetrics.core import structured
from nlgmetrics.core.inputs import Record
from nlgmetrics.core.record_fields import check_derived, check_fields
from nlgmetrics.core.records import (
    _NONFINITE,
    FINGERPRINT,
    FORMAT,
    NONFINITE_KEY,
    _encode,
    _plain,
    parse_shard,
    record_options,
    safe_option,
    shard_size,
)
from nlgmetrics.core.result import MetricResult, has_nonfinite
from nlgmetrics.core.scorer import Scorer

#: a header promising more segments is refused (no allocation follows it anyway): every reader's count limit
MAX_SEGMENTS = structured.MAX_ITEMS


def _nonfinite(obj: Dict[str, Any]) -> Any:
    if NONFINITE_KEY not in obj:
        return obj
    name = obj[NONFINITE_KEY]
    if len(obj) != 1 or not isinstance(name, str) or name not in _NONFINITE:
        raise structured.Refused(f'an object with the key "{NONFINITE_KEY}" must be exactly '
                                 f'{{"{NONFINITE_KEY}": "nan" | "inf" | "-inf"}}')
    return _NONFINITE[name]


def _parse(line: str, where: str, decoded: Optional[List[float]] = None) -> Any:
    """One JSON line of a records file, read by the one reader of structured input (depth,
    size and finite numbers checked: a non-finite number only as ``{"$float": ...}``);
    ``decoded`` (when given) collects the non-finite numbers read from those objects."""
    def hook(obj: Dict[str, Any]) -> Any:
        value = _nonfinite(obj)
        if decoded is not None and value is not obj:
            decoded.append(value)
        return value

    return structured.parse_json(line, where, object_hook=hook)


def _same(a: Record, b: Record) -> bool:
    """Whether two records are the same, NaN equal to NaN (a shard given twice)."""
    def canonical(rec: Record) -> str:
        return json.dumps(_encode(rec, rec.get("id")), default=_plain, allow_nan=False, sort_keys=True)
    return a == b or canonical(a) == canonical(b)


def _check_header(first: Any, where: str) -> Dict[str, Any]:
    from nlgmetrics import registry

    if isinstance(first, dict) and first.get("nlgmetrics_records") == 1:
        raise ValueError(f"{where}: records format 1, written by an older nlgmetrics, holds no fingerprint of its "
                         "inputs, so shards of different inputs cannot be told apart; score the shards again")
    if not isinstance(first, dict) or first.get("nlgmetrics_records") != FORMAT:
        raise ValueError(f"{where}: not an nlgmetrics records file (format {FORMAT}); line 1 must be its header")
    if "metric" not in first:  # never reduced with --metric's scorer instead
        raise ValueError(f"{where}: the header has no metric field; it is not a header nlgmetrics writes")
    metric, options, signature = first.get("metric"), first.get("options"), first.get("signature")
    n, shard, inputs = first.get("n_segments"), first.get("shard"), first.get("inputs")
    if not isinstance(metric, str) or metric not in registry.REGISTRY:
        raise ValueError(f"{where}: unknown metric in the header; known: {', '.join(registry.REGISTRY)}")
    if not isinstance(options, dict):
        raise ValueError(f"{where}: the header's options must be a JSON object")
    if not isinstance(signature, str) or len(signature) > 4000:
        raise ValueError(f"{where}: the header's signature must be a string")
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_SEGMENTS:
        raise ValueError(f"{where}: n_segments must be an integer from 1 to {MAX_SEGMENTS}")
    if not isinstance(shard, str):
        raise ValueError(f"{where}: the header's shard must look like K/N")
    try:
        k, n_shards = parse_shard(shard)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
    if not isinstance(inputs, str) or not FINGERPRINT.fullmatch(inputs):
        raise ValueError(f"{where}: the header's inputs must be a corpus fingerprint (sha256:<64 hex digits>)")
    return {"metric": metric, "options": options, "signature": signature, "n_segments": n,
            "shard": (k, n_shards), "inputs": inputs}


def _check_record(rec: Any, where: str, n: int, shard: Tuple[int, int],
                  nonfinite: Optional[frozenset] = frozenset()) -> Record:
    """A record checked: an object with an integer id in range and in the file's shard, and
    non-finite numbers only in the fields the metric declares (``nonfinite``; None: the line
    cannot hold one, so no field is walked)."""
    if not isinstance(rec, dict):
        raise ValueError(f"{where}: a record must be a JSON object")
    bad = [] if nonfinite is None else sorted(k for k, v in rec.items() if k not in nonfinite and has_nonfinite(v))
    if bad:
        raise ValueError(f"{where}: field {bad[0]!r} holds a non-finite number, which this metric's records never do")
    seg = rec.get("id")
    if not isinstance(seg, int) or isinstance(seg, bool):
        raise ValueError(f"{where}: a record needs an integer id")
    if not 0 <= seg < n:
        raise ValueError(f"{where}: segment id {seg} is outside 0..{n - 1} (the header says {n} segments)")
    if seg % shard[1] != shard[0] - 1:
        raise ValueError(f"{where}: segment id {seg} does not belong to shard {shard[0]}/{shard[1]}")
    return rec


def read_records(paths: Iterable[str]) -> Tuple[Dict[str, Any], List[Record]]:
    """Read shard files and check them as untrusted data (:func:`_read`). Returns (header,
    records sorted by id)."""
    header, records, _ = _read(paths)
    return header, records


def _read(paths: Iterable[str], call: Any = None, *,
          safe_only: bool = False) -> Tuple[Dict[str, Any], List[Record], Dict[int, str]]:
    """Read shard files and check them as untrusted data: the header's fields, each record's
    id (an integer in range, in the file's shard), the count of records against the header,
    that all files come from one run (metric, options, signature, segment count and the
    fingerprint of the inputs agree) and together cover every segment once (the same shard
    given twice is merged when its records are identical), each record's fields against the
    metric's declared fields under the file's options. Every error names the file and line and
    quotes nothing of the file. ``call``: the caller's resolved call, which the files' metric and
    options must be; without it the first header's are resolved (once: the other headers must
    equal it; ``safe_only``: those options must all be on the safe list, :func:`safe_option`).
    The header returned holds the call under ``"call"``. Returns (header, records
    sorted by id, id -> "file, line N")."""
    # long: one streaming pass over untrusted files; every check sits where its error can name the file and line
    from nlgmetrics.core import files

    header: Optional[Dict[str, Any]] = None
    first_path = ""
    by_id: Dict[int, Record] = {}
    wheres: Dict[int, str] = {}
    for path in paths:
        path = str(path)
        lines = files.iter_lines(path)  # the one reader's limits: bytes per line and per file
        try:
            first_line = next(lines)
        except StopIteration:
            raise ValueError(f"{path}: empty; not an nlgmetrics records file") from None
        head = _check_header(_parse(first_line, f"{path}, line 1"), f"{path}, line 1")
        run = {k: head[k] for k in ("metric", "options", "signature", "n_segments", "inputs")}
        if header is None:
            header, first_path = run, path
        elif run != header:
            differ = [k for k in run if run[k] != header[k]]
            if "options" in differ:
                keys = set(run["options"]) | set(header["options"])
                differ[differ.index("options")] = "options " + ", ".join(
                    sorted(k for k in keys if run["options"].get(k) != header["options"].get(k)))
            if differ == ["inputs"]:
                raise ValueError(f"{path}, line 1: was scored from other inputs than {first_path} (their corpus "
                                 "fingerprints differ: other predictions, references, sources or per-segment "
                                 "inputs); give every shard of a run the same whole corpus")
            raise ValueError(f"{path}, line 1: comes from a different run than {first_path} "
                             f"({'; '.join(differ)} differ)")
        n, shard = head["n_segments"], head["shard"]
        if path == first_path:  # the run's call, resolved once: the other files' headers equal this one
            call = _run_call(call, head, f"{path}, line 1", safe_only)
        cls = call.scorer
        nonfinite = cls.nonfinite_fields
        fields = cls.record_fields(call.config)
        mine: Dict[int, Record] = {}
        count = 0
        for lineno, line in enumerate(lines, start=2):
            if not line.strip():
                continue
            where = f"{path}, line {lineno}"
            count += 1
            structured.check_count(count, where, "records")
            decoded: List[float] = []  # a non-finite number can only come from a {"$float": ...} object
            parsed = _parse(line, where, decoded)
            rec = _check_record(parsed, where, n, shard, nonfinite if decoded else None)
            if fields is not None:
                check_fields(rec, fields, where)
            for seen in (mine, by_id):
                old = seen.get(rec["id"])
                if old is not None and not _same(old, rec):
                    raise ValueError(f"{where}: segment {rec['id']} has conflicting records")
            mine[rec["id"]] = rec
            wheres.setdefault(rec["id"], where)
        want = shard_size(n, *shard)
        if len(mine) != want:
            raise ValueError(f"{path}: shard {shard[0]}/{shard[1]} of {n} segments should hold {want} records, "
                             f"it holds {len(mine)} (an interrupted or edited file?)")
        by_id.update(mine)
    if header is None:
        raise ValueError("no records files given")
    ids = sorted(by_id)
    if len(ids) != header["n_segments"]:
        missing = [i for i, seg in enumerate(ids + [header["n_segments"]]) if seg != i][:1]
        first = missing[0] if missing else len(ids)
        raise ValueError(f"{header['n_segments'] - len(ids)} segment(s) have no record (first: {first}); "
                         "a shard is missing")
    return {**header, "call": call}, [by_id[i] for i in ids], wheres


def _run_call(call: Any, head: Dict[str, Any], where: str, safe_only: bool) -> Any:
    """The call of a run's records: the caller's (the files' metric and options must be its),
    or the header's metric and options resolved by the front door (checked as a call is; with
    ``safe_only`` none of them may name a path, model or device)."""
    from nlgmetrics import registry

    if call is None:
        if safe_only:
            config_cls = registry.scorer_class(head["metric"]).Config
            unsafe = sorted(k for k in head["options"] if k in config_cls.names() and not safe_option(config_cls.spec(k)))
            if unsafe:
                raise ValueError(f"{where}: option(s) {', '.join(unsafe)} may name a path, model or device, and a "
                                 "records file is data: give the metric and its options yourself "
                                 f"(nlgmetrics reduce FILES --metric {head['metric']} -o KEY=VALUE ...)")
        try:
            return registry.resolve(head["metric"], head["options"], check_extras=False)  # inputs are in the records
        except (ValueError, TypeError) as err:
            raise ValueError(f"{where}: {err}") from None
    if call.metric != head["metric"]:
        raise ValueError(f"{where}: the records are of metric {head['metric']!r}, not {call.metric!r}")
    given, written = record_options(call.config), head["options"]
    differ = sorted(k for k in set(given) | set(written) if json.dumps(given.get(k)) != json.dumps(written.get(k)))
    if differ:  # written as given (the Python API's records): compared as the configuration reads them
        try:
            written = record_options(call.scorer.Config.from_options(**written))
        except (ValueError, TypeError) as err:
            raise ValueError(f"{where}: {err}") from None
        differ = sorted(k for k in set(given) | set(written) if json.dumps(given.get(k)) != json.dumps(written.get(k)))
    if differ:
        raise ValueError(f"{where}: the records were scored with other options ({', '.join(differ)} differ)")
    return call


def _signature_keys(signature: str) -> Tuple[str, List[str], str]:
    """(metric, the keys of the ``key:value`` fields in order, version) of a signature."""
    parts = signature.split("|")
    version = parts[-1][2:] if len(parts) > 1 and parts[-1].startswith("v:") else ""
    return parts[0], [p.split(":", 1)[0] for p in parts[1:-1]], version


def _check_signature(cls: Any, config: Any, signature: str, where: str) -> None:
    """The records' signature is one this nlgmetrics writes for ``config``, built without any
    model: the same metric and version, and the configuration's fields in order, followed by
    the facts of the scorer that wrote the records (the model and backend that ran there, which
    may restate a field: ``model:minilm`` becomes ``model:minilm@last/fp32``)."""
    from nlgmetrics.core.result import make_signature
    from nlgmetrics.core.version import __version__

    expected = make_signature(cls.name, __version__, **config.signature_fields())
    metric, keys, version = _signature_keys(signature)
    _, own, _ = _signature_keys(expected)
    if metric != cls.name or version != __version__ or keys[:len(own)] != own:
        raise ValueError(f"{where}: the records' signature {signature} is not one nlgmetrics {__version__} writes "
                         f"for these options ({expected} before the scorer's facts); versions differ?")


def reduce_files(paths: Iterable[str], metric: Optional[str] = None, options: Optional[Dict[str, Any]] = None,
                 *, call: Any = None, quiet: bool = True) -> MetricResult:
    """Merge shard files and run the metric's corpus reduction. The metric and options come
    from the caller; without them, from the files, but only when every option there is on
    the safe list (:func:`safe_option`): a file never names a path, a model or a device."""
    paths = [str(p) for p in paths]
    scorer, header, records = load_records(paths, metric, options, call=call, quiet=quiet)
    try:
        return scorer.reduce(records)
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as err:
        raise ValueError(f"the records in {', '.join(paths)} do not fit {header['metric']}'s reduction "
                         f"({type(err).__name__}: {err})") from None


def load_records(paths: Iterable[str], metric: Optional[str] = None, options: Optional[Dict[str, Any]] = None,
                 *, call: Any = None, quiet: bool = True) -> Tuple[Scorer, Dict[str, Any], List[Record]]:
    """(scorer, header, records sorted by id) of merged shard files, the scorer built as
    :func:`reduce_files` builds it (checked against the files' options and signature), with no
    model loaded (:meth:`~nlgmetrics.core.scorer.Scorer.for_reduce`; ``quiet``: no bars where a
    metric's reduction still needs its model, DATScore's). The run's call is ``call`` (the
    caller's, resolved once), else ``metric`` with ``options`` resolved here, else the files'
    (only when every option there is on the safe list); ``header["call"]`` holds it."""
    from nlgmetrics import registry

    paths = [str(p) for p in paths]
    if call is None and options is not None:
        if metric is None:
            raise ValueError("options need the metric they are options of")
        call = registry.resolve(metric, options, check_extras=False)  # per-segment inputs are in the records
    header, records, wheres = _read(paths, call, safe_only=call is None)
    where = f"{paths[0]}, line 1"
    if metric is not None and metric != header["metric"]:
        raise ValueError(f"{where}: the records are of metric {header['metric']!r}, not {metric!r}")
    call = header["call"]
    _check_signature(call.scorer, call.config, header["signature"], where)
    scorer = call.scorer.for_reduce(call.config, header["signature"], quiet=quiet)  # the records hold what models computed
    for rec in records:  # a stored score that disagrees with its details is never reduced
        try:
            derived = scorer.derived_fields(rec)
        except (ValueError, ArithmeticError, TypeError, KeyError) as err:
            raise ValueError(f"{wheres[rec['id']]}: the record's fields do not fit together "
                             f"({type(err).__name__}: {str(err)[:200]})") from None
        check_derived(rec, derived, wheres[rec["id"]])
    return scorer, header, records

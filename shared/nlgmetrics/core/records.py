"""Records files: per-segment records of one shard written as they are scored (reading them
back as untrusted data: :mod:`nlgmetrics.integrations.records_reader`).

A records file is JSON lines: a header (format, metric, options, signature, n_segments,
shard, inputs), then one record per segment of the shard. ``inputs`` is a fingerprint of the
whole corpus the shard was cut from (:class:`Fingerprint`: every segment's prediction,
references, sources and per-segment extras), so shards scored from different inputs are not
merged. Non-finite floats (a metric's documented NaN or infinity) are written as
``{"$float": "nan" | "inf" | "-inf"}`` and read back exactly; a bare ``NaN``/``Infinity`` or a
malformed such object is refused. Reading checks every field (format, ids in range and in the
file's shard, counts consistent with the header) and names the file and line in each error
without quoting the file. The reduction takes the metric's options from the caller, or from
the files only when every option there is on the safe list (numbers, switches and fixed
choices: never a path, a model name or a device), so a file never makes it create a directory
or load a model.
"""
from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import math
import re
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from nlgmetrics.core import atomic
from nlgmetrics.core.inputs import Inputs, Record, reference_group
from nlgmetrics.core.result import map_floats
from nlgmetrics.core.scorer import Scorer

#: format 2 added the header's ``inputs`` fingerprint; format 1 files (without it) are refused
FORMAT = 2


def parse_shard(text: str) -> Tuple[int, int]:
    """``"K/N"`` with 1 <= K <= N -> (K, N)."""
    try:
        k, n = (int(x) for x in str(text).split("/"))
    except ValueError:
        raise ValueError(f"shard must look like K/N (e.g. 2/4), got {text!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"shard {text!r}: need 1 <= K <= N")
    return k, n


def shard_size(n_segments: int, k: int, n_shards: int) -> int:
    """How many of ``n_segments`` segments shard k of n_shards holds (round-robin)."""
    return max(0, (n_segments - k + n_shards) // n_shards)


def _plain(obj: Any) -> Any:
    if hasattr(obj, "tolist"):
        return obj.tolist()
    raise TypeError(f"record field of type {type(obj).__name__} is not JSON serialisable")


#: JSON has no NaN or infinity: a non-finite float in a record is written as the object
#: ``{"$float": "nan"}`` (``"inf"``, ``"-inf"``) and read back as that float. A record may hold
#: no other object with this key, so the encoding is unambiguous.
NONFINITE_KEY = "$float"
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _encode(obj: Any, seg: Any) -> Any:
    """``obj`` with every non-finite float replaced by its ``{"$float": ...}`` object."""
    def leaf(x: float) -> Any:
        return x if math.isfinite(x) else {NONFINITE_KEY: "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}

    def reserved(d: Dict[Any, Any]) -> None:
        if NONFINITE_KEY in d:
            raise ValueError(f"the record of segment {seg} holds the key {NONFINITE_KEY!r}, which a records "
                             "file reserves for non-finite numbers")
    return map_floats(obj, leaf, reserved)


def record_line(record: Record) -> str:
    """One record as a JSON line; non-finite floats (NaN, +-inf: a metric's documented values,
    e.g. TextEval's ``r2`` of a two-text set) as ``{"$float": "nan" | "inf" | "-inf"}``, which
    reading turns back into the same float."""
    try:
        line = json.dumps(record, default=_plain, allow_nan=False, separators=(",", ":"))
        if f'"{NONFINITE_KEY}"' not in line:  # the common case: all finite, no reserved key
            return line
    except ValueError:
        pass
    return json.dumps(_encode(record, record.get("id")), default=_plain, allow_nan=False, separators=(",", ":"))


class RecordsWriter(atomic.Committed):
    """Write a records file as records arrive, atomically: the file appears (or replaces an
    older one; re-running a shard gives the same content) only when :meth:`close` succeeds.

        with RecordsWriter(path, header) as out:
            for records in score_chunks(...):
                out.write(records)
    """

    def __init__(self, path: str, header: Dict[str, Any]) -> None:
        # the one writer (core/atomic.py): only a regular file or a new path is replaced (a
        # symlink the user named is followed), through a new temporary file, mode 0666 - umask
        self.path = str(path)
        folder, name = atomic.target_folder(self.path, "records")
        self.target = Path(folder.path(name))
        with folder:  # the temporary file keeps its own descriptor of the folder
            self._tmp = atomic.TempFile(folder, name, "records", shown=self.path)
        raw: Any = self._tmp.file
        self._inner: Any = gzip.GzipFile(fileobj=raw, mode="wb") if name.endswith(".gz") else raw
        self._fh = io.TextIOWrapper(self._inner, encoding="utf-8")
        self.count = 0
        self._guard(lambda: self._fh.write(json.dumps({"nlgmetrics_records": FORMAT, **header}) + "\n"))

    def _guard(self, step: Any) -> None:
        try:
            step()
        except OSError as err:  # a full disk: name the records file, not the temporary one
            self.abort()
            raise ValueError(f"{self.path}: cannot write the records file ({err.strerror or err})") from None

    def write(self, records: Sequence[Record]) -> None:
        self._guard(lambda: self._fh.write("".join(record_line(rec) + "\n" for rec in records)))
        self.count += len(records)

    def close(self) -> Path:
        self._guard(self._finish)
        self._tmp.commit()
        return self.target

    def _finish(self) -> None:
        self._fh.flush()
        self._fh.detach()
        if self._inner is not self._tmp.file:
            self._inner.close()  # the gzip trailer; the file itself stays open for commit

    def abort(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._fh.close()
        self._tmp.abort()

    commit = close  # the context manager's (atomic.Committed) name for close


FINGERPRINT = re.compile(r"sha256:[0-9a-f]{64}")


class Fingerprint:
    """SHA-256 of a whole corpus, fed segment by segment in id order (a corpus read in chunks
    gets the fingerprint of the corpus read at once). Each segment is one canonical JSON line
    ``[prediction, references, source, {extra: value}]`` of the validated inputs (references as
    a list, :func:`~nlgmetrics.core.inputs.reference_group`; ``null`` where a field is not given;
    extras by sorted name), so equal inputs give equal fingerprints on every path and no two
    corpora share one (JSON quotes every text; a line holds no raw newline).

        >>> from nlgmetrics.core.inputs import validate_inputs
        >>> fp = Fingerprint()
        >>> fp.update(validate_inputs(["a cat"], ["the cat"]))
        >>> fp.hexdigest() == corpus_digest(validate_inputs(["a cat"], [["the cat"]], multi_reference=True))
        True
    """

    def __init__(self) -> None:
        self._hash = hashlib.sha256(b"nlgmetrics corpus 1\n")

    def update(self, inputs: Inputs) -> None:
        refs, srcs, extras = inputs.references, inputs.sources, sorted(inputs.extras.items())
        for i, pred in enumerate(inputs.predictions):
            segment = [pred, None if refs is None else reference_group(refs[i]),
                       None if srcs is None else srcs[i], {name: values[i] for name, values in extras}]
            line = json.dumps(segment, ensure_ascii=True, separators=(",", ":"), default=_plain)
            self._hash.update(line.encode("ascii") + b"\n")

    def hexdigest(self) -> str:
        return "sha256:" + self._hash.hexdigest()


def corpus_digest(inputs: Inputs) -> str:
    """The :class:`Fingerprint` of validated inputs."""
    fingerprint = Fingerprint()
    fingerprint.update(inputs)
    return fingerprint.hexdigest()


def corpus_fingerprint(scorer: Scorer, predictions: Any, references: Any = None, sources: Any = None,
                       **extras: Any) -> str:
    """The fingerprint of a whole corpus as ``scorer`` reads it (for :func:`write_records`):
    every shard of one run gives the same full corpus, so every shard has the same fingerprint."""
    return corpus_digest(scorer.validate(predictions, references, sources, **extras))


def records_header(metric: str, options: Dict[str, Any], scorer: Scorer, *, n_segments: int,
                   shard: Tuple[int, int], fingerprint: str) -> Dict[str, Any]:
    """The first line of a records file: what a reduction checks the records against.
    ``fingerprint`` is that of the whole corpus (:func:`corpus_fingerprint`), not the shard."""
    if not isinstance(fingerprint, str) or not FINGERPRINT.fullmatch(fingerprint):
        raise ValueError("fingerprint must be the corpus fingerprint (sha256:<64 hex digits>) from corpus_fingerprint")
    return {"metric": metric, "options": options, "signature": scorer.signature,
            "n_segments": int(n_segments), "shard": f"{shard[0]}/{shard[1]}", "inputs": fingerprint}


def write_records(path: str, metric: str, options: Dict[str, Any], scorer: Scorer, records: List[Record],
                  *, n_segments: int, shard: Tuple[int, int], fingerprint: str) -> Path:
    """Write a records file atomically (re-running a shard replaces it with the same content).
    ``fingerprint``: :func:`corpus_fingerprint` of the whole corpus the shard was cut from."""
    header = records_header(metric, options, scorer, n_segments=n_segments, shard=shard, fingerprint=fingerprint)
    with RecordsWriter(path, header) as out:
        out.write(records)
    return out.target


def safe_option(spec: Any) -> bool:
    """Whether a records file may set this option by itself: numbers, switches and fixed
    choices only; free text (a path, a model name, a device) and mappings must come from the
    caller."""
    base = spec.base_type
    return base in (bool, int, float) or (base is str and spec.choices is not None)


def record_options(config: Any) -> Dict[str, Any]:
    """The options a records header carries: those that differ from their defaults and can
    change a score (device, batch size and other ``signature="never"`` fields are left out)."""
    never = {s.name for s in config.specs() if s.signature == "never"} | set(config.RUNTIME)
    return {k: v for k, v in config.changed().items() if k not in never}

"""Reading the files that options name (SAM's ``lexicon``, RoMe's ``scorer_weights`` and
``grammar_model`` head, DiscoTK's ``weights``) the way ``--records`` is written: a regular file
(a symbolic link followed), within a size cap, read whole and checked not to change while read;
a FIFO, device, socket or directory is refused at once. Every error is one line naming the
option and the path (an :class:`OptionFileError`, a ``ValueError``; a missing file is also a
``FileNotFoundError``) and quotes at most a short excerpt of the file.

JSON from an option file is read by the one reader of structured input
(:func:`nlgmetrics.core.structured.parse_json`): ``NaN``/``Infinity`` and numbers beyond the
float range (``1e400``) are refused, and so is nesting deeper than :data:`MAX_JSON_DEPTH`.
Caches of what such files hold are keyed by :func:`content_key` (a hash of the bytes), so a
file rewritten between two calls of one process is read again.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import os
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional, Tuple

from . import structured
from .regular_files import InputFileError, check_unchanged, open_regular, read_bytes, stat_key
from .resources import DATA_DIR

#: the most bytes read from one option file (decompressed) unless the option sets its own cap:
#: far above any real lexicon, network or weights file (the shipped grammar head is 5 MB), and
#: below the one reader's limit per file (:data:`~nlgmetrics.core.structured.MAX_FILE_BYTES`)
MAX_OPTION_BYTES = 256 * 2**20
#: the deepest nesting of arrays and objects taken from an option's JSON file: every reader's
MAX_JSON_DEPTH = structured.MAX_DEPTH
_GZIP_MAGIC = b"\x1f\x8b"


class OptionFileError(InputFileError):
    """An option's file that cannot be used; the message names the option and the path."""


class OptionFileNotFoundError(OptionFileError, FileNotFoundError):
    """An option's file that does not exist (nor ships with nlgmetrics, where that is allowed)."""


@dataclass(frozen=True)
class OptionFile:
    """An option file's bytes (decompressed when gzip was allowed), where they came from and
    a hash of them."""

    path: Path
    data: bytes
    digest: str  # sha256 of ``data``, hex

    @property
    def tag(self) -> str:
        """``name@digest8``: the file's name and content, for signatures and cache keys."""
        return f"{self.path.name}@{self.digest[:8]}"


def where(option: str, value: Any) -> str:
    """How errors name an option's file: ``scorer_weights='net.json'``."""
    return f"{option}={os.fspath(value) if isinstance(value, os.PathLike) else str(value)!r}"


def option_path(value: Any, option: str, *, shipped: bool = False) -> Path:
    """The path an option names: the user's file when something exists there (even a FIFO or a
    broken link: the read then says what it is), else, with ``shipped``, the file of that
    name shipped with nlgmetrics; a missing file is :class:`OptionFileNotFoundError`."""
    text = os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    path = Path(text).expanduser()
    if os.path.lexists(path):
        return path
    if shipped and text and Path(text).name == text and (DATA_DIR / text).is_file():
        return DATA_DIR / text
    also = " and no file of that name ships with nlgmetrics" if shipped else ""
    raise OptionFileNotFoundError(f"{where(option, value)}: no such file ({path.absolute()}){also}")


def check_option_file(value: Any, option: str, *, shipped: bool = False, max_bytes: int = MAX_OPTION_BYTES,
                      label: Optional[str] = None) -> Path:
    """The option's file checked without reading it (when a scorer is built, before any
    model loads): it exists, is a regular file and is within ``max_bytes``. ``label`` names
    the file in errors (default :func:`where`)."""
    path = option_path(value, option, shipped=shipped)
    name = label or where(option, value)
    fh, st = _open(path, name)
    fh.close()
    _check_size(st.st_size, max_bytes, name)
    return path


def _open(path: Path, name: str) -> Tuple[Any, os.stat_result]:
    try:
        return open_regular(path, name)
    except InputFileError as err:
        cls = OptionFileNotFoundError if str(err).endswith(": no such file") else OptionFileError
        raise cls(str(err)) from None


def _check_size(size: int, max_bytes: int, name: str, what: str = "") -> None:
    if size > max_bytes:
        raise OptionFileError(f"{name}: {what}larger than {max_bytes:,} bytes, the most read from an option's file")


def read_option_file(value: Any, option: str, *, shipped: bool = False, gunzip: bool = False,
                     max_bytes: int = MAX_OPTION_BYTES, label: Optional[str] = None) -> OptionFile:
    """The whole file an option names (see the module): at most ``max_bytes`` (after
    decompression, with ``gunzip``: a file starting with gzip's magic bytes is decompressed);
    ``label`` names the file in errors (default :func:`where`)."""
    path = option_path(value, option, shipped=shipped)
    name = label or where(option, value)
    fh, before = _open(path, name)
    with fh:
        _check_size(before.st_size, max_bytes, name)
        try:
            data = read_bytes(fh, max_bytes + 1, name)
            check_unchanged(fh, before, name, read=len(data))
        except InputFileError as err:
            raise OptionFileError(str(err)) from None
    if gunzip and data[:2] == _GZIP_MAGIC:
        data = _gunzip(data, name, max_bytes)
    return OptionFile(path.resolve(), data, hashlib.sha256(data).hexdigest())


def _gunzip(data: bytes, name: str, max_bytes: int) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            out = fh.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as err:
        raise OptionFileError(f"{name}: not a valid gzip file or truncated ({err})") from None
    _check_size(len(out), max_bytes, name, "decompressed, ")
    return out


def parse_json(data: bytes, name: str) -> Any:
    """JSON of an option file, each problem one line naming ``name``: not UTF-8, and what the
    one reader refuses (:func:`nlgmetrics.core.structured.parse_json`: not JSON, with line and
    column; ``NaN``/``Infinity`` or a number beyond the float range; nesting deeper than
    :data:`MAX_JSON_DEPTH`)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise OptionFileError(f"{name}: not valid UTF-8 (byte {err.start + 1}); save the file as UTF-8") from None
    try:
        return structured.parse_json(text, name, whole_file=True)
    except structured.StructuredInputError as err:
        raise OptionFileError(str(err)) from None


def read_option_json(value: Any, option: str, *, shipped: bool = False, max_bytes: int = MAX_OPTION_BYTES,
                     label: Optional[str] = None) -> Tuple[Any, OptionFile]:
    """``(parsed JSON, the file)`` of the file an option names (see :func:`parse_json`)."""
    file = read_option_file(value, option, shipped=shipped, max_bytes=max_bytes, label=label)
    return parse_json(file.data, label or where(option, value)), file


def finite_numbers(values: Iterable[Any], name: str) -> None:
    """Refuse a NaN or infinite number among ``values`` (numbers or numpy arrays) read from
    the file ``name`` (a ``.npz`` head's arrays; JSON is checked as it is parsed)."""
    import numpy as np

    for value in values:
        array = np.asarray(value)
        if array.dtype.kind in "fc" and not np.isfinite(array).all():
            raise OptionFileError(f"{name}: holds a NaN or infinite number; every number must be finite")


# -- caches keyed by content ---------------------------------------------------------------------
_DIGESTS: "OrderedDict[Tuple[str, Tuple[int, int, int, int]], str]" = OrderedDict()
_DIGESTS_LOCK = threading.Lock()
_DIGESTS_MAX = 256


def content_key(value: Any) -> Optional[str]:
    """A hash of the bytes of the regular file ``value`` names (``None`` when it names none: a
    shipped name, a hub id, a missing or special file, which the scorer itself then
    reports). The hash is kept per (path, device, inode, size, modification time), so an
    unchanged file is hashed once and a rewritten one again."""
    if not isinstance(value, (str, os.PathLike)):
        return None
    path = os.path.realpath(Path(os.fspath(value)).expanduser())
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not os.path.isfile(path) or st.st_size > MAX_OPTION_BYTES:
        return None
    key = (path, stat_key(st))
    with _DIGESTS_LOCK:
        if key in _DIGESTS:
            _DIGESTS.move_to_end(key)
            return _DIGESTS[key]
    try:
        digest = read_option_file(path, "file").digest
    except InputFileError:
        return None
    with _DIGESTS_LOCK:
        _DIGESTS[key] = digest
        while len(_DIGESTS) > _DIGESTS_MAX:
            _DIGESTS.popitem(last=False)
    return digest


def option_files_key(config: Any) -> Tuple[Tuple[str, Optional[str]], ...]:
    """The content of every file the configuration's ``FILE_OPTIONS`` name, for the key of a
    cache of scorers: a scorer built on a file's old content is not reused after a rewrite."""
    return tuple((name, content_key(getattr(config, name, None))) for name in getattr(config, "FILE_OPTIONS", ()))


__all__ = ["MAX_JSON_DEPTH", "MAX_OPTION_BYTES", "OptionFile", "OptionFileError", "OptionFileNotFoundError",
           "check_option_file", "content_key", "finite_numbers", "option_files_key", "option_path", "parse_json",
           "read_option_file", "read_option_json", "where"]

"""Regular files, for every reader and writer of the package: what kind of file a path is (a
FIFO, device, socket or directory is refused by kind, in the same words everywhere), opening
one to read without ever waiting on it, noticing that it changed while read, and the short
excerpt of its content an error may quote. :class:`InputFileError` is the error of every
file read (``nlgmetrics.core.files`` re-exports it).
"""
from __future__ import annotations

import json
import os
import stat
from typing import IO, Any, Optional, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


class InputFileError(ValueError):
    """A problem with an input file; the message names the file (and the line)."""


def kind_of(mode: int) -> Optional[str]:
    """What a file of ``os.stat`` mode ``mode`` is when it is not a regular file (``"a FIFO
    (named pipe)"``, ``"a directory"``, ...); ``None`` for a regular file. Readers of files
    (:mod:`nlgmetrics.core.files`, :mod:`nlgmetrics.core.option_files`) and the atomic writer
    (:mod:`nlgmetrics.core.atomic`) refuse the same kinds in the same words."""
    if stat.S_ISREG(mode):
        return None
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "a special file"


def excerpt(value: Any, limit: int = 24) -> str:
    """At most ``limit`` characters of what a file holds, for an error message: a text quoted,
    another value as JSON. Errors show enough to find the spot, never a whole line of a file
    that was not what the option wanted (``--lexicon /etc/passwd`` printed root's line).

    >>> print(excerpt("root:x:0:0:root:/root:/bin/bash"), excerpt("0.5x"), excerpt(["y", "z"]))
    'root:x:0:0:root:/root:/b...' '0.5x' ["y", "z"]
    """
    shown = value if isinstance(value, str) else json.dumps(value, default=str)
    cut = shown[:limit] + "..." if len(shown) > limit else shown
    return repr(cut) if isinstance(value, str) else cut


def stat_key(st: os.stat_result) -> Tuple[int, int, int, int]:
    """What changes when a file is rewritten, truncated or replaced: (device, inode, size,
    modification time in ns)."""
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def open_regular(path: PathLike, name: str, *, devnull: bool = False) -> Tuple[IO[bytes], os.stat_result]:
    """``(file, its stat)``: ``path`` opened for reading when it is a regular file (a symbolic
    link followed), else an :class:`InputFileError` at once, before anything blocks: a FIFO,
    device, socket or directory is refused by kind (``devnull``: ``/dev/null`` reads as an empty
    file). The kind is checked before opening and again on the open file (opened without
    waiting, so a FIFO put there in between is refused too, not waited on)."""
    is_null = devnull and os.path.realpath(path) == os.path.realpath(os.devnull)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(f"{name}: no such file") from None
    except OSError as err:
        raise InputFileError(f"{name}: cannot open ({err.strerror or err})") from None
    kind = None if is_null else kind_of(st.st_mode)
    if kind == "a directory":
        raise InputFileError(f"{name}: is a directory, not a file")
    if kind is not None:
        raise InputFileError(f"{name}: not a regular file but {kind}; save it to a regular file first")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as err:
        raise InputFileError(f"{name}: cannot open ({err.strerror or err})") from None
    try:
        st = os.fstat(fd)
        kind = None if is_null else kind_of(st.st_mode)
        if kind is not None:
            raise InputFileError(f"{name}: not a regular file but {kind}; save it to a regular file first")
        if hasattr(os, "O_NONBLOCK"):  # reads of the regular file wait as usual
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st
    except BaseException:
        os.close(fd)
        raise


def read_bytes(fh: IO[bytes], size: int, name: str) -> bytes:
    """Up to ``size`` bytes of an open file, a read error one :class:`InputFileError` naming
    it: ``/proc/self/mem`` stats as a regular file of size 0, and reading it fails (EIO)."""
    try:
        return fh.read(size)
    except OSError as err:
        raise InputFileError(f"{name}: cannot read ({err.strerror or err})") from None


def check_unchanged(fh: IO[bytes], before: os.stat_result, name: str, read: Optional[int] = None) -> None:
    """Refuse a file that changed while it was read (truncated, appended to or rewritten in
    place: its stat differs from ``before``, or ``read`` bytes were read of a file of another
    size); a partial result would otherwise pass for the whole file's."""
    try:
        now = os.fstat(fh.fileno())
    except OSError:
        now = before
    if stat_key(now) != stat_key(before) or (read is not None and read != before.st_size):
        raise InputFileError(f"{name}: the file changed while it was read (it had {before.st_size:,} bytes when "
                             "opened); read it again once nothing writes to it")


__all__ = ["InputFileError", "check_unchanged", "excerpt", "kind_of", "open_regular", "read_bytes", "stat_key"]

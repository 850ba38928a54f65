"""Writing an output file atomically without replacing what it should not: the target must be
a regular file or a new path (a device, FIFO, socket or directory is refused by name; a
symbolic link is followed, and the file it points to must be regular or new), the new file
gets the usual permissions (``0666`` less the umask, e.g. ``0644``; an existing file keeps
its mode), and every error names the target, never the temporary file beside it.
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Tuple

from .regular_files import kind_of

#: the longest name of one file (the usual limit of Linux and macOS file systems, in bytes)
_NAME_MAX = 255


def _umask() -> int:
    try:  # Linux: read it without changing it (os.umask would, for every thread, for a moment)
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def checked_target(path: str, what: str = "output") -> Path:
    """The regular file (or new path) that writing ``path`` may replace: a symbolic link is
    followed to its target; anything else that is not a regular file is ``ValueError``."""
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as err:
        raise ValueError(f"{path}: cannot use as the {what} file ({err.strerror})") from None
    kind = kind_of(mode)
    if kind is not None:
        raise ValueError(f"{path}: is {kind}; the {what} file must be a regular file or a new path")
    return target


def _temp_prefix(name: str) -> str:
    """``.<name>.`` cut so that the temporary name (prefix and mkstemp's 8 random characters)
    fits the file system's limit on one name wherever ``name`` itself does: a target named
    with 250 bytes was refused with ``File name too long``, which was the temporary's."""
    room = _NAME_MAX - len(".") - len(".") - 8
    raw = name.encode("utf-8", "surrogateescape")[:max(room, 1)]
    return "." + raw.decode("utf-8", "ignore") + "."


def open_temp(path: str, what: str = "output") -> Tuple[Path, str]:
    """``(target, temporary path)``: the checked target and a new temporary file beside it,
    already given the target's final permissions."""
    target = checked_target(path, what)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=_temp_prefix(target.name))
    except OSError as err:
        raise ValueError(f"{path}: cannot write the {what} file ({err.strerror})") from None
    try:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    return target, tmp


def replace(tmp: str, target: Path, path: str, what: str = "output") -> None:
    """Move the finished temporary file over ``target`` (checked again: a FIFO or device put
    there while writing is not replaced); ``path`` names the target in errors."""
    try:
        checked_target(str(target), what)
        os.replace(tmp, target)
    except (OSError, ValueError) as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        reason = err.strerror if isinstance(err, OSError) else str(err).split(": ", 1)[-1]
        raise ValueError(f"{path}: cannot write the {what} file ({reason})") from None

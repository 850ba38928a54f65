"""The package's one writer: every file nlgmetrics writes (records, mt-metrics-eval score files,
a Space's exports, caches) goes through here.

- **Inside the folder the user named.** :func:`open_folder` opens that folder (a symbolic link
  in the path the user typed is the user's choice and followed) and walks down to the folder
  to write in one checked name at a time, relative to the open folder and never following a
  link, so no name and no link planted inside can lead out of it.
- **One rule for names.** A name that becomes one component of a path (a language pair, a
  system, a metric or reference name) passes :func:`check_name`, whose error names the option
  in the caller's spelling (``--ref-name`` on the command line, ``ref=`` in Python).
- **Atomic, through no link.** A file is written to a new temporary file beside it, created
  exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``, a random name: never a fixed ``.tmp``), and
  moved over the target with one ``os.replace``; the target must be a regular file or a new
  path (a directory, FIFO, device or socket is refused by kind). A new file gets ``0666`` less
  the umask (e.g. ``0644``); an existing file keeps its mode. Files are not ``fsync``'d (10 ms
  a file on this project's test machine): a reader or a failed run never sees half a file, a
  power cut may still lose the newest one.
- **Safe under concurrent writers.** :func:`locked` serialises the writers of one file with
  ``flock`` on a lock file beside it (opened without following a link, kept afterwards), so a
  read-modify-write (:meth:`Folder.read`, then :meth:`Folder.write`) loses no other writer's data.

Every error is a ``ValueError`` naming the target as the user knows it, never a temporary file.
POSIX only (``O_NOFOLLOW``, folder descriptors, ``flock``).
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import secrets
import stat
import unicodedata
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Optional, Sequence, TypeVar, Union

from .regular_files import kind_of

PathLike = Union[str, "os.PathLike[str]"]
T = TypeVar("T")
C = TypeVar("C", bound="Committed")

#: the longest name of one file (the usual limit of Linux and macOS file systems, in bytes)
NAME_MAX = 255
#: Unicode categories a name may not hold: control characters (newline, CR, NUL, DEL, C1),
#: lone surrogates (bytes that were not UTF-8) and the line and paragraph separators
_BAD_CATEGORIES = ("Cc", "Cs", "Zl", "Zp")
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = os.O_NOFOLLOW
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC


def check_name(name: Any, option: str) -> str:
    """``name`` when it may be one file or folder name: a non-empty text without ``/`` or
    ``\\``, not ``.`` or ``..``, without control characters (newline, CR, NUL, DEL ...), at
    most 255 bytes in UTF-8; else a ``ValueError`` naming ``option`` as the caller spells it.

    >>> check_name("refA", "--ref-name")
    'refA'
    >>> check_name("../x", "ref=")
    Traceback (most recent call last):
    ValueError: ref= '../x': holds '/' or '\\'; it becomes one file or folder name
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"{option} must be a non-empty name, got {name!r}")
    if "/" in name or "\\" in name:
        raise ValueError(f"{option} {name!r}: holds '/' or '\\'; it becomes one file or folder name")
    if name in (".", ".."):
        raise ValueError(f"{option} {name!r}: is not a name ('.' and '..' are folders)")
    bad = next((c for c in name if unicodedata.category(c) in _BAD_CATEGORIES), None)
    if bad is not None:
        raise ValueError(f"{option} {name!r}: holds the control character U+{ord(bad):04X}; a file or folder "
                         "name may not")
    size = len(name.encode("utf-8"))
    if size > NAME_MAX:
        raise ValueError(f"{option} {name[:40]!r}...: {size} bytes, over the {NAME_MAX} bytes of one file name")
    return name


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


def _side_name(name: str, tail: str) -> str:
    """``.<name>.<tail>`` (a temporary or lock file beside ``name``), its ``name`` part cut and
    marked with a hash where the whole would pass the file system's limit of one name."""
    whole = f".{name}.{tail}"
    if len(whole.encode("utf-8")) <= NAME_MAX:
        return whole
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    room = NAME_MAX - len(f"..{digest}.{tail}".encode("utf-8"))
    head = name.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore")
    return f".{head}.{digest}.{tail}"


def _why(err: BaseException) -> str:
    return (err.strerror or str(err)) if isinstance(err, OSError) else str(err)


class Folder:
    """An open folder to write in: ``fd`` (its descriptor; names are resolved relative to it)
    and ``shown``, its path as the user named it, for messages and for readers that take a path;
    ``inside``: the folder the user named, as messages name it (``--mtme-out 'OUT'``). Close it
    (or use it as a context manager) when done."""

    def __init__(self, fd: int, shown: str, inside: str) -> None:
        self.fd, self.shown, self.inside = fd, shown, inside

    def path(self, name: str) -> str:
        return os.path.join(self.shown, name)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def __enter__(self) -> "Folder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def kind(self, name: str, shown: Optional[str] = None, what: str = "output") -> Optional[os.stat_result]:
        """The ``lstat`` of ``name`` here (``None``: no such file), after refusing a symbolic
        link and anything but a regular file; errors name ``shown`` (default: its path)."""
        shown = self.path(name) if shown is None else shown
        try:
            st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as err:
            raise ValueError(f"{shown}: cannot use as the {what} file ({_why(err)})") from None
        if stat.S_ISLNK(st.st_mode):
            raise ValueError(f"{shown}: is a symbolic link; nlgmetrics writes inside {self.inside} and follows no "
                             "link there")
        kind = kind_of(st.st_mode)
        if kind is not None:
            raise ValueError(f"{shown}: is {kind}; the {what} file must be a regular file or a new path")
        return st

    def read(self, name: str, reader: Callable[[str], T]) -> Optional[T]:
        """``reader(path)`` of the regular file ``name`` here (``None`` when there is none);
        a symbolic link or special file there is refused, and so is a file that another one
        replaced while ``reader`` read it."""
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC, dir_fd=self.fd)
        except FileNotFoundError:
            return None
        except OSError as err:
            self.kind(name)  # names a link or a special file
            raise ValueError(f"{self.path(name)}: cannot read ({_why(err)})") from None
        try:
            st = os.fstat(fd)
            if kind_of(st.st_mode) is not None:
                self.kind(name)
            result = reader(self.path(name))
            try:
                now = os.stat(self.path(name))
            except OSError:
                now = None
            if now is None or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                raise ValueError(f"{self.path(name)}: was replaced while it was read; run again")
            return result
        finally:
            os.close(fd)

    def write(self, name: str, data: bytes, what: str = "output") -> str:
        """Write ``data`` to ``name`` here atomically; returns the path written."""
        with TempFile(self, name, what) as tmp:
            tmp.file.write(data)
        return self.path(name)


class FolderError(ValueError):
    """A folder that cannot be written in: ``why`` is the reason alone (the message names it)."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


def open_folder(root: PathLike, parts: Sequence[str] = (), *, option: str) -> Folder:
    """The folder ``root/parts[0]/parts[1]/...`` opened to write in, every folder made when
    missing. ``root`` is the folder the user named with ``option`` (a link in it is followed);
    each of ``parts`` must pass :func:`check_name` and be a real folder inside, not a link."""
    shown = os.fspath(root)
    if not shown.strip():
        raise ValueError(f"{option} must name a folder, got {shown!r}")
    try:
        os.makedirs(shown, exist_ok=True)
        fd = os.open(shown, _DIRECTORY)
    except (FileExistsError, NotADirectoryError) as err:
        why = ("is below a file, not a folder" if isinstance(err, NotADirectoryError) else
               "is a file, not a folder" if os.path.isfile(shown) else "is not a folder")
        raise FolderError(f"{option} {shown}: {why}", why) from None
    except OSError as err:
        why = f"cannot use as a folder ({_why(err)})"
        raise FolderError(f"{option} {shown}: {why}", why) from None
    inside = f"{option} {shown!r}"
    for part in parts:
        check_name(part, option)
        path = os.path.join(shown, part)
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            sub = os.open(part, _DIRECTORY | _NOFOLLOW, dir_fd=fd)
        except OSError as err:
            st = _lstat(part, fd)
            if st is not None and stat.S_ISLNK(st.st_mode):
                why = f"is a symbolic link; nlgmetrics writes inside {inside} and follows no link there"
            elif st is not None and not stat.S_ISDIR(st.st_mode):
                why = "is a file, not a folder"
            else:
                why = f"cannot use as a folder ({_why(err)})"
            os.close(fd)
            raise FolderError(f"{option}: {path} {why}", f"{path} {why}") from None
        os.close(fd)
        fd, shown = sub, path
    return Folder(fd, shown, inside)


def _lstat(name: str, dir_fd: int) -> Optional[os.stat_result]:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None


class Committed:
    """A write that, as a context manager, commits when the block succeeds and aborts (leaving
    nothing behind) when it raises."""

    def commit(self) -> Any:
        raise NotImplementedError

    def abort(self) -> None:
        raise NotImplementedError

    def __enter__(self: C) -> C:
        return self

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()


class TempFile(Committed):
    """A new temporary file beside ``name`` in ``folder`` (``file``: open to write bytes),
    created exclusively under a random name and never through a link, with the target's final
    permissions. :meth:`commit` moves it over ``name`` in one ``os.replace``; :meth:`abort`
    removes it. As a context manager it commits on success and aborts on an error."""

    def __init__(self, folder: Folder, name: str, what: str = "output", shown: Optional[str] = None) -> None:
        # its own descriptor of the folder: the caller may close ``folder`` before the commit
        self.folder = Folder(os.dup(folder.fd), folder.shown, folder.inside)
        self.name, self.what = name, what
        self.shown = shown if shown is not None else folder.path(name)
        old = None if stat.S_ISLNK(_mode(name, folder.fd)) else self._checked()
        mode = stat.S_IMODE(old.st_mode) if old is not None else 0o666 & ~_umask()
        for _ in range(100):
            self.tmp = _side_name(name, secrets.token_hex(4))
            try:
                fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600,
                             dir_fd=folder.fd)
                break
            except FileExistsError:
                continue
            except OSError as err:
                self.folder.close()
                raise ValueError(f"{self.shown}: cannot write the {what} file ({_why(err)})") from None
        else:
            self.folder.close()
            raise ValueError(f"{self.shown}: cannot write the {what} file (no free temporary name beside it)")
        try:
            os.fchmod(fd, mode)
        except OSError as err:
            os.close(fd)
            self._unlink()
            self.folder.close()
            raise ValueError(f"{self.shown}: cannot write the {what} file ({_why(err)})") from None
        self.file: IO[bytes] = os.fdopen(fd, "wb")

    def _checked(self) -> Optional[os.stat_result]:
        """The target's stat (``None``: new) after refusing a directory, FIFO or device there."""
        return self.folder.kind(self.name, self.shown, self.what)

    def _unlink(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.tmp, dir_fd=self.folder.fd)

    def commit(self) -> str:
        """Move the finished file over the target (checked again: a directory, FIFO or device
        put there meanwhile is not replaced; a link put there is replaced, not written through)."""
        try:
            self.file.close()  # not fsync'd: atomic for readers and a failing process, not a power cut
            if not stat.S_ISLNK(_mode(self.name, self.folder.fd)):
                self._checked()
            os.replace(self.tmp, self.name, src_dir_fd=self.folder.fd, dst_dir_fd=self.folder.fd)
        except (OSError, ValueError) as err:
            self.abort()
            reason = _why(err).split(": ", 1)[-1] if isinstance(err, ValueError) else _why(err)
            raise ValueError(f"{self.shown}: cannot write the {self.what} file ({reason})") from None
        self.folder.close()
        return self.shown

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()
        self._unlink()
        self.folder.close()



def _mode(name: str, dir_fd: int) -> int:
    st = _lstat(name, dir_fd)
    return 0 if st is None else st.st_mode


@contextlib.contextmanager
def locked(folder: Folder, name: str) -> Iterator[None]:
    """Hold the lock of ``name`` in ``folder`` inside the block: ``flock`` on the lock file
    ``.<name>.lock`` beside it (created when missing, opened without following a link; a lock
    file that another process replaced while this one waited is locked again)."""
    lock = _side_name(name, "lock")
    shown = folder.path(lock)
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC, 0o666, dir_fd=folder.fd)
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise ValueError(f"{shown}: the lock file is a symbolic link; nlgmetrics follows no link inside "
                                 f"{folder.inside}") from None
            raise ValueError(f"{shown}: cannot open the lock file ({_why(err)})") from None
        try:
            st = os.fstat(fd)
            if kind_of(st.st_mode) is not None:
                raise ValueError(f"{shown}: the lock file is {kind_of(st.st_mode)}, not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            now = _lstat(lock, folder.fd)
            if now is not None and (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # replaced while waiting: lock the new one
    try:
        yield
    finally:
        os.close(fd)  # releases the lock


def target_folder(path: PathLike, what: str = "output") -> tuple[Folder, str]:
    """``(folder, name)`` of a file the user named by its path: a symbolic link is followed
    to its target (the user's choice), which must be a regular file or a new path; the folder
    is made when missing."""
    shown = os.fspath(path)
    target = Path(os.path.realpath(shown))
    try:
        kind = kind_of(os.stat(target).st_mode)
    except FileNotFoundError:
        kind = None
    except OSError as err:
        raise ValueError(f"{shown}: cannot use as the {what} file ({_why(err)})") from None
    if kind is not None:
        raise ValueError(f"{shown}: is {kind}; the {what} file must be a regular file or a new path")
    try:
        return open_folder(target.parent, option=f"the folder of {shown}"), target.name
    except FolderError as err:
        raise ValueError(f"{shown}: cannot write the {what} file (its folder {err.why})") from None


def write_file(path: PathLike, data: bytes, what: str = "output") -> Path:
    """Write ``data`` to the file the user named ``path`` atomically (see :func:`target_folder`)."""
    folder, name = target_folder(path, what)
    with folder, TempFile(folder, name, what, shown=os.fspath(path)) as tmp:
        tmp.file.write(data)
    return Path(os.fspath(path))


__all__ = ["Committed", "Folder", "FolderError", "NAME_MAX", "TempFile", "check_name", "locked", "open_folder", "target_folder", "write_file"]

"""What DATScore's seq2seq model returns and keeps: per-token scores of a forced decoding
(:class:`TokenScores`) and the translations cache (:class:`TranslationCache`, in memory and
optionally in sqlite, in a folder opened by the package's one writer,
:mod:`nlgmetrics.core.atomic`)."""
from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nlgmetrics.core import atomic
from nlgmetrics.core.cache import LRUCache

TOKEN_WEIGHTINGS = ("entropy", "uniform")


@dataclass(frozen=True)
class TokenScores:
    """Per scored target token: ``logprobs[t] = log P(y_t | X, y_<t)`` and the entropy of the
    model's output distribution at that step (nats, over the full vocabulary)."""

    logprobs: np.ndarray
    entropies: np.ndarray

    def mean(self, weighting: str = "uniform") -> float:
        """Weighted mean log-probability ``sum_t w_t log p_t / sum_t w_t``.

        ``uniform``: w_t = 1 (BARTScore's mean). ``entropy``: w_t = the step's entropy
        (DATScore Eq. 4); when every entropy is 0 the uniform mean is returned.
        """
        if weighting not in TOKEN_WEIGHTINGS:
            raise ValueError(f"token weighting must be one of {TOKEN_WEIGHTINGS}, got {weighting!r}")
        lp = self.logprobs.astype(np.float64)
        if weighting == "entropy":
            w = self.entropies.astype(np.float64)
            total = float(w.sum())
            if total > 0:
                return float((w * lp).sum() / total)
        return float(lp.mean())


class TranslationCache:
    """Translations keyed by (model identity, languages, decoding options, text): a bounded
    LRU cache in memory (``max_entries`` translations, about ``max_bytes``), backed by
    ``<cache_dir>/translations.sqlite`` when a directory is given (made when missing). A
    ``cache_dir`` that is a file, a cache file that is a link or not a regular file, or one
    that is not a translations cache (a damaged or foreign file) is a ``ValueError`` naming
    ``cache_dir`` and the file, here or on first use."""

    #: the cache's file in ``cache_dir`` and the files SQLite keeps beside it
    FILE = "translations.sqlite"
    _SIDE_FILES = ("-journal", "-wal", "-shm")

    def __init__(self, cache_dir: str | Path | None = None, *, max_entries: int = 100_000,
                 max_bytes: int = 128 * 2**20) -> None:
        self._memory: LRUCache[str, str] = LRUCache(max_entries, max_bytes)
        self.path: Path | None = None
        self._where = ""
        if cache_dir is not None:
            if not str(cache_dir).strip():  # "" would mean the working directory; an explicit "." still does
                raise ValueError(f"cache_dir must be None (memory only) or a directory, got {cache_dir!r}")
            directory = Path(cache_dir).expanduser()
            with atomic.open_folder(directory, option="cache_dir") as folder:
                for name in (self.FILE, *(self.FILE + side for side in self._SIDE_FILES)):
                    folder.kind(name, f"cache_dir {cache_dir}: {folder.path(name)}", "translations cache")
            self.path = directory / self.FILE
            self._where = f"cache_dir {cache_dir}: {self.path}"
            with self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS translations (key TEXT PRIMARY KEY, text TEXT NOT NULL)")
                columns = [row[1] for row in db.execute("PRAGMA table_info(translations)")]
                if columns != ["key", "text"]:
                    raise ValueError(f"{self._where} is not a translations cache (its table 'translations' has the "
                                     f"columns {columns}); delete the file or choose another cache_dir")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection that commits (or rolls back) and closes at the end of the block; an
        SQLite error (a damaged file, a full disk) names ``cache_dir`` and the file."""
        try:
            db = sqlite3.connect(str(self.path), timeout=60)
            try:
                with db:
                    yield db
            finally:
                db.close()
        except sqlite3.OperationalError as err:  # locked past the timeout, read-only, a full disk
            raise ValueError(f"{self._where}: cannot use the translations cache ({err})") from None
        except sqlite3.DatabaseError as err:  # not an SQLite file, or a damaged one
            raise ValueError(f"{self._where} is not a usable translations cache ({err}); delete the file or "
                             "choose another cache_dir") from None

    @staticmethod
    def key(*parts: object) -> str:
        return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        """The cached translations among ``keys`` (memory first, then disk)."""
        found: dict[str, str] = {}
        for k in keys:
            text = self._memory.get(k)
            if text is not None:
                found[k] = text
        missing = [k for k in keys if k not in found]
        if missing and self.path is not None:
            with self._connect() as db:
                for start in range(0, len(missing), 500):
                    chunk = missing[start:start + 500]
                    rows = db.execute(f"SELECT key, text FROM translations WHERE key IN ({','.join('?' * len(chunk))})",
                                      chunk).fetchall()
                    found.update(rows)
            for k in missing:
                if k in found:
                    self._memory[k] = found[k]
        return found

    def put_many(self, items: dict[str, str]) -> None:
        for k, text in items.items():
            self._memory[k] = text
        if self.path is not None and items:
            with self._connect() as db:
                db.executemany("INSERT OR REPLACE INTO translations (key, text) VALUES (?, ?)", list(items.items()))

    def __len__(self) -> int:
        return len(self._memory)

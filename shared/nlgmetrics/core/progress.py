"""Progress bars on long work (tqdm, to stderr), silenced by ``quiet``."""
from __future__ import annotations

import sys
from typing import Iterable, Optional, TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")


def progress(iterable: Iterable[T], *, total: Optional[int] = None, desc: str = "",
             quiet: bool = False, min_items: int = 2) -> Iterable[T]:
    """Wrap ``iterable`` in a tqdm bar unless ``quiet`` or the work is tiny (fewer than
    ``min_items`` steps; ``total`` defaults to ``len(iterable)`` when it has one)."""
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    if quiet or (total is not None and total < min_items):
        return iterable
    return tqdm(iterable, total=total, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True)

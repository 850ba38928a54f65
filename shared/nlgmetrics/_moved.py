"""Modules that moved in 0.2.0: importing an old name raises ``ModuleNotFoundError`` naming the
new place (for one release; listed in CHANGELOG.md)."""
from __future__ import annotations

import importlib.abc
import sys
from typing import Any, Optional, Sequence

#: old module -> where its contents live now
MOVED = {
    "nlgmetrics.core.base": "nlgmetrics.core.inputs (text checks, Inputs) and nlgmetrics.core.scorer (Scorer)",
    "nlgmetrics.core.seq2seq": "nlgmetrics.datscore.seq2seq",
    "nlgmetrics.core.tree_kernels": "nlgmetrics.discotk.kernels",
    "nlgmetrics.core.tree_edit": "nlgmetrics.rome.tree_edit",
    "nlgmetrics.discourse": "nlgmetrics.discotk.discourse",
    "nlgmetrics.sentiment": "nlgmetrics.sam.lexicon (lexicons) and nlgmetrics.sam.tagger (items, lookup tagger)",
    "nlgmetrics.trainer": "nlgmetrics.integrations.transformers (nlgmetrics.compute_metrics_fn is unchanged)",
    "nlgmetrics.evaluate_support": "nlgmetrics.integrations.evaluate",
    "nlgmetrics.distributed": "nlgmetrics.integrations.distributed (records files: nlgmetrics.integrations.records)",
    "nlgmetrics.files": "nlgmetrics.core.files",
    "nlgmetrics.cards": "nlgmetrics.cli.cards",
    "nlgmetrics.rome.fitting": "nlgmetrics.rome.fit",
    "nlgmetrics.spaces_support": "nlgmetrics.space",
    "nlgmetrics.training": "shared/tools/training in a checkout (not installed)",
    "nlgmetrics.publish": "shared/tools/publish.py in a checkout (not installed)",
}


def moved_to(name: str) -> Optional[str]:
    """Where an old module name lives now (its package's entry for a submodule), else None."""
    for old in sorted(MOVED, key=len, reverse=True):
        if name == old or name.startswith(old + "."):
            return MOVED[old]
    return None


class MovedFinder(importlib.abc.MetaPathFinder):
    """Refuses an old module name with an error that names its new place."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None, target: Any = None) -> None:
        where = moved_to(fullname)
        if where is not None:
            raise ModuleNotFoundError(f"{fullname} moved in nlgmetrics 0.2.0: use {where}", name=fullname)
        return None


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())

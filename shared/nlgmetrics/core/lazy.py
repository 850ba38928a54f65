"""Lazy package exports (PEP 562): a metric package's ``__init__`` names what it exports and
the submodule each name lives in; a name's submodule is imported when the name is first used,
so ``import nlgmetrics.rome`` (and the command line's ``list`` and ``--help``, which read
configurations only) loads no model library. ``from nlgmetrics.rome import RoMe``, ``__all__``,
``dir()`` and ``from nlgmetrics.rome import *`` work as with eager imports.

A package declares its exports once::

    _EXPORTS = LazyExports(__name__, {".config": ("RoMeConfig",), ".scorer": ("RoMe",)})
    __all__ = _EXPORTS.names


    def __getattr__(name: str) -> Any:
        return _EXPORTS.attribute(name)


    def __dir__() -> list:
        return _EXPORTS.dir()

A name may be exported under another: ``"g2_neg_log_p as neg_log_p"``. A name that is also the
name of one of the package's submodules (SAM's ``adjust``) is bound when the package is
imported: the import system sets a package attribute to the submodule when that is first
imported, and would then hide the lazily exported name.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any, Dict, List, Mapping, Sequence, Tuple


class LazyExports:
    """The exports of package ``package``: ``{module: names}``, each module absolute or
    relative to the package (``.config``, ``..core.stats``)."""

    def __init__(self, package: str, exports: Mapping[str, Sequence[str]]) -> None:
        self.package = package
        self.where: Dict[str, Tuple[str, str]] = {}  # exported name -> (absolute module, attribute)
        for module, names in exports.items():
            absolute = importlib.util.resolve_name(module, package) if module.startswith(".") else module
            for spec in names:
                attr, _, alias = (part.strip() for part in spec.partition(" as "))
                name = alias or attr
                if name in self.where:
                    raise ValueError(f"{package} exports {name!r} twice")
                self.where[name] = (absolute, attr)
        self.names: List[str] = list(self.where)
        modules = {module for module, _ in self.where.values()}
        for name in self.names:
            if f"{package}.{name}" in modules:
                self.attribute(name)  # a name that is also a submodule's: bound now (see the module's doc)

    def attribute(self, name: str) -> Any:
        """The exported ``name`` (its module imported now if need be), kept on the package so
        that the next use is a plain attribute lookup; ``AttributeError`` for any other name."""
        if name not in self.where:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        module, attr = self.where[name]
        value = getattr(importlib.import_module(module), attr)
        setattr(sys.modules[self.package], name, value)
        return value

    def dir(self) -> List[str]:
        """What ``dir(package)`` lists: the names bound so far and every export."""
        return sorted(set(vars(sys.modules[self.package])) | set(self.names))


__all__ = ["LazyExports"]

"""The metric packages export lazily (nlgmetrics.core.lazy): every name of a package's
``__all__`` resolves to the object of the module it is declared in, ``dir()`` lists it, the
``if TYPE_CHECKING:`` imports (what type checkers read) name the same exports, and no name is
hidden by a submodule of the same name; so the lazy mapping cannot go stale."""
from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
import types

import pytest

from nlgmetrics.core.lazy import LazyExports
from nlgmetrics.registry import REGISTRY

METRICS = tuple(REGISTRY)  # the metrics, by the registry alone
HEAVY = ("torch", "transformers", "spacy", "thinc", "scipy.stats")


def _type_checking_exports(package: types.ModuleType) -> dict:
    """exported name -> (module, attribute) of the package's ``if TYPE_CHECKING:`` imports."""
    tree = ast.parse(inspect.getsource(package))
    out = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom)
                module = importlib.util.resolve_name("." * stmt.level + (stmt.module or ""), package.__name__)
                out.update({a.asname or a.name: (module, a.name) for a in stmt.names})
    return out


@pytest.mark.parametrize("name", METRICS)
def test_every_export_resolves_and_is_listed(name):
    package = importlib.import_module(f"nlgmetrics.{name}")
    declared = _type_checking_exports(package)
    assert sorted(package.__all__) == sorted(declared) and len(set(package.__all__)) == len(package.__all__)
    for submodule in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        importlib.import_module(submodule.name)  # a submodule imported first must hide no export
    listed = dir(package)
    for export in package.__all__:
        module, attribute = declared[export]
        value = getattr(package, export)
        assert value is getattr(importlib.import_module(module), attribute), export
        assert not isinstance(value, types.ModuleType), export
        assert export in listed
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        package.no_such_name  # noqa: B018


@pytest.mark.parametrize("name", METRICS)
def test_importing_a_package_runs_no_scorer_and_a_star_import_binds_every_export(name):
    probe = (f"import json, sys, nlgmetrics.{name} as package\n"
             f"print(json.dumps(sorted(m for m in sys.modules if m.endswith('.scorer') or m in {HEAVY!r})))\n"
             f"from nlgmetrics.{name} import *\n"
             f"print(json.dumps([n for n in package.__all__ if globals().get(n) is not getattr(package, n)]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.splitlines()
    assert json.loads(out[0]) == [] and json.loads(out[1]) == []


def test_aliases_duplicates_and_unknown_names(monkeypatch):
    monkeypatch.setitem(sys.modules, "lazy_probe", types.ModuleType("lazy_probe"))
    lazy = LazyExports("lazy_probe", {"nlgmetrics.core.budget": ("TOKENS", "Budget as WorkBudget")})
    assert lazy.names == ["TOKENS", "WorkBudget"] and sorted(lazy.dir()) == lazy.dir()
    from nlgmetrics.core.budget import Budget

    assert lazy.attribute("WorkBudget") is Budget and sys.modules["lazy_probe"].WorkBudget is Budget  # kept
    with pytest.raises(AttributeError, match="'lazy_probe' has no attribute 'Budget'"):
        lazy.attribute("Budget")
    with pytest.raises(ValueError, match="exports 'TOKENS' twice"):
        LazyExports("lazy_probe", {"nlgmetrics.core.budget": ("TOKENS",), "nlgmetrics.core.lexical": ("sentence_bleu as TOKENS",)})

"""The package's layers only point down, and no import cycle: every import of
``shared/nlgmetrics`` (read with ``ast``, imports inside functions included; ``if TYPE_CHECKING:``
blocks left out, they never run) is checked. Layers, lowest first: core (what two metrics
share, shipped data); the five metric packages and ``meta`` (evaluating metrics: correlations,
significance between metrics, EvalSets), beside each other; the API (``nlgmetrics.registry``: the registry,
``load``, ``score``..., which reaches metrics by name only); the surfaces (cli, space,
integrations, the evaluate modules), which import the API from the registry module; the
package root on top, which only re-exports (the API and the Trainer hook). No upward import is
allowed. Also: the five metric packages have the same shape."""
from __future__ import annotations

import ast
from pathlib import Path

from nlgmetrics.registry import REGISTRY

PACKAGE = Path(__file__).resolve().parents[2] / "shared" / "nlgmetrics"
METRICS = tuple(REGISTRY)  # the metrics, by the registry alone
LAYERS = {"core": 0, "data": 0, **{m: 1 for m in METRICS}, "meta": 1, "baselines": 1, "registry": 2, "workbench": 2,
          "cli": 3, "space": 3, "integrations": 3, "evaluate_modules": 3}
ROOT = 4  # the package root: re-exports only; nothing in the package imports it
#: upward imports that are by design, with the reason (none)
ALLOWED: dict = {}
#: (lead: fix at merge) upward imports in files other helpers own in this round
PENDING: set = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}
# nlgmetrics.evaluate_modules is metrics/ (setup.cfg's package_dir; in a clean checkout there is
# no folder of that name under shared/nlgmetrics): the wrappers count too, under that name
WRAPPERS = PACKAGE.parents[1] / "metrics"
MODULES.update({".".join(["nlgmetrics", "evaluate_modules", *p.relative_to(WRAPPERS).with_suffix("").parts])
                .removesuffix(".__init__"): p for p in WRAPPERS.glob("**/*.py")})


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skip


def _known(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str) -> set[str]:
    """The package modules ``module`` imports (a ``from package import name`` counts as the
    submodule when ``name`` is one)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_only(tree)
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {k for a in node.names if (k := _known(a.name))}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                base = ".".join(pkg[:len(pkg) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if (k := _known(full if full in MODULES else base)):
                    out.add(k)
    out.discard(module)
    return out


GRAPH = {m: imports(m) for m in MODULES}


def layer(module: str) -> int:
    parts = module.split(".")
    return ROOT if len(parts) == 1 else LAYERS[parts[1]]


def test_every_module_has_a_layer():
    assert {m.split(".")[1] for m in MODULES if "." in m} <= set(LAYERS)


def test_nothing_in_the_package_imports_its_root():
    assert {a for a, targets in GRAPH.items() if "nlgmetrics" in targets} == set()


def test_imports_point_down():
    upward = {(a, b) for a, targets in GRAPH.items() for b in targets if layer(b) > layer(a)}
    assert upward - set(ALLOWED) - PENDING == set()
    assert PENDING <= upward, "a PENDING entry is fixed: remove it from the set"


def test_no_import_cycle():
    graph = {a: {b for b in targets if (a, b) not in ALLOWED} for a, targets in GRAPH.items()}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_the_walker_sees_imports_inside_functions():
    assert "nlgmetrics.integrations.transformers" in GRAPH["nlgmetrics"]  # compute_metrics_fn's
    assert "nlgmetrics.rome.scorer" not in GRAPH["nlgmetrics.rome.fit"]  # TYPE_CHECKING only


def test_the_metric_packages_have_the_same_shape():
    shape = {"__init__.py", "config.py", "scorer.py", "explain.py"}
    for metric in METRICS:
        files = {p.name for p in (PACKAGE / metric).glob("*.py")}
        assert shape <= files, f"{metric} lacks {sorted(shape - files)}"


def test_meta_and_the_metrics_do_not_import_each_other():
    """``meta`` sits beside the metric packages: it evaluates any metric's scores and imports
    none of them, and no metric imports it (core imports neither: layers point down)."""
    def package(module: str) -> str:
        return module.split(".")[1] if "." in module else ""

    crossing = {(a, b) for a, targets in GRAPH.items() for b in targets
                if {package(a), package(b)} & {"meta"} and {package(a), package(b)} & set(METRICS)}
    assert crossing == set()
    assert "nlgmetrics.meta.mtme" in MODULES and "nlgmetrics.meta.meta_eval" in GRAPH["nlgmetrics.registry"]

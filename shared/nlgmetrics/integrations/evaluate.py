"""What the thin ``evaluate.Metric`` wrappers in ``metrics/<name>/<name>.py`` share: the base
class :class:`Metric` (named configurations checked, inputs checked before evaluate turns them
into Arrow columns, per-call inputs passed to the core scorer), the argument documentation
generated from the metric's configuration and ``_compute``'s signature (every option by name).
``evaluate.load("<name>")`` offline: :mod:`nlgmetrics.integrations.evaluate_install`.

The wrappers import this *module* (``from nlgmetrics.integrations import evaluate as support``),
never the class itself: evaluate takes the first ``evaluate.Metric`` subclass it finds in a
script's namespace as the metric, which must be the wrapper's own class.
"""
from __future__ import annotations

import inspect
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import datasets
import evaluate

from nlgmetrics import registry
from nlgmetrics.core.call import Call, resolve, split
from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import validate_texts

TEXT = datasets.Value("string")
#: the owner under which the publish step puts the modules on the Hub (``nlgmetrics/<name>``)
HUB_OWNER = "nlgmetrics"
RETURN_DETAILS_DOC = "also return per-segment details and corpus information"


def features(*, sources: bool = False, multi_reference: bool = False,
             extras: Sequence[str] = ()) -> datasets.Features:
    """``predictions`` and ``references`` (a string, or a list of strings with
    ``multi_reference``), plus ``sources`` and per-segment float ``extras`` when a
    configuration takes them as columns."""
    fields: dict[str, Any] = {"predictions": TEXT,
                              "references": datasets.Sequence(TEXT) if multi_reference else TEXT}
    if sources:
        fields["sources"] = TEXT
    for name in extras:
        fields[name] = datasets.Value("float64")
    return datasets.Features(fields)


def metric_info(*, description: str, citation: str, inputs_description: str,
                features: Any, reference_urls: list[str] | None = None) -> evaluate.MetricInfo:
    return evaluate.MetricInfo(
        description=description,
        citation=citation,
        inputs_description=inputs_description,
        features=features,
        homepage="https://pypi.org/project/nlgmetrics/",
        codebase_urls=[],
        reference_urls=reference_urls or [],
    )


def config_options(name: str, config_name: str | None, configs: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The options a named configuration presets; an unknown name is an error listing the
    configurations (never a silent fall-back to the default). The preset is checked against
    the metric's configuration, so a renamed option cannot hide in a wrapper."""
    key = config_name or "default"
    if key not in configs:
        raise ValueError(f"unknown configuration {key!r} for {name}; the configurations are: "
                         f"{', '.join(configs)}")
    options = dict(configs[key])
    registry.scorer_class(name).Config.from_options(**options)
    return options


def kwargs_doc(config: type[MetricConfig], indent: str = "    ") -> str:
    """The wrapper's ``Args`` lines for the options, one per configuration field."""
    lines = []
    for s in config.specs():
        extra = s.describe_range()
        extra = f"; {extra}" if extra else ""
        lines.append(f"{indent}{s.name} ({s.type_name()}, default {s.default_text()}{extra}): {s.doc}")
    return "\n".join(lines)


def kwargs_description(name: str, *, inputs: str, returns: str, examples: str,
                       configs: Mapping[str, Mapping[str, Any]]) -> str:
    """The wrapper's ``_KWARGS_DESCRIPTION``: the hand-written ``inputs`` lines, then the
    per-segment inputs, every configuration field (generated from the metric's ``Config``) and
    the named configurations, then ``returns`` and the doctest ``examples``."""
    cls = registry.scorer_class(name)
    lines = ["", "Args:", inputs.rstrip("\n")]
    for extra, doc in cls.extra_inputs.items():
        lines.append(f"    {extra} (list of float, optional): {doc}")
    lines.append(f"    return_details (bool, default False): {RETURN_DETAILS_DOC}.")
    lines.append("Options (keyword arguments of compute, or of evaluate.load(path, config_name, **options) "
                 "on top of the configuration's preset; a configuration name presets some):")
    lines.append(kwargs_doc(cls.Config))
    lines.append("Configurations (evaluate.load(path, config_name)):")
    for cname, preset in configs.items():
        text = ", ".join(f"{k}={v!r}" for k, v in preset.items()) or "the defaults"
        lines.append(f"    {cname}: {text}")
    lines += ["Returns:", returns.rstrip("\n"), "Examples:", examples.rstrip("\n"), ""]
    return "\n".join(lines)


def check_batch(name: str, multi_reference: bool, **columns: Any) -> dict[str, Any]:
    """The core's text checks on raw ``add_batch`` / ``compute`` columns, before evaluate
    encodes them: a bare string (which evaluate would split into characters), ``None`` or a
    non-string item gives the core's ``ValueError``. Returns the columns as the core would
    score them, so evaluate stores those and not the originals: every text normalised
    (:func:`~nlgmetrics.core.inputs.normalize_text`: a lone surrogate, which Arrow cannot encode,
    becomes U+FFFD) and, with ``multi_reference``, every reference a list (a string is one
    reference, as in the core), so a batch mixing strings and lists, or batches of different
    shapes, fit the one ``Sequence`` feature. ``None`` columns and other columns (per-segment
    inputs) come back unchanged."""
    out = dict(columns)
    for field in ("predictions", "references", "sources"):
        value = columns.get(field)
        if value is not None:
            multi = multi_reference and field == "references"
            texts = validate_texts(value, field, multi=multi)
            out[field] = [[t] if isinstance(t, str) else t for t in texts] if multi else texts
    return out


#: the keyword arguments evaluate's own ``EvaluationModule.__init__`` takes (cache_dir, ...)
_EVALUATE_INIT = frozenset(inspect.signature(evaluate.EvaluationModule.__init__).parameters) - {"self", "kwargs"}


class Metric(evaluate.Metric):
    """Base of the wrappers. A wrapper sets ``metric_name``, ``CONFIGS`` (name -> preset
    options, ``default`` first), ``DESCRIPTION``, ``CITATION``, ``KWARGS_DESCRIPTION`` and
    ``REFERENCE_URLS``; it overrides :meth:`_features` when a configuration changes the
    columns.

    Options given to ``evaluate.load(path, config_name, **options)`` apply on top of the
    configuration's preset (evaluate itself would drop them) and are checked there; per-segment
    inputs (``extra_inputs``) are refused at load, they belong to ``compute``/``add_batch``.
    The module's ``name`` is the metric's name (``rome``, not evaluate's ``ro_me``)."""

    metric_name: ClassVar[str] = ""
    CONFIGS: ClassVar[Mapping[str, Mapping[str, Any]]] = {"default": {}}
    DESCRIPTION: ClassVar[str] = ""
    CITATION: ClassVar[str] = ""
    KWARGS_DESCRIPTION: ClassVar[str] = ""
    REFERENCE_URLS: ClassVar[Sequence[str]] = ()

    def __init__(self, config_name: str | None = None, **kwargs: Any) -> None:
        cls = registry.scorer_class(self.metric_name)
        for name in sorted(k for k in _EVALUATE_INIT & set(cls.Config.names()) if kwargs.get(k) is not None):
            # evaluate takes it as its own argument (cache_dir: its Arrow data directory)
            warnings.warn(f"{name} given to evaluate.load is evaluate's own argument and does not reach "
                          f"{self.metric_name}'s option of the same name; pass {name} to compute(...) for that",
                          stacklevel=3)
        own = {k: v for k, v in kwargs.items() if k in _EVALUATE_INIT}
        options = {k: v for k, v in kwargs.items() if k not in _EVALUATE_INIT}
        self.load_quiet = options.pop("quiet", None)
        options, extras = split(cls, options)
        if extras:
            raise ValueError(f"{', '.join(sorted(extras))} {'is a' if len(extras) == 1 else 'are'} per-segment "
                             f"input{'s' if len(extras) > 1 else ''}: pass {'it' if len(extras) == 1 else 'them'} "
                             "to compute(...) or add_batch(...), not to evaluate.load")
        self.load_options = options
        super().__init__(config_name, **own)
        # evaluate names a module after its class in snake case ("RoMe" -> "ro_me"); the name
        # is the metric's (the Trainer hook's key, evaluate.combine's "<name>_score")
        self._module_info.module_name = self.metric_name

    def _info(self) -> evaluate.MetricInfo:
        preset = config_options(self.metric_name, self.config_name, self.CONFIGS)
        load_options = getattr(self, "load_options", {})
        if load_options:
            preset.update(load_options)
            registry.scorer_class(self.metric_name).Config.from_options(**preset)
        self.preset = preset
        return metric_info(description=self.DESCRIPTION, citation=self.CITATION,
                           inputs_description=self.KWARGS_DESCRIPTION,
                           features=self._features(self.preset), reference_urls=list(self.REFERENCE_URLS))

    def _features(self, preset: Mapping[str, Any]) -> Any:
        cls = registry.scorer_class(self.metric_name)
        return features(multi_reference=cls.multi_reference, sources=cls.sources_mode == "required")

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch of predictions and references (checked and normalised as the core
        does: lists of strings, never a bare string; see :func:`check_batch`). ``compute``
        with inputs goes through here too.
        """
        self._check_missing({"predictions": predictions, "references": references, **kwargs},
                            "{field} is None but {given} is given; pass {field} too, one item per prediction")
        cls = registry.scorer_class(self.metric_name)
        super().add_batch(**check_batch(self.metric_name, cls.multi_reference, predictions=predictions,
                                        references=references, **kwargs))

    def _check_missing(self, batch: Mapping[str, Any], message: str) -> None:
        """``ValueError`` naming the first text column this module takes that is ``None``
        while another is given (evaluate would fail inside Arrow, or with its format message)."""
        fields = [f for f in ("predictions", "references", "sources") if f in self._feature_names()]
        given = [f for f in fields if batch.get(f) is not None]
        missing = [f for f in fields if batch.get(f) is None]
        if given and missing:
            raise ValueError(message.format(field=missing[0], one=missing[0][:-1] if missing[0] != "sources" else "source",
                                            given=given[0]))

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one prediction and its reference(s), checked and normalised as in
        :meth:`add_batch`."""
        # evaluate.combine(...).add passes the plural column names as keywords
        prediction = kwargs.pop("predictions") if prediction is None and "predictions" in kwargs else prediction
        reference = kwargs.pop("references") if reference is None and "references" in kwargs else reference
        cls = registry.scorer_class(self.metric_name)
        given = {"predictions": prediction, "references": reference, "sources": kwargs.get("sources")}
        self._check_missing(given, "{one} is None; pass an empty string for an empty text")
        checked = check_batch(self.metric_name, cls.multi_reference,
                              **{field: None if value is None else [value] for field, value in given.items()})
        one = {field: None if value is None else value[0] for field, value in checked.items()}
        if "sources" in kwargs:
            kwargs["sources"] = one["sources"]
        super().add(prediction=one["predictions"], reference=one["references"], **kwargs)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """evaluate's ``compute``, after the options and per-segment inputs are checked: evaluate
        drops the added batches before ``_compute`` runs, so an error there would lose them."""
        self.check_call(predictions, kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def checked_call(self, kwargs: Mapping[str, Any]) -> tuple[Call, dict[str, Any]]:
        """A ``compute`` call with keyword arguments ``kwargs`` resolved by the core's one front
        door (:func:`nlgmetrics.core.call.resolve`: options on top of the preset, the metric's
        rule for per-segment inputs, every option checked), and the call's per-segment inputs
        given as columns. ``ValueError`` for a bad option."""
        cls = registry.scorer_class(self.metric_name)
        columns = set(self._feature_names())
        given = {k: v for k, v in kwargs.items() if k not in columns and k not in ("return_details", "quiet")}
        column_extras = {k: kwargs.get(k) for k in columns if k in cls.extra_inputs}
        return resolve(cls, given, preset=self.preset, extra_names=list(column_extras)), column_extras

    def check_call(self, predictions: Any, kwargs: Mapping[str, Any]) -> None:
        """Options (on top of the preset) and per-segment inputs of a ``compute`` call checked as
        the core will: unknown or bad options, missing or unexpected per-segment inputs, their
        length and values. ``ValueError`` if not. The resolved call is kept for ``_compute``
        (resolved once per call)."""
        cls = registry.scorer_class(self.metric_name)
        call, _ = self.checked_call(kwargs)
        added = len(self.writer) if self.writer is not None else 0
        n: int | None = added
        if predictions is not None:  # a bare string is refused later, by add_batch
            n = added + len(predictions) if isinstance(predictions, (list, tuple)) else None
        for name, values in call.extras.items():
            if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
                raise ValueError(f"{name} must be a list of numbers, one per prediction")
            if n is not None and len(values) != n:
                raise ValueError(f"{name} has {len(values)} items but predictions has {n}")
            for i, value in enumerate(values):
                cls.check_extra_value(call.config, name, value, f"{name}[{i}]")
        self._call = call

    def _compute(self, predictions: Any, references: Any = None, sources: Any = None,
                 return_details: bool = False, **kwargs: Any) -> dict[str, Any]:
        # the signature evaluate and its harness read is generated per metric (__init_subclass__):
        # each option of the Config by name; anything else is refused here, as Python would
        accepted = self.__class__.accepted_keywords()
        unknown = sorted(k for k in kwargs if k not in accepted)
        if unknown:
            raise TypeError(f"_compute() got an unexpected keyword argument {unknown[0]!r}")
        quiet = kwargs.pop("quiet", None)
        quiet = getattr(self, "load_quiet", None) if quiet is None else quiet
        cls = registry.scorer_class(self.metric_name)
        keywords = {k: v for k, v in kwargs.items() if v is not PRESET}
        call = self.__dict__.pop("_call", None)  # resolved by compute's check_call
        if call is None:  # _compute called directly
            call = resolve(cls, keywords, preset=self.preset)
        extras = {k: list(v) for k, v in keywords.items() if k in cls.extra_inputs and v is not None}
        scorer = registry.load(self.metric_name, call.config, quiet=quiet)
        result = scorer.score(list(predictions), None if references is None else list(references),
                              None if sources is None else list(sources), **extras)
        out: dict[str, Any] = {"score": result.score, "scores": result.scores, "signature": result.signature}
        if return_details:
            out["details"] = result.details
            out["corpus"] = result.corpus
        return out

    @classmethod
    def accepted_keywords(cls) -> frozenset[str]:
        """The keywords ``_compute`` takes besides the texts and ``return_details``: ``quiet``,
        the metric's per-segment inputs and every option of its configuration."""
        scorer = registry.scorer_class(cls.metric_name)
        return frozenset(["quiet", *scorer.extra_inputs, *scorer.Config.names()])

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.metric_name:
            cls._compute = _with_signature(cls._compute, compute_signature(cls.metric_name))  # type: ignore[method-assign]


class _Preset:
    """The default of every option in ``_compute``'s signature: the loaded configuration's value."""

    def __repr__(self) -> str:
        return "<preset>"


PRESET: Any = _Preset()


def compute_signature(name: str) -> inspect.Signature:
    """``_compute``'s signature for metric ``name``, as evaluate's conventions want it (no
    ``**kwargs``): the texts, ``return_details``, ``quiet``, the per-segment inputs and each
    configuration option by name, keyword-only, defaulting to the loaded configuration's value."""
    scorer = registry.scorer_class(name)
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("self", kind), inspect.Parameter("predictions", kind),
              inspect.Parameter("references", kind, default=None), inspect.Parameter("sources", kind, default=None),
              inspect.Parameter("return_details", kind, default=False)]
    keyword = inspect.Parameter.KEYWORD_ONLY
    params.append(inspect.Parameter("quiet", keyword, default=None))
    params += [inspect.Parameter(extra, keyword, default=None) for extra in scorer.extra_inputs]
    params += [inspect.Parameter(option, keyword, default=PRESET) for option in scorer.Config.names()]
    return inspect.Signature(params, return_annotation=dict)


def _with_signature(function: Any, signature: inspect.Signature) -> Any:
    """A copy of ``function`` whose ``inspect.signature`` is ``signature``."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = function.__name__, function.__qualname__, function.__doc__
    wrapper.__signature__ = signature  # type: ignore[attr-defined]
    return wrapper

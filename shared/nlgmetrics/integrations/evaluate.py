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
from typing import TYPE_CHECKING, Any, ClassVar

import datasets
import evaluate

from nlgmetrics import registry
from nlgmetrics.core.call import Call, split
from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import ordered_values, validate_texts

if TYPE_CHECKING:
    from nlgmetrics.core.scorer import Scorer

TEXT = datasets.Value("string")
#: the owner under which the publish step puts the modules on the Hub (``nlgmetrics/<name>``)
HUB_OWNER = "nlgmetrics"
RETURN_DETAILS_DOC = "also return per-segment details and corpus information"
NUMBERS_ONLY_DOC = ("return the corpus score alone ({'score': ...}: no per-segment list, no signature), the "
                    "numbers evaluate's Evaluator can bootstrap (strategy='bootstrap'); at load or per call")


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


def config_options(name: str, config_name: str | None, configs: Mapping[str, Mapping[str, Any]], *,
                   options: Mapping[str, Any] | None = None, scorer: type[Scorer] | None = None) -> dict[str, Any]:
    """The options a named configuration presets, with ``options`` (given at load) on top; an
    unknown name is an error listing the configurations (never a silent fall-back to the
    default). They are checked against the metric's configuration (``scorer``'s, else looked
    up by ``name``), so a renamed option cannot hide in a wrapper."""
    key = config_name or "default"
    if key not in configs:
        raise ValueError(f"unknown configuration {key!r} for {name}; the configurations are: "
                         f"{', '.join(configs)}")
    preset = {**configs[key], **(options or {})}
    (scorer or registry.scorer_class(name)).Config.from_options(**preset)
    return preset


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
    lines.append(f"    numbers_only (bool, default False): {NUMBERS_ONLY_DOC}.")
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
#: the run-time switches a module takes at load and per ``compute`` call (no configuration options)
SWITCHES = ("quiet", "numbers_only")
#: ``_compute``'s keywords that no option of a metric may be named after
RESERVED = frozenset(["predictions", "references", "sources", "return_details", "call", *SWITCHES])


def output_switches(return_details: Any, numbers_only: Any, loaded: bool = False) -> bool:
    """``numbers_only`` (``None``: ``loaded``, the value given at load) checked: a bool, not with
    ``return_details``; ``ValueError`` if not."""
    numbers_only = loaded if numbers_only is None else numbers_only
    if not isinstance(numbers_only, bool):
        raise ValueError(f"numbers_only must be True or False, got {numbers_only!r}")
    if numbers_only and return_details:
        raise ValueError("numbers_only returns the corpus score alone; return_details adds lists: give one of them")
    return numbers_only


class Metric(evaluate.Metric):
    """Base of the wrappers. A wrapper sets ``metric_name``, ``CONFIGS`` (name -> preset
    options, ``default`` first), ``DESCRIPTION``, ``CITATION``, ``KWARGS_DESCRIPTION`` and
    ``REFERENCE_URLS``; it overrides :meth:`_features` when a configuration changes the
    columns.

    Options given to ``evaluate.load(path, config_name, **options)`` apply on top of the
    configuration's preset (evaluate itself would drop them) and are checked there; per-segment
    inputs (``extra_inputs``) are refused at load, they belong to ``compute``/``add_batch``.
    The module's ``name`` is the metric's name (``rome``, not evaluate's ``ro_me``). The metric's
    scorer class is looked up once, here (``scorer_class``); a ``compute`` call is resolved once,
    by the front door (:func:`nlgmetrics.registry.resolve`), and its :class:`Call` goes down to
    ``_compute`` and the scorer as a value."""

    metric_name: ClassVar[str] = ""
    CONFIGS: ClassVar[Mapping[str, Mapping[str, Any]]] = {"default": {}}
    DESCRIPTION: ClassVar[str] = ""
    CITATION: ClassVar[str] = ""
    KWARGS_DESCRIPTION: ClassVar[str] = ""
    REFERENCE_URLS: ClassVar[Sequence[str]] = ()
    #: ``_compute``'s keywords besides the texts and ``return_details`` (set per wrapper class)
    KEYWORDS: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, config_name: str | None = None, **kwargs: Any) -> None:
        self.scorer_class = registry.scorer_class(self.metric_name)
        for name in sorted(k for k in _EVALUATE_INIT & set(self.scorer_class.Config.names()) if kwargs.get(k) is not None):
            # evaluate takes it as its own argument (cache_dir: its Arrow data directory)
            warnings.warn(f"{name} given to evaluate.load is evaluate's own argument and does not reach "
                          f"{self.metric_name}'s option of the same name; pass {name} to compute(...) for that",
                          stacklevel=3)
        own = {k: v for k, v in kwargs.items() if k in _EVALUATE_INIT}
        options = {k: v for k, v in kwargs.items() if k not in _EVALUATE_INIT}
        self.load_quiet = options.pop("quiet", None)
        self.load_numbers_only = output_switches(False, options.pop("numbers_only", False))
        options, extras = split(self.scorer_class, options)
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
        self.preset = config_options(self.metric_name, self.config_name, self.CONFIGS, options=self.load_options,
                                     scorer=self.scorer_class)
        return metric_info(description=self.DESCRIPTION, citation=self.CITATION,
                           inputs_description=self.KWARGS_DESCRIPTION,
                           features=self._features(self.preset), reference_urls=list(self.REFERENCE_URLS))

    def _features(self, preset: Mapping[str, Any]) -> Any:
        return features(multi_reference=self.scorer_class.multi_reference,
                        sources=self.scorer_class.sources_mode == "required")

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch of predictions and references (checked and normalised as the core
        does: lists of strings, never a bare string; see :func:`check_batch`). ``compute``
        with inputs goes through here too.
        """
        self._check_missing({"predictions": predictions, "references": references, **kwargs},
                            "{field} is None but {given} is given; pass {field} too, one item per prediction")
        super().add_batch(**check_batch(self.metric_name, self.scorer_class.multi_reference, predictions=predictions,
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
        given = {"predictions": prediction, "references": reference, "sources": kwargs.get("sources")}
        self._check_missing(given, "{one} is None; pass an empty string for an empty text")
        checked = check_batch(self.metric_name, self.scorer_class.multi_reference,
                              **{field: None if value is None else [value] for field, value in given.items()})
        one = {field: None if value is None else value[0] for field, value in checked.items()}
        if "sources" in kwargs:
            kwargs["sources"] = one["sources"]
        super().add(prediction=one["predictions"], reference=one["references"], **kwargs)

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """evaluate's ``compute`` with the call resolved once, first: the options (on top of the
        preset) and per-segment inputs are checked before evaluate adds the inputs (it drops the
        added batches before ``_compute`` runs, so an error there would lose them), and the
        resolved call reaches ``_compute`` as a value (evaluate forwards every keyword that is no
        column to ``_compute``), with the columns, ``return_details`` and the switches."""
        output_switches(kwargs.get("return_details"), kwargs.get("numbers_only"), self.load_numbers_only)
        resolved = kwargs.pop("call", None)  # a call this module resolved before (the Trainer hook's)
        passed = set(self._feature_names()) | {"return_details", *SWITCHES}
        if resolved is not None and (not isinstance(resolved, Call) or resolved.scorer is not self.scorer_class
                                     or any(k not in passed for k in kwargs)):
            raise TypeError("compute takes call=, a call resolved by this module's checked_call, or options, not both")
        call = self.check_call(predictions, kwargs, resolved)
        forward = {k: v for k, v in kwargs.items() if k in passed}
        return super().compute(predictions=predictions, references=references, **forward, call=call)

    def checked_call(self, kwargs: Mapping[str, Any]) -> tuple[Call, dict[str, Any]]:
        """A ``compute`` call with keyword arguments ``kwargs`` resolved by the one front door
        (:func:`nlgmetrics.registry.resolve`: options on top of the preset, the metric's rule for
        per-segment inputs, every option checked), and the call's per-segment inputs given as
        columns. ``ValueError`` for a bad option."""
        columns = set(self._feature_names())
        given = {k: v for k, v in kwargs.items() if k not in columns and k not in ("return_details", *SWITCHES)}
        column_extras = {k: kwargs.get(k) for k in columns if k in self.scorer_class.extra_inputs}
        call = registry.resolve(self.metric_name, given, preset=self.preset, extra_names=list(column_extras))
        return call, column_extras

    def check_call(self, predictions: Any, kwargs: Mapping[str, Any], call: Call | None = None) -> Call:
        """The call of ``compute(predictions=predictions, **kwargs)``, resolved once
        (:meth:`checked_call`; ``call``: resolved already), its per-segment inputs checked as the
        core will: their length (the items added before and those given) and values.
        ``ValueError`` if not."""
        if call is None:
            call, _ = self.checked_call(kwargs)
        added = len(self.writer) if self.writer is not None else 0
        n: int | None = added
        if predictions is not None:  # a bare string is refused later, by add_batch
            n = added + len(predictions) if isinstance(predictions, (list, tuple)) else None
        for name, given in call.extras.items():
            values = ordered_values(given, name, "numbers", "numbers", n=n)  # the core's rule: a set is refused
            for i, value in enumerate(values):
                self.scorer_class.check_extra_value(call.config, name, value, f"{name}[{i}]")
        return call

    def _compute(self, predictions: Any, references: Any = None, sources: Any = None,
                 return_details: bool = False, **kwargs: Any) -> dict[str, Any]:
        # the signature evaluate and its harness read is generated per metric (__init_subclass__):
        # each option of the Config by name; anything else is refused here, as Python would
        unknown = sorted(k for k in kwargs if k not in self.KEYWORDS)
        if unknown:
            raise TypeError(f"_compute() got an unexpected keyword argument {unknown[0]!r}")
        call = kwargs.pop("call", None)
        quiet = kwargs.pop("quiet", None)
        quiet = self.load_quiet if quiet is None else quiet
        numbers_only = output_switches(return_details, kwargs.pop("numbers_only", None), self.load_numbers_only)
        extras = {k: ordered_values(v, k, "numbers", "numbers") for k, v in kwargs.items()  # the core's rule
                  if k in self.scorer_class.extra_inputs and v is not None}
        options = {k: v for k, v in kwargs.items() if k not in self.scorer_class.extra_inputs and v is not PRESET}
        if call is None:  # _compute called directly: its keywords are the call
            call = registry.resolve(self.metric_name, {**options, **extras}, preset=self.preset)
        elif options or not isinstance(call, Call) or call.scorer is not self.scorer_class:
            raise TypeError("_compute takes the call resolved by compute, or options, not both")
        extras = {**{k: ordered_values(v, k, "numbers", "numbers") for k, v in call.extras.items()},
                  **extras}  # given as keywords, as columns
        result = registry.load_call(call, quiet=quiet).score(
            list(predictions), None if references is None else list(references),
            None if sources is None else list(sources), **extras)
        if numbers_only:
            return {"score": result.score}
        out: dict[str, Any] = {"score": result.score, "scores": result.scores, "signature": result.signature}
        if return_details:
            out["details"] = result.details
            out["corpus"] = result.corpus
        return out

    @classmethod
    def accepted_keywords(cls) -> frozenset[str]:
        """The keywords ``_compute`` takes besides the texts and ``return_details``: ``quiet``,
        ``numbers_only``, the metric's per-segment inputs, every option of its configuration and
        ``call`` (the call ``compute`` resolved)."""
        return cls.KEYWORDS

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.metric_name:
            signature = compute_signature(cls.metric_name)
            cls.KEYWORDS = frozenset(p.name for p in signature.parameters.values() if p.kind == p.KEYWORD_ONLY)
            cls._compute = _with_signature(cls._compute, signature)  # type: ignore[method-assign]


class _Preset:
    """The default of every option in ``_compute``'s signature: the loaded configuration's value."""

    def __repr__(self) -> str:
        return "<preset>"


PRESET: Any = _Preset()


def compute_signature(name: str) -> inspect.Signature:
    """``_compute``'s signature for metric ``name``, as evaluate's conventions want it (no
    ``**kwargs``): the texts, ``return_details``, then keyword-only ``quiet``, ``numbers_only``,
    the per-segment inputs, each configuration option by name (defaulting to the loaded
    configuration's value) and ``call`` (the call ``compute`` resolved; ``None``: resolved from
    the options given). ``TypeError`` for an option or input named like one of the others."""
    scorer = registry.scorer_class(name)
    clash = sorted(RESERVED & {*scorer.extra_inputs, *scorer.Config.names()})
    if clash:
        raise TypeError(f"{name}'s option or input {clash[0]!r} has the name of one of evaluate's compute keywords")
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("self", kind), inspect.Parameter("predictions", kind),
              inspect.Parameter("references", kind, default=None), inspect.Parameter("sources", kind, default=None),
              inspect.Parameter("return_details", kind, default=False)]
    keyword = inspect.Parameter.KEYWORD_ONLY
    params += [inspect.Parameter(switch, keyword, default=None) for switch in SWITCHES]
    params += [inspect.Parameter(extra, keyword, default=None) for extra in scorer.extra_inputs]
    params += [inspect.Parameter(option, keyword, default=PRESET) for option in scorer.Config.names()]
    params.append(inspect.Parameter("call", keyword, default=None))
    return inspect.Signature(params, return_annotation=dict)


def _with_signature(function: Any, signature: inspect.Signature) -> Any:
    """A copy of ``function`` whose ``inspect.signature`` is ``signature``."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = function.__name__, function.__qualname__, function.__doc__
    wrapper.__signature__ = signature  # type: ignore[attr-defined]
    return wrapper

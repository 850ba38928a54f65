"""The Scorer template every metric fills: validate -> ``score_segments`` (per segment,
shardable) -> ``reduce_records`` (the corpus steps); input rules are in :mod:`.inputs`."""
from __future__ import annotations

import abc
from typing import Any, Callable, ClassVar, Collection, Dict, List, Mapping, Optional, Sequence, Tuple, Type

from .budget import Budget, apply_budget
from .call import config_of
from .config import MetricConfig
from .facts import HigherIsBetter
from .inputs import (
    PYTHON_SYNTAX,
    ArgumentSyntax,
    Inputs,
    Record,
    sort_records,  # noqa: F401 (re-exported: nlgmetrics.core.scorer.sort_records)
    validate_inputs,
)
from .record_fields import Field
from .result import MetricResult, make_signature
from .version import __version__


class Scorer(abc.ABC):
    """Base of every metric: ``score`` = validate -> ``score_segments`` -> ``reduce``.

    A metric sets ``name``, ``Config`` (its :class:`~nlgmetrics.core.config.MetricConfig`) and
    the input modes, builds its models in :meth:`setup`, and fills two hooks:
    ``score_segments`` returns one JSON-serialisable record per segment (with its ``id``), and
    ``reduce_records`` turns the gathered records into a :class:`MetricResult`. The template
    methods ``score`` and ``reduce`` are not overridden: ``reduce`` sorts the records (shards
    arrive in any order), refuses duplicates and then calls the hook. Per-call inputs beside
    the texts are declared in ``extra_inputs`` and travel in :attr:`Inputs.extras` and in the
    records, so every mode shards.
    """

    name: ClassVar[str] = ""
    Config: ClassVar[Type[MetricConfig]] = MetricConfig
    references_mode: ClassVar[str] = "required"
    sources_mode: ClassVar[str] = "none"
    multi_reference: ClassVar[bool] = False
    #: per-call, per-segment inputs beside the texts: name -> one line of documentation
    extra_inputs: ClassVar[Dict[str, str]] = {}
    #: record fields that may hold a documented NaN or infinity (a records file refuses a
    #: non-finite number anywhere else)
    nonfinite_fields: ClassVar[frozenset] = frozenset()
    #: the metric's direction from its FACTS (core/facts.py): on the class the default
    #: configuration's, on a scorer its own configuration's
    higher_is_better = HigherIsBetter()
    _TEMPLATE: ClassVar[Tuple[str, ...]] = ("score", "reduce", "validate", "segment_records")
    #: the signature of the records a scorer made by :meth:`for_reduce` reduces
    _records_signature: Optional[str] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for method in cls._TEMPLATE:
            if method in cls.__dict__:
                raise TypeError(f"{cls.__name__} overrides the template method {method}(); "
                                "fill score_segments / reduce_records / check_extras instead")

    def __init__(self, config: Optional[MetricConfig] = None, *, quiet: bool = False, **options: Any) -> None:
        self.config = config_of(type(self), config, options)
        self.quiet = quiet
        self.setup()

    def setup(self) -> None:
        """Build what the configuration asks for (models, lexicons); override."""

    @classmethod
    def for_reduce(cls, config: MetricConfig, signature: str, *, quiet: bool = True) -> "Scorer":
        """A scorer that only reduces records (``nlgmetrics reduce``): :meth:`setup_reduce`
        instead of :meth:`setup`, and ``signature`` (the one the records were written under, so
        the model and backend named are those that scored them) as its signature."""
        scorer = cls.__new__(cls)
        scorer.config = config
        scorer.quiet = quiet
        scorer._records_signature = signature
        scorer.setup_reduce()
        return scorer

    def setup_reduce(self) -> None:
        """Build only what :meth:`reduce_records`, :meth:`derived_fields` and :meth:`resampler`
        read (a metric whose reduction needs no model overrides this to load none); default:
        :meth:`setup`."""
        self.setup()

    # -- the template -----------------------------------------------------------------------
    def validate(self, predictions: Any, references: Any = None, sources: Any = None,
                 ids: Optional[Sequence[int]] = None, **extras: Any) -> Inputs:
        inputs = validate_inputs(
            predictions, references, sources,
            references_mode=self.references_mode, sources_mode=self.sources_mode,
            multi_reference=self.multi_reference, ids=ids,
        )
        unknown = [k for k, v in extras.items() if k not in self.extra_inputs and v is not None]
        if unknown:
            takes = f"it takes: {', '.join(self.extra_inputs)}" if self.extra_inputs else "it takes none"
            raise ValueError(f"{self.name} got unknown per-segment input(s) {', '.join(unknown)}; {takes}")
        given = {k: v for k, v in extras.items() if v is not None}
        inputs.extras = self.check_extras(given, len(inputs))
        inputs.truncated = apply_budget(inputs, self.budget(), self.name)
        return inputs

    def budget(self) -> Optional[Budget]:
        """The work budget per segment (:mod:`nlgmetrics.core.budget`) from the configuration;
        default: the configuration class's ``BUDGET`` (None: no cap, for test scorers)."""
        return getattr(type(self.config), "BUDGET", None)

    def segment_records(self, inputs: Inputs) -> List[Record]:
        """``score_segments`` with ``truncated: true`` in the records of segments the budget cut."""
        records = self.score_segments(inputs)
        for rec in records:
            if rec.get("id") in inputs.truncated:
                rec["truncated"] = True
        return records

    def check_extras(self, extras: Dict[str, Any], n: int) -> Dict[str, List[Any]]:
        """Validate per-call inputs (one value per segment); override with ``extra_inputs``."""
        return {}

    @classmethod
    def call_options(cls, options: Mapping[str, Any], extras: Collection[str]) -> Dict[str, Any]:
        """The configuration options of one call given the names of the per-segment inputs it
        passes (``extras``, those not ``None``): a metric may derive an option from them (SAM:
        ``base_scores`` means ``base='given'`` unless ``base`` is given). Every surface (Python,
        evaluate, the CLI, the Trainer hook) calls this; default: ``options`` unchanged."""
        return dict(options)

    @classmethod
    def check_extra_names(cls, config: MetricConfig, names: Collection[str],
                          syntax: ArgumentSyntax = PYTHON_SYNTAX) -> None:
        """Before anything loads: whether ``config`` takes the declared per-segment inputs
        ``names`` and has all it needs (``ValueError`` if not, written in ``syntax``).
        Default: any of them, none required."""

    @classmethod
    def check_extra_value(cls, config: MetricConfig, name: str, value: float, where: str,
                          syntax: ArgumentSyntax = PYTHON_SYNTAX) -> float:
        """Before anything loads: one number of per-segment input ``name`` (``where`` names it
        in the error, e.g. ``scores.txt, line 4``; hints written in ``syntax``). Default: any
        finite number."""
        return value

    def score(self, predictions: Any, references: Any = None, sources: Any = None,
              **extras: Any) -> MetricResult:
        """Score a corpus: per-segment scores, corpus score, details and signature."""
        inputs = self.validate(predictions, references, sources, **extras)
        if len(inputs) == 0:
            raise ValueError("predictions is empty; give at least one segment")
        self.check_language(inputs)
        return self.reduce(self.segment_records(inputs))

    def check_language(self, inputs: Inputs) -> None:
        """Once per corpus: a warning (an error with the ``language`` option) when most of the
        predictions or references are in a language the metric's FACTS ``languages`` do not
        cover (:func:`~nlgmetrics.core.language.check_language`); ``quiet`` does not silence it."""
        from .language import check_language, first_references

        check_language(type(self), self.config, {"predictions": list(inputs.predictions),
                                                 "references": first_references(inputs.references)})

    def reduce(self, records: List[Record]) -> MetricResult:
        """Corpus reduction over gathered records, in any order (shards)."""
        records = sort_records(records)
        result = self.reduce_records(records)
        for rec, details in zip(records, result.details):
            if rec.get("truncated"):
                details["truncated"] = True
        return result

    # -- the hooks --------------------------------------------------------------------------
    @abc.abstractmethod
    def score_segments(self, inputs: Inputs) -> List[Record]:
        """Per-segment work; independent across segments except for shared caches."""

    def reduce_records(self, records: List[Record]) -> MetricResult:
        """Corpus reduction over records sorted by ``id``, each id once. Default: the core's
        mean reduction (:func:`mean_reduce`: the corpus score is the mean of the records'
        ``score``); a metric with a corpus-level step overrides it."""
        return mean_reduce(self, records)

    @classmethod
    def record_fields(cls, config: MetricConfig) -> Optional[Dict[str, Field]]:
        """What each field of this metric's records holds under ``config`` (name ->
        :class:`~.record_fields.Field`): a records file's records are checked against it before
        any reduction reads them. Default None: not checked (test scorers)."""
        return None

    def derived_fields(self, record: Record) -> Dict[str, Any]:
        """Fields of a record (already checked against :meth:`record_fields`) recomputed from
        its other fields, field -> value: a records file whose stored value disagrees beyond
        rounding is refused (a forged ``score``). Default: none."""
        return {}

    def resampler(self, records: List[Record]) -> Callable[[Any], Any]:
        """Corpus scores of resampled corpora for significance tests
        (:mod:`nlgmetrics.core.significance`): a function from positions (resamples x n, into
        ``records``, duplicates allowed) to one corpus score per resample, each what
        :meth:`reduce_records` gives for those records re-indexed 0..n-1. Default: with the
        core's mean reduction, the mean resampler
        (:func:`~nlgmetrics.core.resampling.mean_resampler`); with a metric's own reduction,
        that reduction run per resample (:func:`~nlgmetrics.core.resampling.reduce_each`, exact
        for every metric), which the metric may override with an equal, faster form."""
        from .resampling import mean_resampler, reduce_each

        if type(self).reduce_records is Scorer.reduce_records:
            return mean_resampler([float(r["score"]) for r in records])
        return reduce_each(self, records)

    def signature_facts(self) -> Dict[str, Any]:
        """Signature facts known only after :meth:`setup` (the model loaded, the parser
        backend used), short key -> value; override."""
        return {}

    @property
    def signature(self) -> str:
        """Reproducibility string generated from the configuration: every field that differs
        from its default (and the ``always`` ones), then the resolved facts; a scorer made by
        :meth:`for_reduce`: the records' signature."""
        if self._records_signature is not None:
            return self._records_signature
        return make_signature(self.name, __version__, **self.config.signature_fields(self.signature_facts()))


def mean_reduce(scorer: Scorer, records: List[Record], *, key: str = "score",
                corpus: Optional[Dict[str, Any]] = None) -> MetricResult:
    """The common reduction: corpus score = mean of the per-segment ``key`` values;
    every other field of a record becomes that segment's details."""
    recs = sort_records(records)
    scores = [float(r[key]) for r in recs]
    details = [{k: v for k, v in r.items() if k != key} for r in recs]
    score = sum(scores) / len(scores) if scores else float("nan")
    return MetricResult(scorer.name, scores, score, scorer.signature, details, dict(corpus or {}))

"""The scorer base class: input validation shared by every metric, and the split between
per-segment scoring (shardable) and the corpus reduction.

Rules for bad input (the same for every metric):
- ``predictions`` must be a sequence (list, tuple, numpy array, ...) of ``str``; a bare string
  is refused, since it is almost always a forgotten ``[...]``.
- ``references`` / ``sources``, when the metric uses them, must have the same length as
  ``predictions``; each item a ``str`` (or, for multi-reference metrics, a non-empty sequence
  of ``str``).
- ``None`` or a non-string item gives ``ValueError`` naming the field and the index.
- Empty (or whitespace-only) strings are allowed: each metric documents the score it gives
  them in its card. Nothing crashes deep in a library on them.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, ClassVar, Dict, List, Optional, Sequence

from .result import MetricResult

Record = Dict[str, Any]


@dataclass
class Inputs:
    """Validated inputs. ``ids`` are the segment ids carried into every record."""

    predictions: List[str]
    references: Optional[List[Any]]
    sources: Optional[List[str]]
    ids: List[int]

    def __len__(self) -> int:
        return len(self.predictions)


def _as_list(values: Any, field: str) -> List[Any]:
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{field} must be a list of strings, not a single {type(values).__name__}; wrap it in [...]")
    if isinstance(values, dict) or not hasattr(values, "__len__") or not hasattr(values, "__iter__"):
        raise ValueError(f"{field} must be a list of strings, got {type(values).__name__}")
    return list(values)


def _check_text(item: Any, field: str, index: int) -> str:
    if item is None:
        raise ValueError(f"{field}[{index}] is None; pass an empty string for an empty text")
    if not isinstance(item, str):
        raise ValueError(f"{field}[{index}] must be a str, got {type(item).__name__}")
    return item


def validate_texts(values: Any, field: str, *, multi: bool = False) -> List[Any]:
    """Check one field; with ``multi`` each item may be a string or a non-empty list of them."""
    items = _as_list(values, field)
    out: List[Any] = []
    for i, item in enumerate(items):
        if multi and not isinstance(item, str) and item is not None:
            group = _as_list(item, f"{field}[{i}]")
            if not group:
                raise ValueError(f"{field}[{i}] is an empty list; give at least one text")
            out.append([_check_text(t, f"{field}[{i}]", j) for j, t in enumerate(group)])
        else:
            out.append(_check_text(item, field, i))
    return out


def validate_inputs(
    predictions: Any,
    references: Any = None,
    sources: Any = None,
    *,
    references_mode: str = "required",
    sources_mode: str = "none",
    multi_reference: bool = False,
    ids: Optional[Sequence[int]] = None,
) -> Inputs:
    """Validate all fields at once; modes are ``required``, ``optional`` or ``none``."""
    preds = validate_texts(predictions, "predictions")
    n = len(preds)
    fields: Dict[str, Optional[List[Any]]] = {}
    for field, value, mode, multi in (
        ("references", references, references_mode, multi_reference),
        ("sources", sources, sources_mode, False),
    ):
        if value is None:
            if mode == "required":
                raise ValueError(f"{field} are required by this metric")
            fields[field] = None
            continue
        if mode == "none":
            raise ValueError(f"this metric takes no {field}")
        checked = validate_texts(value, field, multi=multi)
        if len(checked) != n:
            raise ValueError(f"{field} has {len(checked)} items but predictions has {n}; they must have equal lengths")
        fields[field] = checked
    seg_ids = list(range(n)) if ids is None else [int(i) for i in ids]
    if len(seg_ids) != n:
        raise ValueError(f"ids has {len(seg_ids)} items but predictions has {n}")
    return Inputs(preds, fields["references"], fields["sources"], seg_ids)


def check_choice(label: str, value: Any, choices: Sequence[Any]) -> None:
    """The one error for an option outside its choices: names the option and the choices."""
    if value not in choices:
        raise ValueError(f"unknown {label} {value!r}; choose one of {', '.join(map(str, choices))}")


class Scorer(abc.ABC):
    """Base of every metric: ``score`` = validate -> ``score_segments`` -> ``reduce``.

    ``score_segments`` returns one JSON-serialisable record per segment (with its ``id``);
    ``reduce`` turns a list of records (possibly gathered from several shards, in any order)
    into a :class:`MetricResult`. Subclasses set ``name`` and the input modes.
    """

    name: ClassVar[str] = ""
    references_mode: ClassVar[str] = "required"
    sources_mode: ClassVar[str] = "none"
    multi_reference: ClassVar[bool] = False
    #: small example used by ``nlgmetrics demo`` and the Spaces (predictions/references/sources)
    demo_inputs: ClassVar[Dict[str, List[Any]]] = {}
    #: constructor options with which the metric runs offline from registry packages
    #: (``nlgmetrics demo`` uses them); ``None`` when it cannot run offline by default
    demo_options: ClassVar[Optional[Dict[str, Any]]] = {}

    def __init__(self, *, quiet: bool = False) -> None:
        self.quiet = quiet

    def validate(self, predictions: Any, references: Any = None, sources: Any = None,
                 ids: Optional[Sequence[int]] = None) -> Inputs:
        return validate_inputs(
            predictions, references, sources,
            references_mode=self.references_mode, sources_mode=self.sources_mode,
            multi_reference=self.multi_reference, ids=ids,
        )

    def score(self, predictions: Any, references: Any = None, sources: Any = None) -> MetricResult:
        """Score a corpus: per-segment scores, corpus score, details and signature."""
        inputs = self.validate(predictions, references, sources)
        if len(inputs) == 0:
            raise ValueError("predictions is empty; give at least one segment")
        return self.reduce(self.score_segments(inputs))

    @abc.abstractmethod
    def score_segments(self, inputs: Inputs) -> List[Record]:
        """Per-segment work; independent across segments except for shared caches."""

    @abc.abstractmethod
    def reduce(self, records: List[Record]) -> MetricResult:
        """Corpus reduction over gathered records (sorted by ``id`` here)."""

    @property
    @abc.abstractmethod
    def signature(self) -> str:
        """Reproducibility string: metric, version, models, options."""


def sort_records(records: List[Record]) -> List[Record]:
    """Records in segment-id order, refusing duplicates (a shard merged twice)."""
    out = sorted(records, key=lambda r: r["id"])
    for a, b in zip(out, out[1:]):
        if a["id"] == b["id"]:
            raise ValueError(f"segment id {a['id']} appears twice in the records")
    return out


def mean_reduce(scorer: Scorer, records: List[Record], *, key: str = "score",
                corpus: Optional[Dict[str, Any]] = None) -> MetricResult:
    """The common reduction: corpus score = mean of the per-segment ``key`` values;
    every other field of a record becomes that segment's details."""
    recs = sort_records(records)
    scores = [float(r[key]) for r in recs]
    details = [{k: v for k, v in r.items() if k != key} for r in recs]
    score = sum(scores) / len(scores) if scores else float("nan")
    return MetricResult(scorer.name, scores, score, scorer.signature, details, dict(corpus or {}))

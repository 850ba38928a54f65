"""The metrics-task workbench on the registry: a whole mt-metrics-eval EvalSet scored by one
metric (:func:`score_evalset`: every system, for each reference, optionally each other
reference as a system; segment, document and system score files in its layout; resumable) and
many metrics ranked (:func:`rank`, on :mod:`nlgmetrics.meta.rank`).

A metric is given as a spec, ``METRIC[:option=value,...]`` (``sam:base=chrf``), or as a name
and options; each spec is resolved once by the front door (:func:`nlgmetrics.registry.resolve`)
and the call is what scores. Its files are named by :func:`file_name` (the spec without
characters mt-metrics-eval's names cannot hold), unless a name is given.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import registry
from .core.progress import progress

if TYPE_CHECKING:
    from .core.call import Call
    from .meta.mtme import EvalSet

#: the file beside a metric's score files that records the signature each system was scored
#: under (``METRIC-REF.signatures.json``): what a resumed run compares
SIGNATURES = "signatures.json"


def parse_spec(spec: str) -> Tuple[str, Dict[str, Any]]:
    """``("sam", {"base": "chrf"})`` from ``"sam:base=chrf"``: a metric name, then options
    ``name=value`` separated by commas (a value is read as JSON when it parses, else kept as
    text: ``profile=lite``, ``layer=6``, ``lowercase=true``).

    >>> parse_spec("sam:base=chrf,eps_smoothing=true")
    ('sam', {'base': 'chrf', 'eps_smoothing': True})
    """
    name, _, rest = spec.partition(":")
    options: Dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"metric spec {spec!r}: {part!r} is not option=value (METRIC[:option=value,...])")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    if not name:
        raise ValueError(f"metric spec {spec!r} names no metric (METRIC[:option=value,...])")
    return name, options


def file_name(spec: str) -> str:
    """The metric's name in score files: the spec with ``:`` and ``,`` as ``_`` and nothing
    mt-metrics-eval splits on (``-``, ``.``, blanks) or a path cannot hold (``sam:base=chrf``
    -> ``sam_base=chrf``).

    >>> file_name("sam:base=chrf,eps_smoothing=true"), file_name("rome:profile=lite")
    ('sam_base=chrf_eps_smoothing=true', 'rome_profile=lite')
    """
    out = "".join(c if c.isalnum() or c in "_=+" else "_" for c in spec.replace(":", "_").replace(",", "_"))
    return out.strip("_") or "metric"


@dataclass
class Job:
    """One (reference, system) pair of an EvalSet to score."""

    ref: str
    system: str
    outputs: List[str]


@dataclass
class EvalSetScores:
    """What :func:`score_evalset` did: the files written per reference, the systems scored and
    those skipped (already written under the same signature)."""

    metric: str
    signature: str
    written: Dict[str, List[str]] = field(default_factory=dict)
    scored: List[Tuple[str, str]] = field(default_factory=list)
    skipped: List[Tuple[str, str]] = field(default_factory=list)


def jobs(es: "EvalSet", refs: Optional[Sequence[str]] = None, *, ref_as_system: bool = False) -> List[Job]:
    """The (reference, system) pairs to score: for each reference (default: all), every system
    output but the reference itself and, with ``ref_as_system``, every other reference as a
    system of its name (a system output of that name is the same text in WMT's EvalSets and is
    scored once)."""
    names = list(refs) if refs else list(es.references)
    if not names:
        raise ValueError(f"{es.root}: no references/{es.lp}.NAME.txt; a reference-based metric needs one")
    missing = [r for r in names if r not in es.references]
    if missing:
        raise ValueError(f"{es.root}: no references/{es.lp}.{missing[0]}.txt (references: {', '.join(es.references)})")
    out: List[Job] = []
    for ref in names:
        systems = {s: t for s, t in es.outputs.items() if s != ref}
        if ref_as_system:
            systems.update({r: t for r, t in es.references.items() if r != ref and r not in systems})
        out += [Job(ref, s, systems[s]) for s in sorted(systems)]
    return out


def document_spans(es: "EvalSet") -> List[Tuple[str, int, int]]:
    """``(document, start, end)`` per document in file order (contiguous; ``documents/`` gives
    them), or ``[]`` when the EvalSet has no documents file."""
    spans: List[Tuple[str, int, int]] = []
    for k, (_, doc) in enumerate(es.documents or []):
        if spans and spans[-1][0] == doc:
            spans[-1] = (doc, spans[-1][1], k + 1)
        else:
            spans.append((doc, k, k + 1))
    return spans


def spec_of(call: "Call") -> str:
    """The spec of a resolved call: its metric and the options that differ from the defaults
    (``sam:base=chrf``), the name its score files get (:func:`file_name`)."""
    changed = call.config.changed()
    return call.metric + (":" + ",".join(f"{k}={_text(v)}" for k, v in changed.items()) if changed else "")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def resolve_spec(spec: str, options: Optional[Mapping[str, Any]] = None) -> "Call":
    """A metric spec (``sam:base=chrf``), with ``options`` on top, resolved once by the front
    door."""
    base, spec_options = parse_spec(spec)
    return registry.resolve(base, {**spec_options, **dict(options or {})})


def score_evalset(call: "Call", root: str, lp: str, out: str, *, name: str, refs: Optional[Sequence[str]] = None,
                  ref_as_system: bool = False, shard: Tuple[int, int] = (1, 1), quiet: bool = False,
                  names: Optional[Mapping[str, str]] = None) -> EvalSetScores:
    """Score every system of the EvalSet ``root``/``lp`` with the resolved ``call`` against each
    reference, and write ``out/metric-scores/LP/NAME-REF.{seg,doc,sys}.score`` (the document
    level when the EvalSet has documents: the metric's corpus score over each document's
    segments). A system already written under the same signature is skipped (a resumed run
    gives identical files); ``shard=(k, n)`` scores the k-th of n interleaved parts of the
    (reference, system) pairs, and the parts may run at once (the writer merges them).
    ``names``: the caller's names of the writer's arguments for its errors (the CLI's flags)."""
    from .meta import mtme

    k, n = shard
    if not 1 <= k <= n:
        raise ValueError(f"shard must be K/N with 1 <= K <= N, got {k}/{n}")
    es = mtme.read_evalset(root, lp)
    todo = jobs(es, refs, ref_as_system=ref_as_system)
    for ref in dict.fromkeys(j.ref for j in todo):  # every name checked before anything loads
        mtme.metric_score_paths(out, lp, name, ref, systems=[j.system for j in todo if j.ref == ref], options=names)
    todo = todo[k - 1::n]
    scorer = registry.load_call(call, quiet=quiet)
    done = EvalSetScores(name, scorer.signature)
    spans = document_spans(es)
    # the signatures each reference's files hold, read once per reference (not once per system): a run skips
    # only systems written before it started, and shards running at once score disjoint systems
    written = {ref: mtme.read_signatures(out, lp, name, ref) for ref in dict.fromkeys(j.ref for j in todo)}
    for job in progress(todo, desc=f"{name}: systems", quiet=quiet, min_items=2):
        if written[job.ref].get(job.system) == scorer.signature:
            done.skipped.append((job.ref, job.system))
            continue
        levels = _score_system(scorer, call, es, job, spans)
        done.written[job.ref] = mtme.write_metric_scores(out, lp, name, job.ref, levels["seg"], levels["sys"],
                                                         doc=levels.get("doc"), options=names,
                                                         signatures={job.system: scorer.signature})
        done.scored.append((job.ref, job.system))
    return done


def _score_system(scorer: Any, call: "Call", es: "EvalSet", job: Job,
                  spans: List[Tuple[str, int, int]]) -> Dict[str, Dict[str, Any]]:
    """One system's scores at each level: segment scores and the corpus score from one set of
    records, each document's score from its records (the metric's own reduction)."""
    cls = call.scorer
    assert cls is not None
    references = es.references[job.ref] if cls.references_mode != "none" else None
    sources = es.sources if cls.sources_mode != "none" else None
    inputs = scorer.validate(job.outputs, references, sources, **call.extras)
    scorer.check_language(inputs)
    records = scorer.segment_records(inputs)
    result = scorer.reduce(records)
    levels: Dict[str, Dict[str, Any]] = {"seg": {job.system: result.scores}, "sys": {job.system: result.score}}
    if spans:
        levels["doc"] = {job.system: [scorer.reduce(records[a:b]).score for _, a, b in spans]}
    return levels


def rank(root: str, lp: str, metrics: Sequence[str], *, ref: Optional[str] = None, human: Optional[str] = None,
         out: Optional[str] = None, quiet: bool = False, **options: Any) -> Dict[str, Any]:
    """The metrics-task table of ``metrics`` on the EvalSet ``root``/``lp``
    (:func:`nlgmetrics.meta.rank.rank_metrics`: each metric's statistics per level, and per
    ranked statistic the Perm-Both p-values between the metrics and their rank clusters;
    ``options``: its ``ranked``, ``k``, ``seed``, ``pval``, ``bootstrap``...).

    Each entry of ``metrics`` is a published metric of the EvalSet (its basename, read from
    ``metric-scores/LP/NAME-REF`` or ``NAME-src``) or a metric spec of this package
    (``sam:base=chrf``, ``bleu``), scored first where its files under ``out`` (default: the
    EvalSet folder itself, beside the published ones) do not hold every system under its
    signature (:func:`score_evalset`, for the reference ranked against)."""
    from .meta import mtme
    from .meta.rank import rank_metrics

    if not metrics:
        raise ValueError("name at least one metric to rank")
    es = mtme.read_evalset(root, lp)
    if ref is None:
        if len(es.references) != 1:
            raise ValueError(f"{root}: {len(es.references)} references for {lp}; choose one with ref= "
                             f"({', '.join(es.references)})")
        ref = next(iter(es.references))
    target = out or root
    folder = os.path.join(root, "metric-scores", lp)
    listed = set(os.listdir(folder)) if os.path.isdir(folder) else set()
    scores: Dict[str, Any] = {}
    for spec in metrics:
        file = next((f"{spec}-{r}" for r in (ref, "src") if {f"{spec}-{r}.seg.score", f"{spec}-{r}.sys.score"} & listed),
                    None)
        if file is not None and f"{file}.signatures.json" not in listed:  # published, not written by this package
            scores[spec] = mtme.read_metric_scores(root, lp, [file])[file]
            continue
        call = resolve_spec(spec)
        name = file_name(spec_of(call))
        score_evalset(call, root, lp, target, name=name, refs=[ref], quiet=quiet)
        scores[spec] = mtme.read_metric_scores(target, lp, [f"{name}-{ref}"])[f"{name}-{ref}"]
    return rank_metrics(es, scores, human, ref, **options)

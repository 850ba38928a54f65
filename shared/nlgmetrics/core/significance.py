"""Is system A better than system B? Paired significance tests for any metric, each resample
re-running the metric's OWN corpus reduction on resampled per-segment records.

Every system is scored once (``score_segments``: one record per segment); the tests then only
pick records. A resampled corpus is a list of positions into a system's records (duplicates
allowed); its corpus score is what the metric's ``reduce_records`` gives for those records in
that order, re-indexed ``0..n-1`` (:func:`reindexed`). That keeps a corpus-level step right:
DATScore's one-vs-rest direction weights, TextEval's document rating and scaling, DiscoTK's
per-test-set normalisation are recomputed on every resample, where averaging resampled segment
scores would not be. A metric may give a faster equal form (:meth:`Scorer.resampler
<nlgmetrics.core.scorer.Scorer.resampler>`; the tests check it against :func:`reduce_each`).

- **Paired bootstrap** (Koehn 2004; sacrebleu's conventions: 1,000 resamples, seed 12345, the
  first system the baseline): resample ``n`` segment positions with replacement, the same
  positions for every system. A system's 95 % interval is the 2.5th-97.5th percentile of its
  resampled scores; the difference ``d_r = system_r - baseline_r`` gives the difference's
  interval and the p-value ``(1 + #{r: |d_r - mean(d)| >= |d_obs|}) / (R + 1)`` (resampled
  differences shifted to the null of no difference, two-sided).
- **Paired approximate randomisation** (Riezler & Maxwell 2005; 10,000 trials): each trial
  swaps the two systems' records of each segment with probability 1/2 and takes the difference
  of the two shuffled corpora's scores; ``p = (1 + #{t: |d_t| >= |d_obs|}) / (T + 1)``.

Both p-values count ties (``>=``, with a relative tolerance of 1e-9 for floating-point noise),
so identical systems get ``p = 1``; sacrebleu counts only strictly larger differences, which
gives identical systems the smallest possible p.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .inputs import check_seed
from .resampling import Resampler, mean_resampler, reduce_each, reindexed

if TYPE_CHECKING:
    from .inputs import Record
    from .scorer import Scorer

DEFAULT_RESAMPLES = 1000
DEFAULT_TRIALS = 10000
DEFAULT_SEED = 12345
#: how many position values one chunk of resamples holds at most (memory stays ~64 MB)
CHUNK_VALUES = 2**23
_TIE_TOLERANCE = 1e-9


def draw_counts(positions: np.ndarray, size: int) -> np.ndarray:
    """How often each resample (a row of ``positions``) draws each of ``size`` records:
    resamples x ``size`` integer counts."""
    rows = len(positions)
    flat = (np.asarray(positions) + np.arange(rows)[:, None] * size).ravel()
    return np.bincount(flat, minlength=rows * size).reshape(rows, size)


def _rows_per_chunk(n: int) -> int:
    return max(1, CHUNK_VALUES // max(n, 1))


def bootstrap_positions(n: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Iterator[np.ndarray]:
    """The bootstrap's resamples, in chunks of rows: each row ``n`` positions drawn with
    replacement from ``numpy.random.default_rng(seed)`` (``rng.integers(0, n, (rows, n))`` per
    chunk, chunks drawn in order)."""
    rng = np.random.default_rng(seed)
    done, step = 0, _rows_per_chunk(n)
    while done < resamples:
        rows = min(step, resamples - done)
        yield rng.integers(0, n, size=(rows, n))
        done += rows


def randomization_swaps(n: int, trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED) -> Iterator[np.ndarray]:
    """Approximate randomisation's trials, in chunks of rows: ``True`` where a segment's two
    records swap (``rng.random((rows, n)) < 0.5`` from ``numpy.random.default_rng(seed)``)."""
    rng = np.random.default_rng(seed)
    done, step = 0, _rows_per_chunk(2 * n)
    while done < trials:
        rows = min(step, trials - done)
        yield rng.random((rows, n)) < 0.5
        done += rows


def paired_bootstrap(resamplers: Sequence[Resampler], n: int, resamples: int = DEFAULT_RESAMPLES,
                     seed: int = DEFAULT_SEED) -> np.ndarray:
    """Resampled corpus scores, ``resamples x systems``: every system resampled at the same
    positions (paired)."""
    out = [np.column_stack([fn(pos) for fn in resamplers]) for pos in bootstrap_positions(n, resamples, seed)]
    return np.vstack(out) if out else np.zeros((0, len(resamplers)))


def paired_randomization(pooled: Resampler, n: int, trials: int = DEFAULT_TRIALS,
                         seed: int = DEFAULT_SEED) -> np.ndarray:
    """Differences under the null, one per trial. ``pooled`` resamples the ``2n`` records
    ``baseline + system``; a trial's system side takes segment i from the system (position
    ``n + i``) unless swapped, the baseline side the other record; the difference is system
    side minus baseline side. A ``pooled`` with a ``swap_differences`` method (swaps, trials x n
    booleans -> differences) gives those differences itself, from the swaps (a faster equal
    form: TextEval's documents)."""
    out = []
    base = np.arange(n)
    swap_differences = getattr(pooled, "swap_differences", None)
    for swaps in randomization_swaps(n, trials, seed):
        if swap_differences is not None:
            out.append(swap_differences(swaps))
            continue
        side = np.where(swaps, base, base + n)
        other = np.where(swaps, base + n, base)
        out.append(pooled(side) - pooled(other))
    return np.concatenate(out) if out else np.zeros(0)


def _at_least(values: np.ndarray, observed: float) -> int:
    """How many ``|values|`` reach ``|observed|`` (ties counted, up to a relative 1e-9)."""
    threshold = abs(observed) - _TIE_TOLERANCE * max(abs(observed), 1e-12)
    return int(np.count_nonzero(np.abs(values) >= threshold))


def bootstrap_p_value(differences: np.ndarray, observed: float) -> float:
    """Two-sided p of the paired bootstrap: resampled differences shifted to mean 0 (the null),
    ``(1 + #{|d_r - mean(d)| >= |observed|}) / (R + 1)``."""
    d = differences[np.isfinite(differences)]
    return (1 + _at_least(d - d.mean(), observed)) / (len(d) + 1) if len(d) else float("nan")


def randomization_p_value(differences: np.ndarray, observed: float) -> float:
    """Two-sided p of approximate randomisation: ``(1 + #{|d_t| >= |observed|}) / (T + 1)``."""
    d = differences[np.isfinite(differences)]
    return (1 + _at_least(d, observed)) / (len(d) + 1) if len(d) else float("nan")


def percentile_interval(values: np.ndarray, confidence: float = 0.95) -> Tuple[float, float]:
    """The percentile interval of the finite ``values``."""
    v = values[np.isfinite(values)]
    if not len(v):
        return float("nan"), float("nan")
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(v, [tail, 100 - tail])
    return float(lo), float(hi)


@dataclass
class SystemComparison:
    """One system: its corpus score and interval, and (not for the baseline) its difference
    to the baseline (system - baseline), the difference's interval and both p-values."""

    name: str
    score: float
    ci: Optional[Tuple[float, float]] = None
    diff: Optional[float] = None
    diff_ci: Optional[Tuple[float, float]] = None
    p_bootstrap: Optional[float] = None
    p_randomization: Optional[float] = None


@dataclass
class Comparison:
    """The result of :func:`compare_records`: systems in the order given (the first is the
    baseline), the metric's signature and the test's (``compare|bs:R|ar:T|seed:S|ci:95|v:...``),
    and the resampled scores (``samples``: resamples x systems; not in :meth:`to_dict`)."""

    metric: str
    signature: str
    test_signature: str
    n_segments: int
    confidence: float
    systems: List[SystemComparison]
    samples: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)

    def to_dict(self) -> Dict[str, Any]:
        from .result import finite_or_none

        keys = ("name", "score", "ci", "diff", "diff_ci", "p_bootstrap", "p_randomization")
        return finite_or_none({
            "metric": self.metric, "signature": self.signature, "test_signature": self.test_signature,
            "n_segments": self.n_segments, "confidence": self.confidence, "baseline": self.systems[0].name,
            "systems": [{k: getattr(s, k) for k in keys} for s in self.systems]})

    def __str__(self) -> str:
        pct = f"{self.confidence * 100:g}%"
        width = max(8, *(len(s.name) for s in self.systems))
        lines = [f"{self.metric} on {self.n_segments} segments; baseline: {self.systems[0].name}",
                 f"{'system':{width}s}  {'score':>9s}  {pct + ' interval':>21s}  {'diff':>9s}  "
                 f"{pct + ' interval':>21s}  {'p (bs)':>7s}  {'p (ar)':>7s}"]

        def num(x: Optional[float], fmt: str = "9.4f") -> str:
            return format(x, fmt) if x is not None and math.isfinite(x) else "-".rjust(int(fmt.split(".")[0].lstrip("+")))

        def ci(x: Optional[Tuple[float, float]]) -> str:
            return f"[{x[0]:+9.4f}, {x[1]:+9.4f}]" if x is not None and all(map(math.isfinite, x)) else f"{'-':>21s}"

        for s in self.systems:
            lines.append(f"{s.name:{width}s}  {num(s.score)}  {ci(s.ci)}  {num(s.diff, '+9.4f')}  {ci(s.diff_ci)}  "
                         f"{num(s.p_bootstrap, '7.4f')}  {num(s.p_randomization, '7.4f')}")
        lines += [self.signature, self.test_signature]
        return "\n".join(lines)


def _aligned(systems: Sequence[Sequence["Record"]]) -> List[List["Record"]]:
    """Each system's records in id order; every system must have records of the same ids."""
    from .inputs import sort_records

    out = [sort_records(list(recs)) for recs in systems]
    ids = [r["id"] for r in out[0]]
    for k, recs in enumerate(out[1:], start=1):
        if [r["id"] for r in recs] != ids:
            raise ValueError(f"system {k + 1} has records of other segments than the baseline "
                             f"({len(recs)} vs {len(ids)}); compare outputs of the same segments")
    if not ids:
        raise ValueError("no records to compare")
    return out


def compare_signature(resamples: int, trials: int, seed: int, confidence: float) -> str:
    """The reproducibility string of the test: ``compare|bs:1000|ar:10000|seed:12345|ci:95|v:...``."""
    from .result import make_signature
    from .version import __version__

    return make_signature("compare", __version__, bs=resamples, ar=trials, seed=seed, ci=f"{confidence * 100:g}")


def compare_records(scorer: "Scorer", systems: Union[Mapping[str, Sequence["Record"]], Sequence[Sequence["Record"]]],
                    *, resamples: int = DEFAULT_RESAMPLES, trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                    confidence: float = 0.95) -> Comparison:
    """Compare systems from their per-segment records (scored once, or read from records
    files): ``systems`` maps names to records (or is a list: names ``system1``, ...), the first
    the baseline. ``resamples=0`` skips the bootstrap (no intervals), ``trials=0`` approximate
    randomisation."""
    if isinstance(systems, Mapping):
        names, lists = [str(k) for k in systems], list(systems.values())
    else:
        lists = list(systems)
        names = [f"system{k + 1}" for k in range(len(lists))]
    if len(lists) < 2:
        raise ValueError(f"compare needs at least two systems (a baseline and another), got {len(lists)}")
    for label, value in (("resamples", resamples), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{label} must be a whole number >= 0 (0 skips that test), got {value!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")
    seed = check_seed(seed)
    records = _aligned(lists)
    n = len(records[0])
    results = [scorer.reduce(recs) for recs in records]
    out = [SystemComparison(name, float(res.score)) for name, res in zip(names, results)]
    samples = np.zeros((0, len(records)))
    if resamples:
        samples = paired_bootstrap([scorer.resampler(recs) for recs in records], n, resamples, seed)
        dropped = int((~np.isfinite(samples)).any(axis=1).sum())
        if dropped:
            warnings.warn(f"compare: {dropped} of {resamples} resamples gave a non-finite corpus score and are "
                          "left out of the intervals", stacklevel=2)
        for k, item in enumerate(out):
            item.ci = percentile_interval(samples[:, k], confidence)
    for k, item in enumerate(out[1:], start=1):
        item.diff = item.score - out[0].score
        if resamples:
            d = samples[:, k] - samples[:, 0]
            item.diff_ci = percentile_interval(d, confidence)
            item.p_bootstrap = bootstrap_p_value(d, item.diff)
        if trials:
            pooled = scorer.resampler(records[0] + records[k])
            item.p_randomization = randomization_p_value(paired_randomization(pooled, n, trials, seed), item.diff)
    return Comparison(scorer.name, results[0].signature, compare_signature(resamples, trials, seed, confidence),
                      n, confidence, out, samples)


__all__ = ["Comparison", "Resampler", "SystemComparison", "bootstrap_p_value", "bootstrap_positions",
           "compare_records", "mean_resampler", "paired_bootstrap", "paired_randomization", "percentile_interval",
           "randomization_p_value", "randomization_swaps", "reduce_each", "reindexed", "compare_signature"]

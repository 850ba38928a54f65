"""DiscoTK (Joty et al., WMT 2014): compare the RST discourse tree of a hypothesis with that of
its reference by subset-tree kernels over five tree representations, then combine.

- **light**: the five normalised kernel scores (``dr-nolex``, ``dr-lex1``, ``dr-lex2``,
  ``dr-lex1.1``, ``dr-lex1.2``), each normalised per test set by Asiya's rule, averaged.
- **party**: light's five plus the members of Asiya's ULC that have a resource here (TER,
  METEOR with WordNet synonyms, head-word-chain matching over categories and relations,
  dependency overlap), combined uniformly (per-test-set normalised) or with weights learned
  by pairwise logistic regression on human better/worse pairs (segment score
  ``sigmoid(w . f + b)`` on the raw features).

Per-segment records carry the raw features, so per-test-set normalisation (corpus level)
happens in :meth:`DiscoTK.reduce` and sharded records reduce to the same result.
Discourse trees come from :class:`~nlgmetrics.discourse.HeuristicRSTParser` (an offline
approximation of an RST parser) or from the inputs themselves when they are bracketed RST
trees (see :mod:`nlgmetrics.discourse`).
"""
from __future__ import annotations

import json
import threading
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import __version__
from .core.base import Inputs, Record, Scorer, check_choice, sort_records
from .core.lexical import sentence_meteor, sentence_ter
from .core.linguistic import Parsed
from .core.progress import progress
from .core.resources import data_path
from .core.result import MetricResult, make_signature
from .core.tree_kernels import DEFAULT_LAMBDA, CompiledTree, compile_tree, normalized_kernel, sst_kernel
from .discourse import (LEXICAL_LAYERS, REPRESENTATIONS, DiscourseTree, HeuristicRSTParser, from_rst, is_word,
                        looks_like_rst, representations)

VARIANTS = ("light", "party")
#: ULC members implemented here (raw values; higher is better for all of them)
PARTY_MEMBERS = ("ter", "meteor", "dp-hwcm_c-4", "dp-hwcm_r-4", "dp-or")
#: ULC members of the paper's party that have no resource here, and why
ABSENT_MEMBERS: Dict[str, str] = {
    "TERp-A": "TER-plus paraphrase tables are not installable; plain TER stands in",
    "METEOR-pa": "METEOR paraphrase tables are not installable; METEOR with WordNet synonyms stands in",
    "CP-STM-4": "needs a constituency parser",
    "CP-Oc(*)": "needs a constituency parser",
    "SR-Or(*)": "needs a semantic role labeller",
    "SR-Mr(*)": "needs a semantic role labeller",
    "SR-Or": "needs a semantic role labeller",
    "DR-Or(*)": "needs DRS (Boxer) discourse representations",
    "DR-Orp(*)": "needs DRS (Boxer) discourse representations",
}
NORMALIZATIONS = ("per-test-set", "none")
INPUT_FORMATS = ("auto", "text", "rst")
WEIGHTS_FILE = "discotk_weights.json"


def feature_names(variant: str) -> Tuple[str, ...]:
    """The features a variant combines, in order."""
    check_choice("DiscoTK variant", variant, VARIANTS)
    return REPRESENTATIONS + (PARTY_MEMBERS if variant == "party" else ())


# --------------------------------------------------------------------------------------
# per-test-set normalisation and the pairwise model

def asiya_normalize(values: Sequence[float]) -> np.ndarray:
    """Asiya's per-test-set rule: s / max when min >= 0, else (s + |min|) / (max + |min|);
    all-zero (or constant non-positive) columns give zeros."""
    s = np.asarray(values, dtype=float)
    if s.size == 0:
        return s
    lo, hi = float(s.min()), float(s.max())
    if lo >= 0:
        return s / hi if hi > 0 else np.zeros_like(s)
    denom = hi + abs(lo)
    return (s + abs(lo)) / denom if denom > 0 else np.zeros_like(s)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


@dataclass
class PairwiseModel:
    """Learned combination: ``raw = w . f + b`` on raw features, segment score sigmoid(raw).

    Trained as pairwise logistic regression, P(a better than b) = sigmoid(w . (f(a) - f(b)));
    ``b`` centres the raw score on the training features' mean (it does not change rankings).
    """

    features: Tuple[str, ...]
    weights: Tuple[float, ...]
    bias: float = 0.0
    meta: Dict[str, Any] = field(default_factory=dict)

    def raw(self, matrix: np.ndarray) -> np.ndarray:
        return np.asarray(matrix, dtype=float) @ np.asarray(self.weights, dtype=float) + self.bias

    def to_dict(self) -> Dict[str, Any]:
        return {"features": list(self.features), "weights": list(self.weights), "bias": self.bias,
                "meta": self.meta}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "PairwiseModel":
        if "features" in data:
            return cls(tuple(data["features"]), tuple(float(w) for w in data["weights"]),
                       float(data.get("bias", 0.0)), dict(data.get("meta", {})))
        named = {k: float(v) for k, v in data.items() if k != "bias"}  # {feature: weight}
        return cls(tuple(named), tuple(named.values()), float(data.get("bias", 0.0)))


def fit_pairwise(better: np.ndarray, worse: np.ndarray, names: Sequence[str], *, c: float = 1.0
                 ) -> PairwiseModel:
    """Pairwise logistic regression (L2, strength ``1 / c``) on feature differences of human
    (better, worse) pairs, in standardised feature space; returns raw-space weights."""
    from scipy.optimize import minimize

    better, worse = np.asarray(better, dtype=float), np.asarray(worse, dtype=float)
    if better.shape != worse.shape or better.ndim != 2 or better.shape[1] != len(names):
        raise ValueError(f"need two (pairs x {len(names)}) feature matrices, got {better.shape} and {worse.shape}")
    if len(better) == 0:
        raise ValueError("no training pairs")
    pooled = np.vstack([better, worse])
    mean, std = pooled.mean(axis=0), pooled.std(axis=0)
    std[std == 0] = 1.0
    diff = (better - worse) / std

    def loss(w: np.ndarray) -> Tuple[float, np.ndarray]:
        margin = diff @ w
        value = float(np.logaddexp(0.0, -margin).sum() + 0.5 / c * w @ w)
        grad = -(diff.T @ _sigmoid(-margin)) + w / c
        return value, grad

    solution = minimize(loss, np.zeros(len(names)), jac=True, method="L-BFGS-B")
    w = solution.x / std
    accuracy = float(((better - worse) @ w > 0).mean())
    return PairwiseModel(tuple(names), tuple(float(x) for x in w), float(-(w @ mean)),
                         {"pairs": int(len(better)), "c": c, "train_pair_accuracy": round(accuracy, 4)})


def shipped_model(variant: str, lexical_layer: str = "flat") -> PairwiseModel:
    """The default tuned weights shipped with the package (see nlgmetrics.training.discotk_weights)."""
    data = json.loads(data_path(WEIGHTS_FILE).read_text())
    return PairwiseModel.from_dict(data[variant if lexical_layer == "flat" else f"{variant}/{lexical_layer}"])


# --------------------------------------------------------------------------------------
# party members from the dependency parse

@dataclass
class DependencyItems:
    """What HWCM and dependency overlap compare: head-word chains (lengths 1..4) of POS
    categories and of relations, and the lemmas under each dependency relation."""

    chains_c: Dict[int, Counter]
    chains_r: Dict[int, Counter]
    by_relation: Dict[str, Counter]

    @classmethod
    def from_parsed(cls, parsed: Parsed, max_length: int = 4) -> "DependencyItems":
        toks = parsed.tokens
        keep = [is_word(t.text) for t in toks]
        kids: List[List[int]] = [[] for _ in toks]
        for i, t in enumerate(toks):
            if keep[i] and 0 <= t.head < len(toks) and t.head != i and keep[t.head]:
                kids[t.head].append(i)
        chains_c: Dict[int, Counter] = {n: Counter() for n in range(1, max_length + 1)}
        chains_r: Dict[int, Counter] = {n: Counter() for n in range(1, max_length + 1)}
        frontier = [(i,) for i in range(len(toks)) if keep[i]]
        for n in range(1, max_length + 1):
            for path in frontier:
                chains_c[n][tuple(toks[j].upos for j in path)] += 1
                chains_r[n][tuple(toks[j].deprel for j in path)] += 1
            frontier = [path + (c,) for path in frontier for c in kids[path[-1]]]
        by_relation: Dict[str, Counter] = {}
        for i, t in enumerate(toks):
            if keep[i]:
                by_relation.setdefault(t.deprel, Counter())[t.lemma.lower()] += 1
        return cls(chains_c, chains_r, by_relation)


def _f1(hyp: Counter, ref: Counter) -> Optional[float]:
    if not hyp and not ref:
        return None
    matched = sum((hyp & ref).values())
    if matched == 0:
        return 0.0
    p, r = matched / sum(hyp.values()), matched / sum(ref.values())
    return 2 * p * r / (p + r)


def hwcm(hyp: Dict[int, Counter], ref: Dict[int, Counter]) -> float:
    """Head-word-chain matching: F1 of clipped chain matches per chain length, averaged over
    the lengths at which either side has chains (1.0 when neither has any)."""
    values = [v for n in hyp for v in [_f1(hyp[n], ref.get(n, Counter()))] if v is not None]
    return float(sum(values) / len(values)) if values else 1.0


def dependency_overlap(hyp: Dict[str, Counter], ref: Dict[str, Counter]) -> float:
    """DP-Or(*): per relation type, sum min / sum max of lemma counts, averaged over the types
    present on either side (1.0 when neither side has a word)."""
    types = set(hyp) | set(ref)
    if not types:
        return 1.0
    total = 0.0
    for t in types:
        h, r = hyp.get(t, Counter()), ref.get(t, Counter())
        total += sum((h & r).values()) / sum((h | r).values())
    return total / len(types)


def ter_similarity(hyp: str, ref: str) -> float:
    """1 - TER / 100 (1 = identical; negative when the edits outnumber the reference words);
    an empty reference gives 1.0 for an empty hypothesis and 0.0 otherwise."""
    if not ref.split():
        return 1.0 if not hyp.split() else 0.0
    return 1.0 - sentence_ter(hyp, ref) / 100.0


# --------------------------------------------------------------------------------------
# the scorer

@dataclass
class _Analysis:
    """Everything about one unique text that the scorer reuses across pairs."""

    tree: Optional[DiscourseTree]
    plain: str
    compiled: Dict[str, CompiledTree]
    self_kernels: Dict[str, float]
    deps: Optional[DependencyItems] = None


Weights = Union[None, str, Path, Mapping[str, Any], PairwiseModel]


class DiscoTK(Scorer):
    """DiscoTK-light / DiscoTK-party. See the module docstring and the metric card.

    Options: ``variant`` (light | party); ``weights`` (None = the variant's default: uniform
    for light, the shipped tuned weights for party; "uniform"; "tuned"; a JSON path; a
    mapping {feature: weight, "bias": b}; or a :class:`PairwiseModel`); ``decay`` (kernel
    lambda, 0.4); ``normalization`` (per-test-set | none, for uniform combinations);
    ``input_format`` (auto | text | rst: bracketed RST trees from an external parser);
    ``linguistic_backend`` / ``spacy_model`` (the dependency parser); ``max_words`` (plain
    texts longer than this many words are truncated, with a warning: the kernel's cost grows
    with the square of repeated words).
    """

    name: ClassVar[str] = "discotk"
    references_mode: ClassVar[str] = "required"
    sources_mode: ClassVar[str] = "none"
    multi_reference: ClassVar[bool] = False
    demo_inputs: ClassVar[Dict[str, List[Any]]] = {
        "predictions": [
            '"The new structure will also allow us to enter the market with a joint offer of '
            'advertising products and to streamline the management of the company," said Cermak.',
            "The new structure also allows us enter market with joint offer of advertising "
            "products, streamline management of company Cermak added.",
        ],
        "references": [
            '"The new organisational structure will also allow us to enter the market with a joint '
            'offer of advertising products and to continue to streamline the business management '
            'of the company," added Cermak.',
        ] * 2,
    }
    demo_options: ClassVar[Optional[Dict[str, Any]]] = {"variant": "party"}

    def __init__(self, *, variant: str = "party", weights: Weights = None, decay: float = DEFAULT_LAMBDA,
                 normalization: str = "per-test-set", input_format: str = "auto",
                 lexical_layer: str = "flat",
                 linguistic_backend: str = "auto", spacy_model: Optional[str] = None,
                 max_words: int = 1000, cache_size: int = 100_000, quiet: bool = False) -> None:
        super().__init__(quiet=quiet)
        self.features_used = feature_names(variant)
        self.variant = variant
        if not 0.0 < decay <= 1.0:
            raise ValueError(f"decay (the kernel's lambda) must be in (0, 1], got {decay}")
        check_choice("normalization", normalization, NORMALIZATIONS)
        check_choice("input_format", input_format, INPUT_FORMATS)
        check_choice("lexical_layer", lexical_layer, LEXICAL_LAYERS)
        self.decay = decay
        self.lexical_layer = lexical_layer
        self.normalization = normalization
        self.input_format = input_format
        self.parser = HeuristicRSTParser(linguistic_backend, spacy_model)
        if max_words < 1:
            raise ValueError(f"max_words must be positive, got {max_words}")
        self.max_words = max_words
        self.cache_size = cache_size
        self._cache: Dict[str, _Analysis] = {}
        self._lock = threading.Lock()
        self.weights_name, self.model = self._resolve_weights(weights)

    # -- weights ---------------------------------------------------------------------------
    def _resolve_weights(self, weights: Weights) -> Tuple[str, Optional[PairwiseModel]]:
        if weights is None:
            weights = "uniform" if self.variant == "light" else "tuned"
        if isinstance(weights, str) and weights == "uniform":
            return "uniform", None
        if isinstance(weights, str) and weights == "tuned":
            return "tuned", self._checked(shipped_model(self.variant, self.lexical_layer))
        if isinstance(weights, PairwiseModel):
            return "custom", self._checked(weights)
        if isinstance(weights, (str, Path)):
            data = json.loads(Path(weights).read_text())
            key = self.variant if self.lexical_layer == "flat" else f"{self.variant}/{self.lexical_layer}"
            return f"file:{Path(weights).name}", self._checked(PairwiseModel.from_dict(data.get(key, data)))
        if isinstance(weights, Mapping):
            return "custom", self._checked(PairwiseModel.from_dict(weights))
        raise ValueError(f"weights must be 'uniform', 'tuned', a path, a mapping or a PairwiseModel, got {weights!r}")

    def _checked(self, model: PairwiseModel) -> PairwiseModel:
        unknown = set(model.features) - set(self.features_used)
        if unknown:
            raise ValueError(f"weights name features {sorted(unknown)} that DiscoTK-{self.variant} "
                             f"does not compute ({', '.join(self.features_used)})")
        named = dict(zip(model.features, model.weights))
        return PairwiseModel(self.features_used, tuple(named.get(f, 0.0) for f in self.features_used),
                             model.bias, model.meta)

    # -- analysis of unique texts --------------------------------------------------------
    def _is_rst(self, text: str) -> bool:
        return self.input_format == "rst" or (self.input_format == "auto" and looks_like_rst(text))

    def _truncated(self, text: str) -> str:
        words = text.split()
        if len(words) <= self.max_words:
            return text
        warnings.warn(f"DiscoTK: a text of {len(words)} words is truncated to its first {self.max_words} "
                      "(max_words) for parsing and scoring")
        return " ".join(words[:self.max_words])

    def analyze(self, texts: Sequence[str]) -> List[_Analysis]:
        """Discourse tree, compiled representations, self-kernels (and dependency items for
        party) of each text, computed once per unique text."""
        with self._lock:
            todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
            if todo:
                trees: Dict[str, Optional[DiscourseTree]] = {}
                plain: Dict[str, str] = {}
                for t in todo:
                    if self._is_rst(t):
                        trees[t] = from_rst(t)
                        plain[t] = trees[t].plain_text() if trees[t] is not None else ""
                    else:
                        plain[t] = self._truncated(t)
                need_parse = [t for t in todo if t not in trees or self.variant == "party"]
                parses = dict(zip(need_parse, self.parser.analyzer.analyze([plain[t] for t in need_parse])))
                if len(self._cache) + len(todo) > self.cache_size:
                    self._cache.clear()
                for t in todo:
                    tree = trees[t] if t in trees else self.parser.from_parsed(parses[t])
                    compiled = {name: compile_tree(rep) for name, rep in representations(tree, self.lexical_layer).items()}
                    selfk = {name: sst_kernel(c, c, self.decay) for name, c in compiled.items()}
                    deps = DependencyItems.from_parsed(parses[t]) if self.variant == "party" else None
                    self._cache[t] = _Analysis(tree, plain[t], compiled, selfk, deps)
            return [self._cache[t] for t in texts]

    def clear_cache(self) -> None:
        """Forget the analyses of texts seen so far (the dependency parses stay cached in the
        shared analyzer)."""
        with self._lock:
            self._cache.clear()

    def pair_features(self, hyp: _Analysis, ref: _Analysis) -> Dict[str, float]:
        """Raw features of one (hypothesis, reference) pair."""
        out = {name: normalized_kernel(hyp.compiled[name], ref.compiled[name], self.decay,
                                       self_a=hyp.self_kernels[name], self_b=ref.self_kernels[name])
               for name in REPRESENTATIONS}
        if self.variant == "party":
            out["ter"] = ter_similarity(hyp.plain, ref.plain)
            out["meteor"] = sentence_meteor(hyp.plain, ref.plain)
            out["dp-hwcm_c-4"] = hwcm(hyp.deps.chains_c, ref.deps.chains_c)
            out["dp-hwcm_r-4"] = hwcm(hyp.deps.chains_r, ref.deps.chains_r)
            out["dp-or"] = dependency_overlap(hyp.deps.by_relation, ref.deps.by_relation)
        return out

    # -- Scorer API -------------------------------------------------------------------------
    def score_segments(self, inputs: Inputs) -> List[Record]:
        refs = inputs.references
        analyses = self.analyze(list(inputs.predictions) + list(refs))
        n = len(inputs)
        records = []
        for k in progress(range(n), total=n, desc="discotk", quiet=self.quiet):
            records.append({"id": inputs.ids[k], "features": self.pair_features(analyses[k], analyses[n + k])})
        return records

    def reduce(self, records: List[Record]) -> MetricResult:
        recs = sort_records(records)
        matrix = np.array([[float(r["features"][f]) for f in self.features_used] for r in recs], dtype=float)
        matrix = matrix.reshape(len(recs), len(self.features_used))
        corpus: Dict[str, Any] = {"variant": self.variant, "weights": self.weights_name,
                                  "features": list(self.features_used)}
        details = [{"features": dict(r["features"])} for r in recs]
        if self.model is None:
            if self.normalization == "per-test-set":
                matrix = np.column_stack([asiya_normalize(col) for col in matrix.T]) if len(recs) else matrix
                for d, row in zip(details, matrix):
                    d["normalized"] = dict(zip(self.features_used, row.tolist()))
            scores = matrix.mean(axis=1) if len(recs) else np.zeros(0)
        else:
            raw = self.model.raw(matrix)
            scores = _sigmoid(raw)
            for d, z in zip(details, raw.tolist()):
                d["raw"] = z
            corpus["weights_by_feature"] = dict(zip(self.model.features, self.model.weights))
            corpus["system_raw"] = float(raw.mean()) if len(raw) else float("nan")
        score = float(scores.mean()) if len(scores) else float("nan")
        return MetricResult(self.name, [float(s) for s in scores], score, self.signature, details, corpus)

    @property
    def signature(self) -> str:
        return make_signature(
            self.name, __version__, variant=self.variant, weights=self.weights_name,
            **{"lambda": self.decay}, lex=self.lexical_layer,
            norm=self.normalization if self.model is None else None,
            parser="heuristic" if self.input_format != "rst" else "external-rst",
            linguistic=self.parser.analyzer.backend)

    # -- features and tuning -----------------------------------------------------------
    def features(self, predictions: Sequence[str], references: Sequence[str]) -> np.ndarray:
        """Raw feature matrix (segments x ``features_used``) of hypothesis/reference pairs."""
        records = self.score_segments(self.validate(predictions, references))
        return np.array([[r["features"][f] for f in self.features_used] for r in records],
                        dtype=float).reshape(len(records), len(self.features_used))

    def fit(self, pairs: Sequence[Sequence[Any]], *, c: float = 1.0, use: bool = True) -> PairwiseModel:
        """Learn combination weights by pairwise logistic regression on human judgements.

        ``pairs`` holds either ``(features_better, features_worse)`` vectors (in the order of
        ``features_used``) or ``(hyp_better, hyp_worse, reference)`` text triples. With
        ``use`` the scorer scores with the learned weights afterwards."""
        pairs = list(pairs)
        if not pairs:
            raise ValueError("fit needs at least one pair")
        if isinstance(pairs[0][0], str):
            if any(len(p) != 3 for p in pairs):
                raise ValueError("text pairs must be (hyp_better, hyp_worse, reference) triples")
            better = self.features([p[0] for p in pairs], [p[2] for p in pairs])
            worse = self.features([p[1] for p in pairs], [p[2] for p in pairs])
        else:
            better = np.array([p[0] for p in pairs], dtype=float)
            worse = np.array([p[1] for p in pairs], dtype=float)
        model = fit_pairwise(better, worse, self.features_used, c=c)
        if use:
            self.weights_name, self.model = "fitted", model
        return model

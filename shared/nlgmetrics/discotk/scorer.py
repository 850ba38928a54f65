"""The DiscoTK scorer: analyses of unique texts (discourse tree, compiled representations,
self-kernels, dependency items) in a bounded LRU cache, per-pair raw features in the records,
and the corpus combination (per-test-set normalisation or learned weights) in the reduction."""
from __future__ import annotations

import math
import os
import threading
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Tuple, Type

import numpy as np

from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import Inputs, Record
from nlgmetrics.core.record_fields import Field, numbers
from nlgmetrics.core.scorer import Scorer
from nlgmetrics.core.significance import Resampler, mean_resampler
from nlgmetrics.discotk.discourse import REPRESENTATIONS, DiscourseTree, HeuristicRSTParser, from_rst, looks_like_rst, representations
from nlgmetrics.discotk.discourse.rst import rst_size
from nlgmetrics.discotk.kernels import CompiledTree, compile_tree, normalized_kernel, sst_kernel

from ..core.budget import TOKENS, Budget
from ..core.cache import LRUCache
from ..core.option_files import OptionFileNotFoundError, read_option_json
from ..core.progress import progress
from ..core.result import MetricResult
from .combine import (
    NormalizedMeans,
    PairwiseModel,
    asiya_normalize,
    fit_pairwise,
    has_shipped,
    shipped_model,
    sigmoid,
    weights_key,
)
from .config import MAX_CHARS, MAX_RST_CHARS, DiscoTKConfig, feature_names, rst_caps
from .members import (
    DependencyItems,
    bleu_similarity,
    chrf_similarity,
    dependency_overlap,
    has_word,
    hwcm,
    meteor_similarity,
    ter_similarity,
)

#: the largest weights file read (the shipped one, with every configuration's model, has 3 KB)
MAX_WEIGHTS_BYTES = 16 * 2**20
#: below this many segments, per-test-set normalisation is flagged as unreliable
TINY_CORPUS = 5


#: the analyses cache's bound, in the bytes its analyses really hold (core.cache.approx_size: about
#: 19 KB for a 16-token sentence, 33 KB with party's dependency items, so 1,000 to 1,700 sentences).
#: Issue 44: at 256 MiB (42 KB each then) a training loop scoring new texts grew the process by
#: +208 MiB over 300 calls; the analyses only pay off on texts scored again (references)
CACHE_BYTES = 32 * 2**20


@dataclass
class Analysis:
    """Everything about one unique text that the scorer reuses across pairs."""

    tree: Optional[DiscourseTree]
    plain: str
    compiled: Dict[str, CompiledTree]
    self_kernels: Dict[str, float]
    deps: Optional[DependencyItems] = None


class DiscoTK(Scorer):
    """DiscoTK-light / DiscoTK-party (see :mod:`nlgmetrics.discotk` and the metric card).

    Options: :class:`~nlgmetrics.discotk.config.DiscoTKConfig`. :meth:`fit` learns weights
    from human pairs; :meth:`features` gives the raw feature matrix."""

    name: ClassVar[str] = "discotk"
    Config: ClassVar[Type[DiscoTKConfig]] = DiscoTKConfig
    references_mode: ClassVar[str] = "required"
    sources_mode: ClassVar[str] = "none"
    multi_reference: ClassVar[bool] = False
    config: DiscoTKConfig
    #: MiniLM for party's BERTScore member (asiya+extra), else None
    encoder: Any

    def setup(self) -> None:
        cfg = self.config
        self.setup_reduce()
        if self.extra:
            from ..core.embeddings import ContextualEncoder
            from ..core.models import ModelUnavailableError

            try:
                self.encoder = ContextualEncoder("minilm", device=cfg.device, batch_size=cfg.batch_size,
                                                 quiet=self.quiet)
            except ModelUnavailableError as err:  # say which options run without it
                raise ModelUnavailableError(f"{err}; or score with variant='light' or members='asiya', "
                                            "which need no encoder") from None
        self.parser = HeuristicRSTParser(cfg.linguistic_backend, cfg.spacy_model)
        self._cache: LRUCache[str, Analysis] = LRUCache(max_entries=cfg.cache_size, max_bytes=CACHE_BYTES)

    def setup_reduce(self) -> None:
        """What the reduction reads: the features, the weights (read and checked before any model
        of :meth:`setup` loads); no parser or encoder."""
        cfg = self.config
        self.variant = cfg.variant
        self.features_used = feature_names(cfg.variant, cfg.members)
        self.extra = cfg.variant == "party" and cfg.members == "asiya+extra"
        self.encoder = None
        self.weights_name, self.model = self._resolve_weights()
        #: held while reducing and while fit(use=True) swaps the weights, so that a reduction's
        #: scores, corpus and signature all come from one set of weights
        self._weights_lock = threading.RLock()

    # -- weights ---------------------------------------------------------------------------
    def _resolve_weights(self) -> Tuple[str, Optional[PairwiseModel]]:
        cfg = self.config
        weights = cfg.weights
        if weights is None:  # party: the shipped tuned weights where they exist (flat lexical layer)
            tuned = cfg.variant == "party" and has_shipped(cfg.variant, cfg.lexical_layer, cfg.members)
            weights = "tuned" if tuned else "uniform"
        if weights == "uniform":
            return "uniform", None
        if weights == "tuned":
            return "tuned", self._checked(shipped_model(cfg.variant, cfg.lexical_layer, cfg.members))
        if isinstance(weights, str):
            try:
                data, _ = read_option_json(weights, "weights", max_bytes=MAX_WEIGHTS_BYTES)
            except OptionFileNotFoundError:
                raise OptionFileNotFoundError(f"weights must be 'uniform', 'tuned', a weights JSON file or a "
                                              f"mapping; {weights!r} is not a file") from None
            if not isinstance(data, dict):
                raise ValueError(f"weights file {weights}: expected a JSON object")
            key = weights_key(cfg.variant, cfg.lexical_layer, cfg.members)
            if isinstance(data.get(key), dict):
                entry = data[key]
            elif "features" in data or not any(isinstance(v, dict) for v in data.values()):
                entry = data  # a file holding one model
            else:  # several models (like the shipped file), none of them for this configuration
                models = ", ".join(k for k, v in data.items() if isinstance(v, dict))
                raise ValueError(f"weights file {weights} holds the models {models} but none for {key!r} "
                                 "(the entry a file with several models needs for this configuration)")
            try:
                model = PairwiseModel.from_dict(entry)
            except (TypeError, ValueError, KeyError) as err:
                raise ValueError(f"weights file {weights}: not a weights model ({err})") from None
            return f"file:{os.path.basename(weights)}", self._checked(model)
        return "custom", self._checked(PairwiseModel.from_dict(weights))

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
        fmt = self.config.input_format
        return fmt == "rst" or (fmt == "auto" and looks_like_rst(text))

    def budget(self) -> Budget:
        """Plain texts: ``max_words`` tokens as the parser's tokenizer splits them (``x-x`` is
        three), the leaves every kernel compares; RST trees: refused over their caps."""
        return Budget("tokens", self.config.max_words, TOKENS, MAX_CHARS, whole=self._check_rst)

    def _check_rst(self, text: str) -> bool:
        """True for a text read as an RST tree (``ValueError`` when it is over the caps)."""
        if not self._is_rst(text):
            return False
        if len(text) > MAX_RST_CHARS:
            raise ValueError(f"an RST tree of {len(text):,} characters; DiscoTK reads at most {MAX_RST_CHARS:,}")
        edus, tokens = rst_size(text)
        max_edus, max_tokens = rst_caps(self.config.variant, self.config.lexical_layer)
        if edus > max_edus or tokens > max_tokens:
            raise ValueError(f"an RST tree of {edus:,} EDUs and {tokens:,} tokens in them; DiscoTK-{self.variant} "
                             f"({self.config.lexical_layer} layer) scores at most {max_edus:,} EDUs and "
                             f"{max_tokens:,} tokens per tree (a tree cannot be cut; split the document"
                             + ("" if (max_edus, max_tokens) == rst_caps("light", "flat") else
                                "; variant='light' with the flat layer reads up to "
                                "{:,} EDUs and {:,} tokens".format(*rst_caps("light", "flat"))) + ")")
        return True

    def _truncated(self, text: str) -> str:
        budget = self.budget()
        cut = budget.cut(text)
        if len(cut) != len(text):
            warnings.warn(f"DiscoTK: a text of {budget.count(text[:budget.max_chars])}+ tokens is truncated to its "
                          f"first {budget.max_units} (max_words) for parsing and scoring", stacklevel=3)
        return cut

    def _analyze_new(self, texts: List[str]) -> List[Analysis]:
        trees: Dict[str, Optional[DiscourseTree]] = {}
        plain: Dict[str, str] = {}
        for t in texts:
            if self._check_rst(t):
                trees[t] = from_rst(t)
                plain[t] = trees[t].plain_text() if trees[t] is not None else ""  # type: ignore[union-attr]
            else:
                plain[t] = self._truncated(t)
        need_parse = [t for t in texts if t not in trees or self.variant == "party"]
        parses = dict(zip(need_parse, self.parser.analyzer.analyze([plain[t] for t in need_parse])))
        out = []
        for t in texts:
            tree = trees[t] if t in trees else self.parser.from_parsed(parses[t])
            shared: Dict[Any, Any] = {}  # one object per equal label, production or children tuple of the text
            compiled = {name: compile_tree(rep, shared)
                        for name, rep in representations(tree, self.config.lexical_layer).items()}
            selfk = {name: sst_kernel(c, c, self.config.decay) for name, c in compiled.items()}
            deps = DependencyItems.from_parsed(parses[t]) if self.variant == "party" else None
            out.append(Analysis(tree, plain[t], compiled, selfk, deps))
        return out

    def analyze(self, texts: Sequence[str]) -> List[Analysis]:
        """Discourse tree, compiled representations, self-kernels (and dependency items for
        party) of each text, computed once per unique text and kept in a bounded LRU cache.
        The values come from this call, so an eviction in between cannot lose one."""
        return self._cache.get_many(list(texts), self._analyze_new)

    def clear_cache(self) -> None:
        """Forget the analyses of texts seen so far (the dependency parses stay cached in the
        shared analyzer)."""
        self._cache.clear()

    def pair_features(self, hyp: Analysis, ref: Analysis) -> Dict[str, float]:
        """Raw features of one (hypothesis, reference) pair."""
        lam = self.config.decay
        out = {name: normalized_kernel(hyp.compiled[name], ref.compiled[name], lam,
                                       self_a=hyp.self_kernels[name], self_b=ref.self_kernels[name])
               for name in REPRESENTATIONS}
        if self.variant == "party":
            assert hyp.deps is not None and ref.deps is not None
            out["ter"] = ter_similarity(hyp.plain, ref.plain)
            out["meteor"] = meteor_similarity(hyp.plain, ref.plain)
            out["dp-hwcm_c-4"] = hwcm(hyp.deps.chains_c, ref.deps.chains_c)
            out["dp-hwcm_r-4"] = hwcm(hyp.deps.chains_r, ref.deps.chains_r)
            out["dp-or"] = dependency_overlap(hyp.deps.by_relation, ref.deps.by_relation)
        return out

    # -- Scorer hooks ----------------------------------------------------------------------
    def score_segments(self, inputs: Inputs) -> List[Record]:
        refs = inputs.references or []
        analyses = self.analyze(list(inputs.predictions) + list(refs))
        n = len(inputs)
        records: List[Dict[str, Any]] = [
            {"id": inputs.ids[k], "features": self.pair_features(analyses[k], analyses[n + k])}
            for k in progress(range(n), total=n, desc="discotk", quiet=self.quiet)]
        if self.extra:
            hyps, refs_plain = [a.plain for a in analyses[:n]], [a.plain for a in analyses[n:]]
            from ..core.embeddings import bertscore

            f1 = bertscore(hyps, refs_plain, self.encoder)["f1"]
            for rec, h, r, f in zip(records, hyps, refs_plain, f1):
                feats: Dict[str, float] = rec["features"]
                feats["chrf"] = chrf_similarity(h, r)
                feats["bleu"] = bleu_similarity(h, r)
                feats["bertscore"] = 1.0 if not has_word(h) and not has_word(r) else float(f)
        return records

    @classmethod
    def record_fields(cls, config: MetricConfig) -> Dict[str, Field]:
        """A record: the raw features of the variant, similarities in [0, 1] (TER's 1 - TER/100
        has no lower end, BERTScore F1 is a cosine mean in [-1, 1])."""
        assert isinstance(config, DiscoTKConfig)
        ranges = {"ter": (-math.inf, 1.0), "bertscore": (-1.0, 1.0)}
        names = feature_names(config.variant, config.members)
        return {"features": numbers(keys={name: ranges.get(name, (0.0, 1.0)) for name in names})}

    def reduce_records(self, records: List[Record]) -> MetricResult:
        with self._weights_lock:
            return self._reduce_with_weights(records)

    def _reduce_with_weights(self, records: List[Record]) -> MetricResult:
        n, names = len(records), self.features_used
        matrix = np.array([[float(r["features"][f]) for f in names] for r in records], dtype=float)
        matrix = matrix.reshape(n, len(names))
        corpus: Dict[str, Any] = {"variant": self.variant, "weights": self.weights_name, "features": list(names)}
        details: List[Dict[str, Any]] = [{"features": dict(r["features"])} for r in records]
        if self.model is None:
            if self.config.normalization == "per-test-set" and n:
                matrix = np.column_stack([asiya_normalize(col) for col in matrix.T])
                for d, row in zip(details, matrix):
                    d["normalized"] = dict(zip(names, row.tolist()))
                if n < TINY_CORPUS:
                    note = (f"per-test-set normalisation over {n} segment{'s' if n > 1 else ''}: each feature is "
                            "divided by its maximum in this call, so " +
                            ("every non-zero feature becomes 1.0" if n == 1 else "scores depend on the few others") +
                            "; score a whole test set in one call, or use weights='tuned' or normalization='none'")
                    corpus["note"] = note
                    for d in details:
                        d["note"] = note
                    warnings.warn(f"DiscoTK: {note}", stacklevel=4)
            scores = matrix.mean(axis=1) if n else np.zeros(0)
        else:
            raw = self.model.raw(matrix)
            scores = sigmoid(raw)
            for d, z in zip(details, raw.tolist()):
                d["raw"] = z
            corpus["weights_by_feature"] = dict(zip(self.model.features, self.model.weights))
            corpus["system_raw"] = float(raw.mean()) if n else float("nan")
        score = float(scores.mean()) if n else float("nan")
        return MetricResult(self.name, [float(s) for s in scores], score, self.signature, details, corpus)

    def resampler(self, records: List[Record]) -> Resampler:
        """Per-test-set normalisation is recomputed over each resample's segments; with
        weights or ``normalization="none"`` a segment's score does not depend on the corpus,
        and the corpus score is resampled as their mean."""
        names = self.features_used
        matrix = np.array([[float(r["features"][f]) for f in names] for r in records], dtype=float)
        matrix = matrix.reshape(len(records), len(names))
        with self._weights_lock:
            model = self.model
        if model is not None:
            return mean_resampler(sigmoid(model.raw(matrix)))
        if self.config.normalization != "per-test-set":
            return mean_resampler(matrix.mean(axis=1))

        return NormalizedMeans(matrix)

    def signature_facts(self) -> Dict[str, Any]:
        cfg = self.config
        out: Dict[str, Any] = {}
        if cfg.weights is None or isinstance(cfg.weights, str) or self.weights_name == "fitted":
            out["weights"] = self.weights_name
        if cfg.variant == "party":
            out["members"] = cfg.members
        if self.model is None:
            out["norm"] = cfg.normalization
        out["parser"] = "heuristic" if cfg.input_format != "rst" else "external-rst"
        out["linguistic"] = self.parser.analyzer.backend
        if self.encoder is not None:
            out["bertscore"] = self.encoder.describe()
        return out

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
        ``use`` the scorer scores with the learned weights afterwards (signature ``weights:fitted``)."""
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
            with self._weights_lock:
                self.weights_name, self.model = "fitted", model
        return model

"""TextEval's configuration and scorer: the options, the three ways in (``score``,
``rank_set``, ``score_systems``), the per-segment records and the corpus reduction."""
from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import Inputs, Record, reference_group, validate_texts
from nlgmetrics.core.record_fields import Field, count_list, counts, flag, integer, number
from nlgmetrics.core.scorer import Scorer

from ..core.progress import progress
from ..core.result import MetricResult
from ..core.significance import Resampler, mean_resampler
from . import analysis
from .analysis import SetRanking, StandardSet
from .config import CLASS_LEXICON, TextEvalConfig
from .features import ngram_counts, tag_symbols, word_symbols
from .resampling import DocumentResampler

#: the fewest references per segment the scaling approach needs (a set of 3 texts with the prediction)
MIN_SCALING_REFERENCES = 2


def warn_short_sets(refs: Sequence[Sequence[str]]) -> None:
    """One warning naming the segments with fewer than :data:`MIN_SCALING_REFERENCES`
    references: a 1-D scale of the prediction and one reference is two points at +-d/2 with no
    consensus to orient it, so their score is defined as 0.0 with ``r2`` NaN and
    ``reliable: false`` (the metric card's "Scaling needs two references")."""
    short = [i for i, r in enumerate(refs) if len(r) < MIN_SCALING_REFERENCES]
    if short:
        shown = ", ".join(map(str, short[:5])) + (f" and {len(short) - 5} more" if len(short) > 5 else "")
        warnings.warn(f"TextEval approach='scaling' needs at least {MIN_SCALING_REFERENCES} references per "
                      f"segment; {len(short)} segment(s) have fewer (index {shown}): a scale of the prediction "
                      "and one reference has no direction, so they score 0.0 with r2 nan and reliable false; "
                      "use approach='direct' or give more references", stacklevel=4)


class TextEval(Scorer):
    """TextEval: multinomial distances to a standard set (see :mod:`nlgmetrics.texteval`)."""

    name = "texteval"
    Config = TextEvalConfig
    references_mode = "required"
    sources_mode = "none"
    multi_reference = True
    config: TextEvalConfig
    #: the r2 of a scale of fewer than 3 texts (a row with one reference) is NaN
    nonfinite_fields: ClassVar[frozenset] = frozenset({"r2"})

    def setup(self) -> None:
        self._analyzer: Any = None
        if self.config.features == "tags":
            from ..core.linguistic import get_analyzer

            self._analyzer = get_analyzer(self.config.linguistic_backend)

    def setup_reduce(self) -> None:
        """The reduction rates counts already in the records: no tagger."""
        self._analyzer = None

    def signature_facts(self) -> dict[str, Any]:
        if self.config.features == "tags":
            return {"tagger": self._analyzer.backend}
        if self.config.features == "classes":
            return {"lex": CLASS_LEXICON}
        return {}

    # --- features -------------------------------------------------------------------
    def symbols(self, texts: Sequence[str]) -> list[list[str]]:
        """The feature sequence of each text under the configured features (before n-grams)."""
        if self.config.features == "tags":
            return tag_symbols(self._analyzer, texts, self.config.tagset)
        return word_symbols(texts, self.config.features, self.config.lowercase)

    def counts(self, texts: Sequence[str]) -> list[Counter]:
        """The multinomial (feature counts) of each text; repeated texts are featurised once."""
        unique = list(dict.fromkeys(texts))
        table = {t: ngram_counts(s, self.config.ngram) for t, s in zip(unique, self.symbols(unique))}
        return [table[t] for t in texts]

    def pair_distance(self, counts_a: np.ndarray, counts_b: np.ndarray) -> tuple[float, float, int]:
        """(distance, G2, df) of two count vectors over the same columns."""
        return analysis.pair_distance(counts_a, counts_b, self.config.distance)

    _scale = staticmethod(analysis.scale)

    # --- sets of translations and systems ----------------------------------------------
    def rank_set(self, texts: Sequence[str], ratings: Sequence[float] | None = None,
                 names: Sequence[str] | None = None) -> SetRanking:
        """Rate every member of a set of translations of one source against the rest.

        With ``ratings`` (human ratings of the members, higher = better) each composite is
        weighted by the ratings of its members (:func:`rating_weights`); the pairwise
        distances and so the scale do not change, only its orientation may."""
        texts = validate_texts(texts, "texts")
        return self.rank_counts(self.counts(texts), ratings, names)

    def rank_counts(self, counts: Sequence[Mapping[str, float]], ratings: Sequence[float] | None = None,
                    names: Sequence[str] | None = None) -> SetRanking:
        """:meth:`rank_set` on precomputed feature counts (one mapping per member)."""
        views = analysis.same_views(analysis.dense(counts))
        result = analysis.analyse(views, self.config.distance, ratings)
        return self._ranking(result, names, len(counts), [int(sum(c.values())) for c in counts])

    def score_systems(self, outputs: Mapping[str, Sequence[str | None]],
                      ratings: Mapping[str, float] | None = None) -> SetRanking:
        """System-level mode: each system's outputs (aligned by segment; ``None`` where a
        system has no output) concatenated into one document, the systems rated as a set.
        Pairs of systems are compared on the segments both have; a system's composite is
        the others' outputs of the segments it has."""
        if not isinstance(outputs, Mapping):
            raise ValueError(f"outputs must map each system's name to its outputs, got {type(outputs).__name__}")
        names = list(outputs)
        columns = [validate_texts(outputs[s], f"outputs[{s!r}]", allow_none=True) for s in names]
        if len({len(c) for c in columns}) > 1:
            raise ValueError("every system needs one entry (text or None) per segment")
        if ratings is not None:
            missing = [s for s in names if s not in ratings]
            if missing:
                raise ValueError(f"ratings has no rating for system(s) {', '.join(map(repr, missing))}; "
                                 "rate every system or pass ratings=None")
        texts = [t for col in columns for t in col if t is not None]
        table = dict(zip(texts, self.counts(texts)))
        segment_counts = [[None if t is None else table[t] for t in col] for col in columns]
        weights = None if ratings is None else [float(ratings[s]) for s in names]
        return self.rank_documents(segment_counts, weights, names)

    def rank_documents(self, segment_counts: Sequence[Sequence[Mapping[str, float] | None]],
                       ratings: Sequence[float] | None = None,
                       names: Sequence[str] | None = None) -> SetRanking:
        """:meth:`score_systems` on precomputed counts: ``segment_counts[s][g]`` the counts
        of system s's output of segment g, or ``None``."""
        from scipy import sparse

        n = len(segment_counts)
        vocab: dict[str, int] = {}
        for col in segment_counts:
            for c in col:
                for key in c or ():
                    vocab.setdefault(key, len(vocab))
        width = max(len(vocab), 1)
        n_segments = len(segment_counts[0]) if n else 0
        present = sparse.csr_matrix(np.array([[c is not None for c in col] for col in segment_counts], dtype=float))
        # views[s, t]: system s's counts summed over the segments system t also has
        views = np.zeros((n, n, width))
        for s, col in enumerate(segment_counts):
            rows, cols, vals = [], [], []
            for g, c in enumerate(col):
                for key, v in (c or {}).items():
                    rows.append(g)
                    cols.append(vocab[key])
                    vals.append(v)
            x = sparse.csr_matrix((vals, (rows, cols)), shape=(n_segments, width))
            views[s] = np.asarray((present @ x).todense())
        tokens = [int(views[s, s].sum()) for s in range(n)]
        result = analysis.analyse(views, self.config.distance, ratings)
        return self._ranking(result, names, n, tokens)

    def _ranking(self, result: analysis.SetAnalysis, names: Sequence[str] | None, n: int,
                 tokens: list[int]) -> SetRanking:
        labels = [str(i) for i in range(n)] if names is None else [str(s) for s in names]
        return analysis.ranking(result, self.config.approach, self.config.min_r2, labels, tokens)

    # --- the Scorer hooks ----------------------------------------------------------------
    def _standard_set(self, members: list[Mapping[str, float]], keys: Sequence[str] | None = None,
                      cache: dict[tuple[str, str], float] | None = None) -> StandardSet:
        c = self.config
        return StandardSet(members, c.distance, c.approach, c.min_r2, keys, cache)

    def score_segments(self, inputs: Inputs) -> list[Record]:
        """Rate each prediction against the references of its row; with
        ``corpus="document"`` each record also carries the counts of the prediction and of
        each reference, from which the reduction builds the documents."""
        refs = [reference_group(r) for r in inputs.references or []]
        if self.config.approach == "scaling":
            warn_short_sets(refs)
        document = self.config.corpus == "document"
        if document and self.config.approach == "scaling" and len({len(r) for r in refs}) > 1:
            raise ValueError("corpus='document' with approach='scaling' needs the same number of references "
                             "in every row (reference j of every row from translator j); use corpus='mean'")
        unique = list(dict.fromkeys(inputs.predictions + [t for r in refs for t in r]))
        table = dict(zip(unique, self.counts(unique)))
        sets: dict[tuple[str, ...], StandardSet] = {}
        pair_cache: dict[tuple[str, str], float] = {}  # lives for this call only
        records = []
        rows = zip(inputs.ids, inputs.predictions, refs)
        for seg_id, pred, ref_texts in progress(rows, total=len(inputs), desc="texteval", quiet=self.quiet):
            key = tuple(ref_texts)
            if key not in sets:
                sets[key] = self._standard_set([table[t] for t in ref_texts], key, pair_cache)
            record = sets[key].rate(table[pred], pred)
            record["id"] = seg_id
            if document:
                record["counts"] = dict(table[pred])
                record["reference_counts"] = [dict(table[t]) for t in ref_texts]
            records.append(record)
        return records

    @classmethod
    def record_fields(cls, config: MetricConfig) -> dict[str, Field]:
        """A record (:meth:`StandardSet.rate`): score, distance, G2, df, tokens, the standard
        set's size; for scaling r2 (NaN under 3 texts) and reliability; for
        ``corpus="document"`` the counts of the prediction and of each reference."""
        assert isinstance(config, TextEvalConfig)
        fields = {"score": number(), "distance": number(0), "g2": number(0), "df": integer(), "tokens": integer(),
                  "standard_set": integer(1)}
        if config.approach == "scaling":
            fields.update(r2=number(0, 1, nan=True), reliable=flag())
        if config.corpus == "document":
            fields.update(counts=counts(), reference_counts=count_list())
        return fields

    def derived_fields(self, record: Record) -> dict[str, Any]:
        """With the counts (``corpus="document"``) the whole rating recomputed from them;
        else ``score = -distance`` (direct), the reliability from r2 (scaling), and the
        distance from G2 under ``distance="g2"``."""
        if "counts" in record:
            members: list[Mapping[str, float]] = [Counter(c) for c in record["reference_counts"]]
            return self._standard_set(members).rate(Counter(record["counts"]))
        out: dict[str, Any] = {}
        if self.config.approach == "direct":
            out["score"] = 0.0 - record["distance"]
        else:  # NaN r2 (under 3 texts): not reliable
            out["reliable"] = bool(record["r2"] >= self.config.min_r2)
        if self.config.distance == "g2":
            out["distance"] = record["g2"]
        return out

    def reduce_records(self, records: list[Record]) -> MetricResult:
        """Segment scores as recorded; the corpus score is the mean of them
        (``corpus="mean"``) or the rating of the predictions' document against the
        references' documents (``corpus="document"``), computed from the recorded counts so
        that records from several shards reduce to the same result."""
        scores = [float(r["score"]) for r in records]
        bulky = {"score", "counts", "reference_counts"}
        details = [{k: v for k, v in r.items() if k not in bulky} for r in records]
        info: dict[str, Any] = {"corpus": self.config.corpus, "segments": len(records)}
        if self.config.approach == "scaling":
            r2s = [r["r2"] for r in records if r["r2"] == r["r2"]]
            info["mean_r2"] = float(np.mean(r2s)) if r2s else float("nan")
            info["unreliable_segments"] = sum(1 for r in records if not r["reliable"])
        if self.config.corpus == "mean" or not records:
            corpus_score = float(np.mean(scores)) if scores else float("nan")
        else:
            document = self._document(records)
            corpus_score = document.pop("score")
            info.update(document)
        return MetricResult(self.name, scores, corpus_score, self.signature, details, info)

    def resampler(self, records: list[Record]) -> Resampler:
        """``corpus="mean"``: the mean of the segment scores. ``corpus="document"``: each
        resample's documents summed from the recorded counts (as :meth:`_document`, a segment
        drawn twice counted twice) and rated afresh, scaling included, a block of resamples
        at once (:class:`~nlgmetrics.texteval.resampling.DocumentResampler`)."""
        if self.config.corpus == "mean":
            return mean_resampler([r["score"] for r in records])
        return DocumentResampler(records, self.config.distance, self.config.approach)

    def _document(self, records: list[Record]) -> dict[str, Any]:
        """Rate the concatenated predictions against the concatenated references."""
        prediction: Counter = Counter()
        for r in records:
            prediction.update(r["counts"])
        slots = max(len(r["reference_counts"]) for r in records)
        if self.config.approach == "scaling" and any(len(r["reference_counts"]) != slots for r in records):
            raise ValueError("document-level scaling needs the same number of references in every row")
        documents: list[Counter] = [Counter() for _ in range(slots)]
        for r in records:
            for doc, c in zip(documents, r["reference_counts"]):
                doc.update(c)
        record = self._standard_set(list(documents)).rate(prediction)
        return {"score": record["score"], "document": {k: v for k, v in record.items() if k != "score"}}

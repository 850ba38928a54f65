"""TextEval (Brew and Thompson, 1994): rate a translation by how much it resembles the other
translations of the same source (its *standard set*), on the hypothesis that good
translations resemble each other more than bad ones.

Every text becomes a multinomial over one of three kinds of feature (``model``):

- ``words``: lowercased word tokens (a regex tokenizer that splits English clitics);
- ``tags``: part-of-speech tags from the project's tagger (spaCy; Penn ``xpos`` by default);
- ``classes``: ambiguity classes, the set of tags a lexicon allows a word whatever its
  context: WordNet's POS set of the word plus the closed-class tags of a built-in list
  (:data:`CLOSED_CLASS`); numbers are ``NUM``, punctuation ``PUNCT``, words neither lists
  know ``X``.

The distance between two texts is Dunning's G2 of the 2 x k table of their counts
(``distance="g2"``, the default) or, as the paper reports its metrics, ``-ln p`` of that G2
under chi-square with k - 1 degrees of freedom (``distance="neg_log_p"``). G2 is the default
because the chi-square reference fails on sparse tables: for word counts of long texts k - 1
(the distinct words) exceeds G2, p rounds to 1 and every distance becomes 0 (measured on
WMT21 system documents, where the word scales degenerate; see the card). ``ngram=2`` counts
bigrams of the features instead (the paper's "further work").

Two approaches turn distances into ratings:

- ``direct``: the distance of a text from the composite (summed counts) of the rest of its
  set; the score is its negative, so higher = closer = better;
- ``scaling``: classical MDS of the set's pairwise distance matrix to one dimension; the
  score is the text's coordinate, oriented so that higher means closer to the consensus
  (the sign that makes the coordinates correlate positively with the direct scores), and
  the set's ``r2`` says how much of the pairwise distances the scale explains (the paper
  discards scales with r2 below about 0.1; records carry ``reliable = r2 >= min_r2``).

Three ways in:

- ``score(predictions, references)``: each prediction is rated against its own standard
  set, the references of its row (which do not include it). Per segment the set is
  ``[prediction] + references``; the work on a standard set shared by several rows (counts,
  composite, pairwise distances) is done once. The corpus score (``corpus="document"``,
  the default) treats the predictions as consecutive segments of one text and reference j
  of every row as consecutive segments of translator j's text, and rates that document the
  same way (a text of several sentences is one multinomial, as in the paper);
  ``corpus="mean"`` averages the segment scores instead.
- :meth:`TextEval.rank_set`: rate every member of a set of translations of one source
  against the rest (the paper's own use), optionally with a composite weighted by human
  ratings of the set.
- :meth:`TextEval.score_systems`: the system-level mode; each system's outputs are
  concatenated (their counts summed, so no n-gram spans two segments) and the systems rated
  as a set. Missing outputs (``None``) are allowed: each pair of systems is compared on the
  segments both have, and a system's composite is formed from the others' outputs of its
  own segments.

Edge cases (all documented results, none an error): a text with no tokens has distance 0
from anything (no evidence of difference), so in the direct approach an empty prediction
gets the best possible score 0 -- TextEval measures distributional similarity, not
adequacy, and favours short texts in general (small samples give small G2); a set of one
text gives score 0; a set of two gives both members the same direct score and scaling
coordinates 0 (a scale needs at least 3 texts; r2 is then ``nan``); identical texts give
distances 0, scores 0 and r2 1.
"""
from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import __version__
from .core.base import Inputs, Record, Scorer, sort_records
from .core.progress import progress
from .core.result import MetricResult, make_signature
from .core.stats import classical_mds_1d, g2, pearson
from .core.stats import g2_neg_log_p as neg_log_p

MODELS = ("words", "tags", "classes")
APPROACHES = ("direct", "scaling")
DISTANCES = ("g2", "neg_log_p")
CORPUS_MODES = ("document", "mean")
TAGSETS = ("xpos", "upos")

#: closed-class words and the tags a lexicon allows them (UPOS names), used with WordNet's
#: open-class POS sets to build ambiguity classes
CLOSED_CLASS: Dict[str, str] = {
    "DET": "a an the this that these those some any no every each either neither all both half "
           "several many much few little more most less least enough such what which whatever "
           "whichever whose another other my your his her its our their",
    "PRON": "i me you he him she her it we us they them myself yourself himself herself itself "
            "ourselves yourselves themselves mine yours hers ours theirs this that these those "
            "who whom whose which what whoever whomever whatever someone somebody something "
            "anyone anybody anything everyone everybody everything nobody nothing none one all "
            "both some any many much few several each either neither 'em",
    "ADP": "of in on at by for with from to into onto upon about above across after against "
           "along amid among amongst around as before behind below beneath beside besides between "
           "beyond but despite down during except inside like near off out outside over past per "
           "since than through throughout till toward towards under underneath unlike until up "
           "via within without",
    "CCONJ": "and or but nor yet so plus",
    "SCONJ": "if because although though while whilst whereas unless whether since that as once "
             "until till when whenever where wherever after before than lest",
    "AUX": "be am is are was were been being have has had having do does did will would shall "
           "should can could may might must ought ca wo 's 're 've 'd 'll 'm",
    "PART": "to not n't 's",
    "NUM": "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
           "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
           "eighty ninety hundred thousand million billion trillion",
    "INTJ": "oh ah yes no hello hi hey wow okay ok please thanks alas",
}

_WN_TAGS = {"n": "NOUN", "v": "VERB", "a": "ADJ", "s": "ADJ", "r": "ADV"}
_TOKEN = re.compile(r"\d+(?:[.,:/]\d+)*|\w+(?=n't\b)|n't\b|'(?:s|re|ve|d|ll|m|em)\b|\w+(?:-\w+)*|[^\w\s]",
                    re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*$")
_SPACE_TAGS = {"_SP", "SP", "SPACE"}
_BOUNDARY = ("<s>", "</s>")


def tokenize(text: str) -> List[str]:
    """Word and punctuation tokens; clitics split as in the Penn treebank (do n't, it 's)."""
    return _TOKEN.findall(text.replace("\u2019", "'"))


@functools.lru_cache(maxsize=1)
def _closed_class_lexicon() -> Dict[str, Tuple[str, ...]]:
    lexicon: Dict[str, set] = {}
    for tag, words in CLOSED_CLASS.items():
        for word in words.split():
            lexicon.setdefault(word, set()).add(tag)
    return {w: tuple(sorted(tags)) for w, tags in lexicon.items()}


@functools.lru_cache(maxsize=200_000)
def ambiguity_class(word: str) -> str:
    """The tags the lexicon allows ``word`` in any context, joined by ``|`` (e.g.
    ``AUX|NOUN|VERB`` for *can*): closed-class tags from :data:`CLOSED_CLASS` plus WordNet's
    POS set (found through WordNet's own lemmatiser); ``NUM`` for numerals, ``PUNCT`` for
    punctuation, ``X`` for words neither source knows."""
    from .core.resources import wordnet

    word = word.lower()
    if _NUMBER.match(word):
        return "NUM"
    if not any(ch.isalnum() for ch in word):
        return "PUNCT"
    tags = set(_closed_class_lexicon().get(word, ()))
    if word.isalpha() or "-" in word:
        tags.update(_WN_TAGS[s.pos()] for s in wordnet().synsets(word.replace("-", "_")))
    return "|".join(sorted(tags)) if tags else "X"


def ngram_counts(symbols: Sequence[str], n: int = 1) -> Counter:
    """Counts of the n-grams of ``symbols`` (padded with ``<s>``/``</s>`` for n > 1; an
    empty sequence has no n-grams)."""
    if n == 1 or not symbols:
        return Counter(symbols)
    padded = [_BOUNDARY[0]] * (n - 1) + list(symbols) + [_BOUNDARY[1]]
    return Counter(" ".join(padded[i:i + n]) for i in range(len(padded) - n + 1))


def rating_weights(ratings: Sequence[float]) -> np.ndarray:
    """Weights of the members of a composite from their human ratings: ratings min-max
    scaled to [0, 1] over the members, then rescaled to mean 1 (so the composite keeps the
    size of the unweighted one); equal ratings give weights 1 (the unweighted composite)."""
    r = np.asarray(ratings, dtype=float)
    if not np.isfinite(r).all():
        raise ValueError("ratings must be finite numbers")
    spread = float(r.max() - r.min()) if len(r) else 0.0
    if spread == 0.0:
        return np.ones(len(r))
    w = (r - r.min()) / spread
    return w / w.mean()


@dataclass
class SetRanking:
    """Ratings of the members of one set (of texts, or of systems' documents).

    ``scores`` are the chosen approach's (higher = better); ``direct`` the negative distance
    of each member from the composite of the rest, ``scaling`` its MDS coordinate oriented
    toward the consensus (``orientation`` is the sign applied to the raw eigenvector
    coordinate), ``r2`` the share of the pairwise distances the 1-D scale explains (``nan``
    for sets under 3), ``distances`` the pairwise matrix, ``tokens`` each member's feature
    count."""

    names: List[str]
    approach: str
    scores: List[float]
    direct: List[float]
    scaling: List[float]
    r2: float
    reliable: bool
    orientation: int
    distances: List[List[float]]
    tokens: List[int]

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


class TextEval(Scorer):
    """TextEval: multinomial distances to a standard set (see the module docstring).

    Options (defaults in brackets): ``model`` [tags] words|tags|classes; ``approach``
    [direct] direct|scaling; ``distance`` [g2] g2|neg_log_p; ``ngram`` [1] n-gram
    order of the features; ``corpus`` [document] document|mean; ``lowercase`` [True] for the
    words model; ``tagset`` [xpos] xpos (Penn) | upos for the tags model; ``min_r2`` [0.1]
    the r2 below which a scale is flagged unreliable; ``linguistic_backend`` [auto] the
    tagger backend of :func:`nlgmetrics.core.linguistic.get_analyzer`.
    """

    name = "texteval"
    references_mode = "required"
    sources_mode = "none"
    multi_reference = True
    demo_inputs = {
        "predictions": [
            "The report describes the opportunities and dangers of Europe's many languages.",
            "Report it describes chances and the dangers Europe languages many of.",
        ],
        "references": [
            ["The report deals with the opportunities and the dangers of Europe's multilingualism.",
             "The report discusses the chances and risks that Europe's many languages bring.",
             "This report describes the opportunities and dangers of a multilingual Europe."],
            ["The report deals with the opportunities and the dangers of Europe's multilingualism.",
             "The report discusses the chances and risks that Europe's many languages bring.",
             "This report describes the opportunities and dangers of a multilingual Europe."],
        ],
    }
    demo_options = {"model": "tags"}

    def __init__(self, *, model: str = "tags", approach: str = "direct", distance: str = "g2",
                 ngram: int = 1, corpus: str = "document", lowercase: bool = True, tagset: str = "xpos",
                 min_r2: float = 0.1, linguistic_backend: str = "auto", quiet: bool = False) -> None:
        super().__init__(quiet=quiet)
        for option, value, allowed in (("model", model, MODELS), ("approach", approach, APPROACHES),
                                       ("distance", distance, DISTANCES), ("corpus", corpus, CORPUS_MODES),
                                       ("tagset", tagset, TAGSETS)):
            if value not in allowed:
                raise ValueError(f"unknown {option} {value!r}; choose one of {', '.join(allowed)}")
        if not isinstance(ngram, int) or ngram < 1:
            raise ValueError(f"ngram must be a positive integer, got {ngram!r}")
        self.model, self.approach, self.distance = model, approach, distance
        self.ngram, self.corpus, self.lowercase, self.tagset = ngram, corpus, lowercase, tagset
        self.min_r2 = float(min_r2)
        self.linguistic_backend = linguistic_backend
        self._analyzer = None

    # --- features -------------------------------------------------------------------

    @property
    def analyzer(self):
        """The tagger (loaded on first use by the tags model only)."""
        if self._analyzer is None:
            from .core.linguistic import get_analyzer

            self._analyzer = get_analyzer(self.linguistic_backend)
        return self._analyzer

    def symbols(self, texts: Sequence[str]) -> List[List[str]]:
        """The feature sequence of each text under the configured model (before n-grams)."""
        if self.model == "tags":
            field = "xpos" if self.tagset == "xpos" else "upos"
            parsed = self.analyzer.analyze(list(texts))
            return [[getattr(t, field) for t in p.tokens if t.xpos not in _SPACE_TAGS and t.upos != "SPACE"
                     and t.text.strip()] for p in parsed]
        tokens = [tokenize(t) for t in texts]
        if self.model == "classes":
            return [[ambiguity_class(w) for w in toks] for toks in tokens]
        return [[w.lower() for w in toks] for toks in tokens] if self.lowercase else tokens

    def counts(self, texts: Sequence[str]) -> List[Counter]:
        """The multinomial (feature counts) of each text; repeated texts are featurised once."""
        unique = list(dict.fromkeys(texts))
        table = {t: ngram_counts(s, self.ngram) for t, s in zip(unique, self.symbols(unique))}
        return [table[t] for t in texts]

    # --- distances and the two approaches --------------------------------------------

    def pair_distance(self, counts_a: np.ndarray, counts_b: np.ndarray) -> Tuple[float, float, int]:
        """(distance, G2, df) of two count vectors over the same columns."""
        value = g2(counts_a, counts_b)
        df = int(np.count_nonzero(np.asarray(counts_a) + np.asarray(counts_b))) - 1
        if self.distance == "g2":
            return value, value, max(df, 0)
        return neg_log_p(value, df), value, max(df, 0)

    @staticmethod
    def pairwise(n: int, distance: Callable[[int, int], float]) -> np.ndarray:
        """The symmetric n x n matrix of ``distance(i, j)`` (computed for i < j)."""
        distances = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                distances[i, j] = distances[j, i] = distance(i, j)
        return distances

    def _analyse(self, n: int, pair: Callable[[int, int], Tuple[np.ndarray, np.ndarray]],
                 own_and_rest: Callable[[int], Tuple[np.ndarray, np.ndarray]],
                 ratings: Optional[Sequence[float]] = None, distances: Optional[np.ndarray] = None
                 ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
        """Both approaches over a set of ``n`` members: (direct distances, pairwise distances,
        oriented coordinates, r2, orientation). ``pair(i, j)`` gives the two count vectors to
        compare, ``own_and_rest(i)`` member i's vector and the stacked vectors of the others
        that form its composite; ``distances`` a precomputed pairwise matrix."""
        if ratings is not None and len(ratings) != n:
            raise ValueError(f"ratings has {len(ratings)} values but the set has {n} members")
        direct = np.zeros(n)
        for i in range(n):
            own, rest = own_and_rest(i)
            if len(rest) == 0:
                continue
            if ratings is None:
                composite = rest.sum(axis=0)
            else:
                composite = rating_weights([r for k, r in enumerate(ratings) if k != i]) @ rest
            direct[i] = self.pair_distance(own, composite)[0]
        if distances is None:
            distances = self.pairwise(n, lambda i, j: self.pair_distance(*pair(i, j))[0])
        coords, r2, sign = self._scale(distances, -direct)
        return direct, distances, coords, r2, sign

    def _ranking(self, analysis: Tuple[np.ndarray, np.ndarray, np.ndarray, float, int],
                 names: List[str], tokens: List[int]) -> SetRanking:
        direct, distances, coords, r2, sign = analysis
        direct_scores = [float(-d) + 0.0 for d in direct]
        scaling_scores = [float(c) for c in coords]
        return SetRanking(names, self.approach, direct_scores if self.approach == "direct" else scaling_scores,
                          direct_scores, scaling_scores, r2, bool(r2 >= self.min_r2), sign,
                          distances.tolist(), tokens)

    @staticmethod
    def _scale(distances: np.ndarray, consensus: np.ndarray) -> Tuple[np.ndarray, float, int]:
        """Classical MDS to 1-D, oriented so the coordinates correlate positively with
        ``consensus`` (the direct scores); when that correlation is undefined or 0, so that
        the member closest to its composite is on the positive side; else as computed.
        Sets under 3 members give coordinates 0 and r2 ``nan``."""
        n = len(distances)
        if n < 3:
            return np.zeros(n), float("nan"), 1
        x, r2 = classical_mds_1d(distances)
        x = np.where(np.abs(x) < 1e-12 * max(1.0, float(np.abs(x).max())), 0.0, x)
        r = pearson(x, consensus) if np.ptp(consensus) > 0 and np.ptp(x) > 0 else float("nan")
        if r == r and r != 0:
            sign = 1 if r > 0 else -1
        else:
            best = x[int(np.argmax(consensus))]
            sign = -1 if best < 0 else 1
        return sign * x + 0.0, float(r2), sign

    def rank_set(self, texts: Sequence[str], ratings: Optional[Sequence[float]] = None,
                 names: Optional[Sequence[str]] = None) -> SetRanking:
        """Rate every member of a set of translations of one source against the rest.

        With ``ratings`` (human ratings of the members, higher = better) each composite is
        weighted by the ratings of its members (:func:`rating_weights`); the pairwise
        distances and so the scale do not change, only its orientation may."""
        texts = list(texts)
        if any(not isinstance(t, str) for t in texts):
            raise ValueError("rank_set takes a list of strings")
        return self.rank_counts(self.counts(texts), ratings, names)

    def rank_counts(self, counts: Sequence[Mapping[str, float]], ratings: Optional[Sequence[float]] = None,
                    names: Optional[Sequence[str]] = None) -> SetRanking:
        """:meth:`rank_set` on precomputed feature counts (one mapping per member)."""
        n = len(counts)
        matrix = _dense(counts)
        names = [str(i) for i in range(n)] if names is None else [str(s) for s in names]
        analysis = self._analyse(n, lambda i, j: (matrix[i], matrix[j]),
                                 lambda i: (matrix[i], np.delete(matrix, i, axis=0)), ratings)
        return self._ranking(analysis, names, [int(sum(c.values())) for c in counts])

    def score_systems(self, outputs: Mapping[str, Sequence[Optional[str]]],
                      ratings: Optional[Mapping[str, float]] = None) -> SetRanking:
        """System-level mode: each system's outputs (aligned by segment; ``None`` where a
        system has no output) concatenated into one document, the systems rated as a set.
        Pairs of systems are compared on the segments both have; a system's composite is
        the others' outputs of the segments it has."""
        names = list(outputs)
        columns = [list(outputs[s]) for s in names]
        if len({len(c) for c in columns}) > 1:
            raise ValueError("every system needs one entry (text or None) per segment")
        texts = [t for col in columns for t in col if t is not None]
        if any(not isinstance(t, str) for t in texts):
            raise ValueError("system outputs must be strings or None")
        table = dict(zip(texts, self.counts(texts)))
        segment_counts = [[None if t is None else table[t] for t in col] for col in columns]
        weights = None if ratings is None else [float(ratings[s]) for s in names]
        return self.rank_documents(segment_counts, weights, names)

    def rank_documents(self, segment_counts: Sequence[Sequence[Optional[Mapping[str, float]]]],
                       ratings: Optional[Sequence[float]] = None,
                       names: Optional[Sequence[str]] = None) -> SetRanking:
        """:meth:`score_systems` on precomputed counts: ``segment_counts[s][g]`` the counts
        of system s's output of segment g, or ``None``."""
        from scipy import sparse

        n = len(segment_counts)
        vocab: Dict[str, int] = {}
        for col in segment_counts:
            for c in col:
                for key in c or ():
                    vocab.setdefault(key, len(vocab))
        width = max(len(vocab), 1)
        present = np.array([[c is not None for c in col] for col in segment_counts], dtype=float)
        docs = []  # docs[s][t] = counts of system s over the segments system t also has
        for s, col in enumerate(segment_counts):
            rows, cols, vals = [], [], []
            for g, c in enumerate(col):
                for key, v in (c or {}).items():
                    rows.append(g); cols.append(vocab[key]); vals.append(v)
            x = sparse.csr_matrix((vals, (rows, cols)), shape=(present.shape[1], width))
            docs.append(np.asarray((sparse.csr_matrix(present) @ x).todense()))
        tokens = [int(d[s].sum()) for s, d in enumerate(docs)]
        names = [str(i) for i in range(n)] if names is None else [str(s) for s in names]
        analysis = self._analyse(
            n, lambda i, j: (docs[i][j], docs[j][i]),
            lambda i: (docs[i][i], np.array([docs[t][i] for t in range(n) if t != i]).reshape(-1, width)), ratings)
        return self._ranking(analysis, names, tokens)

    # --- the Scorer interface ----------------------------------------------------------

    def score_segments(self, inputs: Inputs) -> List[Record]:
        """Rate each prediction against the references of its row (see the module
        docstring); with ``corpus="document"`` each record also carries the counts of the
        prediction and of each reference, from which :meth:`reduce` builds the documents."""
        refs = [[r] if isinstance(r, str) else list(r) for r in inputs.references]
        if self.corpus == "document" and self.approach == "scaling" and len({len(r) for r in refs}) > 1:
            raise ValueError("corpus='document' with approach='scaling' needs the same number of references "
                             "in every row (reference j of every row from translator j); use corpus='mean'")
        unique = list(dict.fromkeys(inputs.predictions + [t for r in refs for t in r]))
        table = dict(zip(unique, self.counts(unique)))
        sets: Dict[Tuple[str, ...], _StandardSet] = {}
        pair_cache: Dict[Tuple[str, str], float] = {}
        records = []
        rows = zip(inputs.ids, inputs.predictions, refs)
        for seg_id, pred, ref_texts in progress(rows, total=len(inputs), desc="texteval", quiet=self.quiet):
            key = tuple(ref_texts)
            if key not in sets:
                sets[key] = _StandardSet(self, [table[t] for t in ref_texts], key, pair_cache)
            record = sets[key].rate(table[pred], pred)
            record["id"] = seg_id
            if self.corpus == "document":
                record["counts"] = dict(table[pred])
                record["reference_counts"] = [dict(table[t]) for t in ref_texts]
            records.append(record)
        return records

    def reduce(self, records: List[Record]) -> MetricResult:
        """Segment scores as recorded; the corpus score is the mean of them
        (``corpus="mean"``) or the rating of the predictions' document against the
        references' documents (``corpus="document"``), computed from the recorded counts so
        that records from several shards reduce to the same result."""
        recs = sort_records(records)
        scores = [float(r["score"]) for r in recs]
        bulky = {"score", "counts", "reference_counts"}
        details = [{k: v for k, v in r.items() if k not in bulky} for r in recs]
        info: Dict[str, Any] = {"corpus": self.corpus, "segments": len(recs)}
        if self.approach == "scaling":
            r2s = [r["r2"] for r in recs if r["r2"] == r["r2"]]
            info["mean_r2"] = float(np.mean(r2s)) if r2s else float("nan")
            info["unreliable_segments"] = sum(1 for r in recs if not r["reliable"])
        if self.corpus == "mean" or not recs:
            corpus_score = float(np.mean(scores)) if scores else float("nan")
        else:
            document = self._document(recs)
            corpus_score = document.pop("score")
            info.update(document)
        return MetricResult(self.name, scores, corpus_score, self.signature, details, info)

    def _document(self, records: List[Record]) -> Dict[str, Any]:
        """Rate the concatenated predictions against the concatenated references."""
        prediction = Counter()
        for r in records:
            prediction.update(r["counts"])
        slots = max(len(r["reference_counts"]) for r in records)
        if self.approach == "scaling" and any(len(r["reference_counts"]) != slots for r in records):
            raise ValueError("document-level scaling needs the same number of references in every row")
        documents = [Counter() for _ in range(slots)]
        for r in records:
            for doc, c in zip(documents, r["reference_counts"]):
                doc.update(c)
        record = _StandardSet(self, documents).rate(prediction)
        return {"score": record["score"], "document": {k: v for k, v in record.items() if k != "score"}}

    @property
    def signature(self) -> str:
        tagger = self.analyzer.backend if self.model == "tags" else None
        return make_signature(
            "texteval", __version__, model=self.model,
            tagset=self.tagset if self.model == "tags" else None, tagger=tagger,
            lex="wordnet3.0+closed" if self.model == "classes" else None,
            lc=self.lowercase if self.model == "words" else None,
            ngram=self.ngram, dist=self.distance, approach=self.approach, corpus=self.corpus)


class _StandardSet:
    """A standard set of texts (their counts), with what every prediction rated against it
    shares computed once: the composite and, for scaling, the pairwise distances. With
    ``keys`` (the members' texts) and a ``cache`` shared between sets, the distance of each
    pair of texts is computed once per call, however many sets it appears in."""

    def __init__(self, scorer: TextEval, members: List[Mapping[str, float]],
                 keys: Optional[Sequence[str]] = None, cache: Optional[Dict[Tuple[str, str], float]] = None) -> None:
        self.scorer = scorer
        self.members = members
        self.keys = list(keys) if keys is not None else None
        self.cache = cache if cache is not None else {}
        self.vocab: Dict[str, int] = {}
        for c in members:
            for key in c:
                self.vocab.setdefault(key, len(self.vocab))
        self.matrix = _dense(members, self.vocab)
        self.composite = self.matrix.sum(axis=0)
        self._distances: Optional[np.ndarray] = None

    def rate(self, prediction: Mapping[str, float], text: Optional[str] = None) -> Dict[str, Any]:
        """The prediction's record: score, distance to the composite, G2, df, tokens (and
        for scaling its coordinate's set r2 and reliability); ``text`` is its text."""
        scorer = self.scorer
        index = dict(self.vocab)
        base = self.matrix.shape[1]
        for key in prediction:
            if key not in index:
                index[key] = base + len(index) - len(self.vocab)
        pred = np.zeros(base + len(index) - len(self.vocab))
        for key, v in prediction.items():
            pred[index[key]] = v
        extra = len(pred) - base
        composite = np.concatenate([self.composite, np.zeros(extra)])
        distance, g2_value, df = scorer.pair_distance(pred, composite)
        record: Dict[str, Any] = {"score": 0.0 - distance, "distance": distance, "g2": g2_value, "df": df,
                                  "tokens": int(sum(prediction.values())), "standard_set": len(self.members)}
        if scorer.approach == "scaling":
            full = np.vstack([pred[None, :], np.hstack([self.matrix, np.zeros((len(self.members), extra))])])
            n = len(full)
            d = np.zeros((n, n))
            d[1:, 1:] = self.member_distances()
            for j in range(1, n):
                d[0, j] = d[j, 0] = self._cached(text, j - 1, lambda: scorer.pair_distance(pred, full[j])[0])
            _, _, coords, r2, _ = scorer._analyse(n, lambda i, j: (full[i], full[j]),
                                                  lambda i: (full[i], np.delete(full, i, axis=0)), distances=d)
            record.update(score=float(coords[0]), r2=r2, reliable=bool(r2 >= scorer.min_r2))
        return record

    def member_distances(self) -> np.ndarray:
        """Pairwise distances among the members, computed once per standard set."""
        if self._distances is None:
            keys = self.keys or [None] * len(self.members)
            self._distances = self.scorer.pairwise(len(self.members), lambda i, j: self._cached(
                keys[i], j, lambda: self.scorer.pair_distance(self.matrix[i], self.matrix[j])[0]))
        return self._distances

    def _cached(self, text: Optional[str], member: int, compute: Callable[[], float]) -> float:
        """The distance between ``text`` and member ``member``, from the cache when both
        texts are known."""
        if text is None or self.keys is None:
            return compute()
        pair = (text, self.keys[member]) if text <= self.keys[member] else (self.keys[member], text)
        if pair not in self.cache:
            self.cache[pair] = compute()
        return self.cache[pair]


def _dense(counts: Sequence[Mapping[str, float]], vocab: Optional[Dict[str, int]] = None) -> np.ndarray:
    """Stack count mappings into a members x features matrix (at least one column)."""
    if vocab is None:
        vocab = {}
        for c in counts:
            for key in c:
                vocab.setdefault(key, len(vocab))
    matrix = np.zeros((len(counts), max(len(vocab), 1)))
    for i, c in enumerate(counts):
        for key, v in c.items():
            matrix[i, vocab[key]] = v
    return matrix


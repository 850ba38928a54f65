"""RoMe: a robust metric for evaluating natural language generation (Rony et al., ACL 2022).

Three features of a hypothesis-reference pair, each usable on its own, and a small network
that turns them into one score in [0, 1]::

    F_EMD     = 1 - EMD over hard-aligned, softly position-penalised contextual word vectors
    F_TED     = TED-SE / max(|T_h|, |T_r|): tree edit distance of the lemmatised dependency
                trees, two nodes equal when their words' cosine >= delta_TED (a distance)
    F_grammar = P(hypothesis is grammatically acceptable) from a CoLA classifier
    RoMe      = sigmoid(NN(F_grammar, F_TED, F_EMD)),  NN: 3 -> 30 -> 20 (ReLU) -> 1

Preprocessing for F_EMD: lowercase, punctuation (Unicode P*) replaced by spaces, whitespace
words. Hard alignment: each hypothesis word i, in order, takes j* = argmax_j cos(h_i, r_j) *
(1 - |i/m - j/n|) (1-based positions); the pair is kept only when cos(h_i, r_j*) > delta_EMD
and r_j* is still free. Kept pairs cost d_ij = 1 - cos * exp(-gamma * 2|m-n|/(m+n) *
|i/m - j/n|), all other pairs 1; word weights are TF-IDF over the pair's two sentences,
normalised per sentence; EMD is the optimal transport cost (POT's ``ot.emd``).

>>> hard_alignment(np.array([[0.9, 0.7], [0.95, 0.2]]))  # word 2 wants column 0, already taken
[(0, 0)]
"""
from __future__ import annotations

import json
import math
import unicodedata
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import __version__
from .core.base import Inputs, Record, Scorer, check_choice, mean_reduce
from .core.embeddings import ContextualEncoder, normalize_rows
from .core.linguistic import Parsed, get_analyzer
from .core.models import fixed_shape_batches, load_pretrained, resolve_device, resolve_dtype
from .core.resources import data_path
from .core.result import MetricResult, make_signature
from .core.tree_edit import tree_edit_distance
from .core.trees import Tree

#: the paper's thresholds (section 4.2) and the reference code's soft penalty constant
DELTA_EMD = 0.60
DELTA_TED = 0.65
GAMMA = 0.07
ROOT_LABEL = "<root>"
COMPONENTS = ("rome", "emd", "ted", "grammar")
TED_NORMALISATIONS = ("max", "sum")
ALIGNMENT_RULES = ("argmax", "thresholded")

#: per profile: encoder, grammaticality classifier, parser backend, scorer weights
PROFILES: Dict[str, Dict[str, str]] = {
    "paper": {"model": "albert-large-v2", "grammar_model": "textattack/bert-base-uncased-CoLA",
              "parser": "auto", "scorer_weights": "rome_scorer_paper.json"},
    "lite": {"model": "minilm", "grammar_model": "rome_grammar_lite.npz",
             "parser": "spacy", "scorer_weights": "rome_scorer_lite.json"},
}


# -- preprocessing --------------------------------------------------------------------------
def preprocess(text: str) -> List[str]:
    """Lowercased whitespace words with punctuation (Unicode category P*) replaced by spaces.
    Symbols such as emoji are kept; a text of only punctuation gives no words."""
    chars = [" " if unicodedata.category(c).startswith("P") else c for c in text.lower()]
    return "".join(chars).split()


def clip_words(text: str, max_words: int) -> Tuple[str, bool]:
    """The first ``max_words`` whitespace words of ``text`` (and whether it was cut)."""
    words = text.split()
    if len(words) <= max_words:
        return text, False
    return " ".join(words[:max_words]), True


# -- F_EMD ----------------------------------------------------------------------------------
def tfidf_weights(words: Sequence[str], other: Sequence[str]) -> np.ndarray:
    """Per-position weights (1 + log10 tf) * log10(1 + N / df), N = 2 documents (this sentence
    and the other one of the pair), normalised to sum to 1 (empty for no words)."""
    if not words:
        return np.zeros(0)
    tf: Dict[str, int] = {}
    for w in words:
        tf[w] = tf.get(w, 0) + 1
    other_set = set(other)
    raw = np.array([(1 + math.log10(tf[w])) * math.log10(1 + 2 / (1 + (w in other_set))) for w in words])
    return raw / raw.sum()


def relative_position_gap(m: int, n: int) -> np.ndarray:
    """|i/m - j/n| for 1-based positions i <= m, j <= n."""
    return np.abs(np.arange(1, m + 1)[:, None] / m - np.arange(1, n + 1)[None, :] / n)


def hard_alignment(cos: np.ndarray, delta: float = DELTA_EMD, rule: str = "argmax") -> List[Tuple[int, int]]:
    """One-to-one word pairs (hypothesis i, reference j), each with cos > delta. For each i in
    order, with alignment score cos * (1 - |i/m - j/n|):

    - ``argmax`` (the specification): j* maximises the score over all j; the pair is kept when
      cos(i, j*) > delta and j* is still free (a repeated word loses to its first copy).
    - ``thresholded``: j* maximises the score over the free j with cos > delta (a word moved
      far, as in a passive rewrite, is not lost to a nearer, dissimilar word).
    """
    check_choice("alignment rule", rule, ALIGNMENT_RULES)
    m, n = cos.shape
    if m == 0 or n == 0:
        return []
    scores = cos * (1.0 - relative_position_gap(m, n))
    taken = np.zeros(n, dtype=bool)
    pairs = []
    for i in range(m):
        if rule == "thresholded":
            allowed = (cos[i] > delta) & ~taken
            if not allowed.any():
                continue
            j = int(np.argmax(np.where(allowed, scores[i], -np.inf)))
        else:
            j = int(np.argmax(scores[i]))
        if cos[i, j] > delta and not taken[j]:
            taken[j] = True
            pairs.append((i, j))
    return pairs


def transport_distance(cos: np.ndarray, pairs: Sequence[Tuple[int, int]],
                       gamma: float = GAMMA) -> np.ndarray:
    """d_ij = 1 - cos_ij * exp(-gamma * 2|m-n|/(m+n) * |i/m - j/n|) for aligned pairs, 1 elsewhere."""
    m, n = cos.shape
    dist = np.ones((m, n))
    if pairs:
        gap = relative_position_gap(m, n)
        rows, cols = np.array(pairs).T
        penalty = np.exp(-gamma * (2 * abs(m - n) / (m + n)) * gap[rows, cols])
        dist[rows, cols] = 1.0 - cos[rows, cols] * penalty
    return dist


def earth_movers_distance(dist: np.ndarray, hyp_weights: np.ndarray, ref_weights: np.ndarray) -> float:
    """sum f_ij d_ij / sum f_ij for the optimal flow under the paper's Eq. 2 (flows >= 0, row
    and column sums bounded by the weights, total flow = the smaller total). With both weight
    vectors normalised the bounds are tight and this is ``ot.emd``."""
    import ot

    a = np.asarray(hyp_weights, dtype=np.float64)
    b = np.asarray(ref_weights, dtype=np.float64)
    total = min(a.sum(), b.sum())
    # scale both sides to the smaller total: with equal totals the problem is balanced
    flow = ot.emd(a * total / a.sum(), b * total / b.sum(), np.ascontiguousarray(dist, dtype=np.float64))
    return float((flow * dist).sum() / flow.sum())


def emd_similarity(hyp_words: Sequence[str], ref_words: Sequence[str], hyp_vecs: np.ndarray,
                   ref_vecs: np.ndarray, *, delta: float = DELTA_EMD, gamma: float = GAMMA,
                   alignment: str = "argmax") -> Tuple[float, List[Tuple[int, int]]]:
    """F_EMD = 1 - EMD and the hard alignment; 0 when either side has no words."""
    if not len(hyp_words) or not len(ref_words):
        return 0.0, []
    cos = np.clip(normalize_rows(hyp_vecs) @ normalize_rows(ref_vecs).T, -1.0, 1.0)
    pairs = hard_alignment(cos, delta, alignment)
    dist = transport_distance(cos, pairs, gamma)
    emd = earth_movers_distance(dist, tfidf_weights(hyp_words, ref_words),
                                tfidf_weights(ref_words, hyp_words))
    return float(np.clip(1.0 - emd, 0.0, 1.0)), pairs


# -- F_TED ----------------------------------------------------------------------------------
@dataclass
class DependencyTree:
    """A lemma tree under a virtual root, with the lemma row of each node in post-order
    (-1 for the root). ``lemmas`` are the node words in sentence order."""

    tree: Tree
    lemmas: List[str]
    postorder_rows: List[int]

    @property
    def size(self) -> int:
        """Number of word nodes (the virtual root is not counted)."""
        return len(self.lemmas)


def dependency_tree(parsed: Parsed, max_words: Optional[int] = None) -> DependencyTree:
    """The lemmatised dependency tree of a parse: punctuation dropped (its dependents move to
    its head), words past ``max_words`` dropped the same way, sentence roots under one
    virtual root. Lemmas are lowercased."""
    keep = [i for i, t in enumerate(parsed.tokens) if t.upos not in ("PUNCT", "SPACE") and t.text.strip()]
    if max_words is not None:
        keep = keep[:max_words]
    row_of = {tok: row for row, tok in enumerate(keep)}
    children: Dict[int, List[int]] = {-1: []}
    for tok in keep:
        head = parsed.tokens[tok].head
        steps = 0
        while head != -1 and head not in row_of and steps <= len(parsed.tokens):
            head = parsed.tokens[head].head
            steps += 1
        children.setdefault(head if head in row_of else -1, []).append(tok)
    lemmas = [(parsed.tokens[t].lemma or parsed.tokens[t].text).lower() for t in keep]

    order = _postorder_ids(children)
    nodes: Dict[int, Tree] = {}
    for tok in order:  # built bottom-up, without recursion
        nodes[tok] = Tree(ROOT_LABEL if tok == -1 else lemmas[row_of[tok]],
                          [nodes[c] for c in sorted(children.get(tok, []))])
    return DependencyTree(nodes[-1], lemmas, [row_of.get(tok, -1) for tok in order])


def _postorder_ids(children: Dict[int, List[int]]) -> List[int]:
    """Token ids of the tree rooted at -1 in post-order (children in sentence order)."""
    out: List[int] = []
    stack: List[Tuple[int, int]] = [(-1, 0)]
    while stack:
        tok, k = stack.pop()
        kids = sorted(children.get(tok, []))
        if k < len(kids):
            stack.append((tok, k + 1))
            stack.append((kids[k], 0))
        else:
            out.append(tok)
    return out


def ted_se(hyp: DependencyTree, ref: DependencyTree, hyp_vecs: np.ndarray, ref_vecs: np.ndarray,
           *, delta: float = DELTA_TED, normalisation: str = "max") -> Tuple[float, float]:
    """(normalised TED-SE, raw TED-SE). Unit insert/delete; substitution costs 0 when the two
    lemmas are equal or their vectors' cosine is >= delta, else 1; the virtual roots match.
    ``max`` divides by the larger tree and clips at 1 (the raw distance can exceed it when
    the shapes disagree), ``sum`` by the sum of both sizes. Two empty trees give 0."""
    check_choice("TED normalisation", normalisation, TED_NORMALISATIONS)
    if hyp.size == 0 and ref.size == 0:
        return 0.0, 0.0
    hr, rr = np.array(hyp.postorder_rows), np.array(ref.postorder_rows)
    cost = np.ones((len(hr), len(rr)))
    if hyp.size and ref.size:
        sim = normalize_rows(hyp_vecs) @ normalize_rows(ref_vecs).T
        same = np.array([[a == b for b in ref.lemmas] for a in hyp.lemmas])
        word_cost = np.where((sim >= delta) | same, 0.0, 1.0)
        hw, rw = hr >= 0, rr >= 0
        cost[np.ix_(hw, rw)] = word_cost[np.ix_(hr[hw], rr[rw])]
    cost[np.ix_(hr < 0, rr < 0)] = 0.0
    raw = tree_edit_distance(hyp.tree, ref.tree, cost)
    denominator = max(hyp.size, ref.size) if normalisation == "max" else hyp.size + ref.size
    return float(min(raw / denominator, 1.0)), raw


# -- F_grammar ------------------------------------------------------------------------------
class LiteGrammarHead:
    """Logistic regression over frozen all-MiniLM-L6-v2 features (mean and first-token
    vectors of every transformer layer), trained on CoLA's train split by
    ``python -m nlgmetrics.training.rome_grammar``."""

    def __init__(self, weights: Union[str, Path], *, device: Any = "auto", dtype: Any = "fp32",
                 batch_size: int = 32, max_length: int = 256) -> None:
        path = Path(weights) if Path(weights).exists() else data_path(str(weights))
        with np.load(path) as data:
            self.weight = data["weight"].astype(np.float64)
            self.bias = float(data["bias"])
            self.encoder_name = str(data["encoder"])
        self.encoder = ContextualEncoder(self.encoder_name, device=device, dtype=dtype, batch_size=batch_size,
                                         max_length=max_length, quiet=True)
        self.name = f"{path.name}@{self.encoder_name}"

    def features(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 2 * layers * hidden): per layer the masked mean and the first token."""
        return layer_pooled_features(self.encoder, texts)

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        if not len(texts):
            return np.zeros(0)
        # one dot product per text: a matrix product's rounding depends on the row count
        logits = np.array([row @ self.weight for row in self.features(texts)]) + self.bias
        return 1.0 / (1.0 + np.exp(-logits))


def layer_pooled_features(encoder: ContextualEncoder, texts: Sequence[str]) -> np.ndarray:
    """Mean-pooled and first-token hidden states of layers 1..L, concatenated (the features
    of the lite grammaticality head), from the encoder's batch-independent path."""
    rows = [np.concatenate([states.mean(axis=1), states[:, 0]], axis=0).reshape(-1)
            for states in encoder.layer_states(list(texts))]
    return np.asarray(rows, dtype=np.float64)


class CoLAClassifier:
    """A sequence classifier fine-tuned on CoLA (hub id or local directory); P(acceptable) is
    the softmax of the label named acceptable in the config, else of ``label``."""

    def __init__(self, model: str, *, device: Any = "auto", dtype: Any = "fp32", batch_size: int = 32,
                 max_length: int = 256, label: Optional[int] = None) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        hint = "profile='lite' (the project's CoLA head)"
        self.tokenizer = load_pretrained(AutoTokenizer, model, what="CoLA classifier tokenizer", lite_hint=hint)
        self.model = load_pretrained(AutoModelForSequenceClassification, model, what="CoLA classifier",
                                     device=self.device, dtype=self.dtype, lite_hint=hint)
        self.label = self._acceptable_label() if label is None else int(label)
        self.batch_size = batch_size
        self.max_length = max_length
        self.name = str(model)

    def _acceptable_label(self) -> int:
        names = {int(k): str(v).lower() for k, v in (self.model.config.id2label or {}).items()}
        for index, name in names.items():
            if name in ("acceptable", "grammatical", "correct"):
                return index
        return 1  # CoLA's convention: label 1 = acceptable

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        import torch

        probs = np.zeros(len(texts))
        if not len(texts):
            return probs
        lengths = [min(len(ids), self.max_length) for ids in self.tokenizer(list(texts))["input_ids"]]
        with torch.inference_mode():
            # the encoder's batch-independent shapes: a text's probability does not depend on
            # the other texts of the call (shards, ranks)
            for chunk, rows, width in fixed_shape_batches(range(len(texts)), lengths.__getitem__, self.batch_size,
                                                          8, self.max_length):
                enc = self.tokenizer([texts[k] for k in rows], padding="max_length", truncation=True,
                                     max_length=width, return_tensors="pt")
                logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float()
                probs[chunk] = torch.softmax(logits, dim=-1)[:len(chunk), self.label].cpu().numpy()
        return probs


# -- final scorer -----------------------------------------------------------------------------
#: feature order of the network input (the reference code's)
FEATURE_ORDER = ("f_grammar", "f_ted", "f_emd")


class ScorerNetwork:
    """3 -> 30 -> 20 (ReLU) -> 1 -> sigmoid, in numpy; weights from a JSON file written by
    ``python -m nlgmetrics.training.rome_scorer``."""

    def __init__(self, weights: Union[str, Path]) -> None:
        path = Path(weights) if Path(weights).exists() else data_path(str(weights))
        payload = json.loads(path.read_text())
        self.layers = [(np.asarray(layer["weight"], dtype=np.float64), np.asarray(layer["bias"], dtype=np.float64))
                       for layer in payload["layers"]]
        self.meta = {k: v for k, v in payload.items() if k != "layers"}
        self.name = path.name

    def __call__(self, features: np.ndarray) -> np.ndarray:
        """Scores in [0, 1] for rows ordered as :data:`FEATURE_ORDER`."""
        (w1, b1), (w2, b2), (w3, b3) = self.layers
        x = np.atleast_2d(np.asarray(features, dtype=np.float64))
        hidden = np.maximum((x @ w1.T + b1) @ w2.T + b2, 0.0)
        logits = (hidden @ w3.T + b3)[:, 0]
        return 1.0 / (1.0 + np.exp(-logits))


# -- the scorer -------------------------------------------------------------------------------
@dataclass
class _Sentence:
    """Per-text work, cached within a call."""

    words: List[str]
    vectors: Optional[np.ndarray] = None
    tree: Optional[DependencyTree] = None
    lemma_vectors: Optional[np.ndarray] = None


class RoMe(Scorer):
    """RoMe and its three features.

    Options:
        profile: ``paper`` (albert-large-v2 word vectors, ``textattack/bert-base-uncased-CoLA``,
            stanza when installed) or ``lite`` (all-MiniLM-L6-v2, the project's CoLA head,
            spaCy); each with its own shipped scorer network.
        component: ``rome`` (final score), ``emd`` (F_EMD), ``ted`` (F_TED, a distance: lower
            is better) or ``grammar`` (F_grammar); the other features are then not computed.
        model / grammar_model / scorer_weights / parser: override the profile's encoder (hub
            id, local directory or ``minilm``), CoLA classifier (hub id / directory, or a
            ``.npz`` head for the lite kind), network (JSON path) and parser backend.
        delta_emd (0.60), delta_ted (0.65), gamma (0.07): the paper's thresholds and the soft
            penalty constant. alignment: ``argmax`` (default) or ``thresholded`` (see
            :func:`hard_alignment`). ted_normalisation: ``max`` (default) or ``sum``.
        max_words: texts are cut to this many whitespace words (with a warning).
        return_alignment: add the F_EMD word alignment to each segment's details.
    References may be one string or several per prediction; with several, the reference
    giving the best score counts (highest, or lowest F_TED for ``component="ted"``).
    """

    name = "rome"
    references_mode = "required"
    sources_mode = "none"
    multi_reference = True
    demo_inputs = {  # the paper's Table 2 examples
        "predictions": ["Macbeth is written by Shakespeare.",
                        "Shakespeare has written Macbeth Macbeth Macbeth.",
                        "The Macbeth is written by Shakespeare."],
        "references": ["Shakespeare has written Macbeth.",
                       "Shakespeare has written Macbeth.",
                       "Shakespeare has written Macbeth."],
    }
    demo_options = {"profile": "lite"}

    def __init__(self, *, profile: str = "paper", component: str = "rome", model: Optional[str] = None,
                 grammar_model: Optional[str] = None, scorer_weights: Optional[str] = None,
                 parser: Optional[str] = None, delta_emd: float = DELTA_EMD, delta_ted: float = DELTA_TED,
                 gamma: float = GAMMA, alignment: str = "argmax", ted_normalisation: str = "max",
                 max_words: int = 256, return_alignment: bool = False, grammar_label: Optional[int] = None,
                 device: str = "auto", dtype: str = "fp32", batch_size: int = 32, quiet: bool = False) -> None:
        super().__init__(quiet=quiet)
        check_choice("profile", profile, PROFILES)
        check_choice("component", component, COMPONENTS)
        check_choice("ted_normalisation", ted_normalisation, TED_NORMALISATIONS)
        check_choice("alignment", alignment, ALIGNMENT_RULES)
        if max_words < 1:
            raise ValueError(f"max_words must be >= 1, got {max_words}")
        defaults = PROFILES[profile]
        self.profile = profile
        self.component = component
        self.delta_emd, self.delta_ted, self.gamma = float(delta_emd), float(delta_ted), float(gamma)
        self.alignment = alignment
        self.ted_normalisation = ted_normalisation
        self.max_words = int(max_words)
        self.return_alignment = return_alignment
        self.batch_size = batch_size
        needs = {"emd": component in ("rome", "emd"), "ted": component in ("rome", "ted"),
                 "grammar": component in ("rome", "grammar")}
        self.encoder = (ContextualEncoder(model or defaults["model"], device=device, dtype=dtype,
                                          batch_size=batch_size, quiet=quiet)
                        if needs["emd"] or needs["ted"] else None)
        self.parser_backend = parser or defaults["parser"]
        self._analyzer = None
        if needs["ted"]:
            self._analyzer = get_analyzer(self.parser_backend)
        self.grammar = None
        if needs["grammar"]:
            name = grammar_model or defaults["grammar_model"]
            self.grammar = (LiteGrammarHead(name, device=device, dtype=dtype, batch_size=batch_size)
                            if str(name).endswith(".npz") else
                            CoLAClassifier(name, device=device, dtype=dtype, batch_size=batch_size,
                                           label=grammar_label))
        self.scorer_weights = str(scorer_weights or defaults["scorer_weights"]) if component == "rome" else None
        self._network: Optional[ScorerNetwork] = None

    @property
    def network(self) -> Optional[ScorerNetwork]:
        """The final scorer network (loaded on first use; None for a single component)."""
        if self._network is None and self.scorer_weights is not None:
            self._network = ScorerNetwork(self.scorer_weights)
        return self._network

    # -- the three features, batched over unique texts --------------------------------------
    def _analyse(self, texts: Sequence[str], *, emd: bool, ted: bool) -> Dict[str, _Sentence]:
        """Per unique text: words and word vectors (F_EMD), lemma tree and lemma vectors
        (F_TED). All word lists go through the encoder in one batched call."""
        unique = list(dict.fromkeys(texts))
        sentences = {t: _Sentence(preprocess(t)[:self.max_words]) for t in unique}
        if ted:
            for text, parsed in zip(unique, self._analyzer.analyze(unique)):
                sentences[text].tree = dependency_tree(parsed, self.max_words)
        lists: List[List[str]] = []
        if emd:
            lists += [sentences[t].words for t in unique]
        if ted:
            lists += [sentences[t].tree.lemmas for t in unique]
        vectors = iter(self.encoder.word_vectors(lists) if lists else [])
        if emd:
            for t in unique:
                sentences[t].vectors = next(vectors)
        if ted:
            for t in unique:
                sentences[t].lemma_vectors = next(vectors)
        return sentences

    def _clip(self, texts: Sequence[str]) -> List[str]:
        out, cut = [], 0
        for t in texts:
            clipped, was_cut = clip_words(t, self.max_words)
            out.append(clipped)
            cut += was_cut
        if cut:
            warnings.warn(f"{cut} text(s) longer than {self.max_words} words were cut to max_words={self.max_words}")
        return out

    def features(self, predictions: Sequence[str], references: Sequence[str], *,
                 final: bool = True) -> Dict[str, Any]:
        """F_EMD, F_TED and F_grammar (those the component needs) for aligned lists of
        hypothesis and reference strings, as arrays (plus ``alignment`` lists), and the final
        ``rome`` score unless ``final=False`` (the network's training uses the features)."""
        hyps, refs = self._clip(predictions), self._clip(references)
        need_emd = self.component in ("rome", "emd")
        need_ted = self.component in ("rome", "ted")
        out: Dict[str, Any] = {}
        if need_emd or need_ted:
            sent = self._analyse(hyps + refs, emd=need_emd, ted=need_ted)
            pair_cache: Dict[Tuple[str, str], Tuple[float, float, list]] = {}
            for h, r in zip(hyps, refs):
                if (h, r) not in pair_cache:
                    sh, sr = sent[h], sent[r]
                    emd, pairs = (emd_similarity(sh.words, sr.words, sh.vectors, sr.vectors,
                                                 delta=self.delta_emd, gamma=self.gamma,
                                                 alignment=self.alignment)
                                  if need_emd else (float("nan"), []))
                    ted = (ted_se(sh.tree, sr.tree, sh.lemma_vectors, sr.lemma_vectors,
                                  delta=self.delta_ted, normalisation=self.ted_normalisation)[0]
                           if need_ted else float("nan"))
                    alignment = [[i, j, sh.words[i], sr.words[j]] for i, j in pairs]
                    pair_cache[(h, r)] = (emd, ted, alignment)
            values = [pair_cache[(h, r)] for h, r in zip(hyps, refs)]
            if need_emd:
                out["f_emd"] = np.array([v[0] for v in values])
                out["alignment"] = [v[2] for v in values]
            if need_ted:
                out["f_ted"] = np.array([v[1] for v in values])
        if self.grammar is not None:
            unique = [t for t in dict.fromkeys(hyps) if t.strip()]
            probs = dict(zip(unique, self.grammar.probabilities(unique)))
            out["f_grammar"] = np.array([float(probs.get(h, 0.0)) for h in hyps])
        if final and self.component == "rome":
            out["rome"] = self.network(np.column_stack([out[k] for k in FEATURE_ORDER])) if hyps else np.zeros(0)
        return out

    def f_emd(self, predictions: Sequence[str], references: Sequence[str]) -> np.ndarray:
        """F_EMD alone (encoder only)."""
        return self._component("emd").features(predictions, references)["f_emd"]

    def f_ted(self, predictions: Sequence[str], references: Sequence[str]) -> np.ndarray:
        """F_TED alone (parser and encoder); a distance in [0, 1]."""
        return self._component("ted").features(predictions, references)["f_ted"]

    def f_grammar(self, predictions: Sequence[str]) -> np.ndarray:
        """F_grammar alone (the CoLA classifier); an empty hypothesis gives 0."""
        return self._component("grammar").features(predictions, [""] * len(predictions))["f_grammar"]

    def _component(self, component: str) -> "RoMe":
        """A view of this scorer computing one feature, sharing the loaded models."""
        if self.component == component:
            return self
        view = object.__new__(RoMe)
        view.__dict__.update(self.__dict__)
        view.component = component
        view.scorer_weights, view._network = None, None
        if component != "grammar":
            view.grammar = None
        if component == "ted" and self._analyzer is None:
            self._analyzer = view._analyzer = get_analyzer(self.parser_backend)
        if component in ("emd", "ted") and self.encoder is None:
            raise ValueError("this scorer was built with component='grammar' and has no encoder")
        if component == "grammar" and self.grammar is None:
            raise ValueError(f"this scorer was built with component={self.component!r} and has no grammar classifier")
        return view

    # -- Scorer hooks -----------------------------------------------------------------------
    def score_segments(self, inputs: Inputs) -> List[Record]:
        groups = [[r] if isinstance(r, str) else list(r) for r in inputs.references]
        flat_h = [h for h, g in zip(inputs.predictions, groups) for _ in g]
        flat_r = [r for g in groups for r in g]
        feats = self.features(flat_h, flat_r)
        key = {"rome": "rome", "emd": "f_emd", "ted": "f_ted", "grammar": "f_grammar"}[self.component]
        sign = -1.0 if self.component == "ted" else 1.0
        records: List[Record] = []
        start = 0
        for seg_id, group in zip(inputs.ids, groups):
            span = range(start, start + len(group))
            best = max(span, key=lambda k: sign * feats[key][k])
            record: Record = {"id": seg_id, "score": float(feats[key][best])}
            for name in FEATURE_ORDER:
                if name in feats:
                    record[name] = float(feats[name][best])
            if len(group) > 1:
                record["reference_index"] = best - start
            if self.return_alignment and "alignment" in feats:
                record["alignment"] = feats["alignment"][best]
            records.append(record)
            start += len(group)
        return records

    def reduce(self, records: List[Record]) -> MetricResult:
        return mean_reduce(self, records)

    @property
    def signature(self) -> str:
        emd = self.component in ("rome", "emd")
        ted = self.component in ("rome", "ted")
        return make_signature(
            "rome", __version__, profile=self.profile, component=self.component,
            model=self.encoder.describe() if self.encoder else None,
            grammar=self.grammar.name if self.grammar else None,
            parser=self._analyzer.backend if ted else None,
            net=Path(self.scorer_weights).name if self.scorer_weights else None,
            demb=self.delta_emd if emd else None, gamma=self.gamma if emd else None,
            align=self.alignment if emd else None, dted=self.delta_ted if ted else None,
            tednorm=self.ted_normalisation if ted else None, maxw=self.max_words)

"""DATScore (data-augmented translation score): BARTScore-style conditional log-likelihoods
of a multilingual seq2seq model (M2M-100) over up to eight generation directions centred on
the hypothesis, with entropy token weights and one-vs-rest direction weights.

Per segment (``score_segments``, shardable): the source is translated into language ``a``
(Trans1) and the reference into language ``b`` (Trans2); each direction X -> Y gets

    Score(X->Y) = sum_t w_t log P(y_t | X, y_<t) / sum_t w_t

over the target tokens (the forced language token is given, ``</s>`` is scored), w_t = 1
(``uniform``) or the entropy of the model's distribution at step t (``entropy``).

Per corpus (``reduce``): DATScore_i = sum_d W_d Score_d,i with W_d the sum of the Pearson
correlations of direction d's scores with every other direction's over the corpus, negative
sums clipped to 0, normalised to sum 1 (``one-vs-rest``); or uniform, or fixed weights.

Work is shared wherever the inputs allow (see :mod:`nlgmetrics.core.seq2seq`): each unique
source and reference is translated once, each unique text is encoded once (one encoder pass of
a hypothesis serves all four Hypo -> X directions), decoder batches are length-bucketed, and
scores do not depend on the batch size.
"""
from __future__ import annotations

import os
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import __version__
from .core.base import Inputs, Record, Scorer, sort_records
from .core.result import MetricResult, make_signature
from .core.seq2seq import TOKEN_WEIGHTINGS, Seq2SeqLM
from .core.stats import pearson

DEFAULT_MODEL = "facebook/m2m100_418M"

#: the eight directions, centred on the hypothesis (BARTScore's own: src->hypo faithfulness,
#: ref->hypo precision, hypo->ref recall)
ALL_DIRECTIONS = ("src->hypo", "hypo->src", "ref->hypo", "hypo->ref",
                  "trans1->hypo", "hypo->trans1", "trans2->hypo", "hypo->trans2")
#: named direction sets: ``auto`` = ``all`` with sources, ``reference`` without
DIRECTION_SETS = {
    "all": ALL_DIRECTIONS,
    "reference": ("ref->hypo", "hypo->ref", "trans2->hypo", "hypo->trans2"),
    "bartscore": ("ref->hypo", "hypo->ref"),
}
DIRECTION_WEIGHTINGS = ("one-vs-rest", "uniform")
#: below this many segments correlations are undefined: uniform direction weights
MIN_SEGMENTS_FOR_OVR = 3


def augmentation_languages(source_lang: Optional[str], target_lang: str) -> Tuple[str, str]:
    """The paper's rule for the languages of Trans1 (source translated) and Trans2 (reference
    translated): to English (t = en): (en, es); from English (s = en): (es, en); pairs without
    English: (en, es), or (en, en) when the target is Spanish; no source given: Trans2 in es for
    English targets, in en otherwise."""
    if target_lang == "en":
        return "en", "es"
    if source_lang == "en":
        return "es", "en"
    if source_lang is None:
        return "en", "en"
    return "en", "es" if target_lang != "es" else "en"


def one_vs_rest_weights(matrix: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(raw, weights) for a segments x directions score matrix: raw_d = sum over d' != d of
    Pearson(S_d, S_d') (an undefined correlation, from a constant column, counts 0); weights =
    raw clipped at 0 and normalised to sum 1 (all zero -> ``nan`` weights, the caller falls
    back)."""
    n_dirs = matrix.shape[1]
    corr = np.eye(n_dirs)
    for i in range(n_dirs):
        for j in range(i + 1, n_dirs):
            r = pearson(matrix[:, i], matrix[:, j])
            corr[i, j] = corr[j, i] = 0.0 if np.isnan(r) else r
    raw = corr.sum(axis=1) - 1.0
    clipped = np.clip(raw, 0.0, None)
    total = clipped.sum()
    return raw, (clipped / total if total > 0 else np.full(n_dirs, np.nan))


def direction_weights(matrix: np.ndarray, names: Sequence[str],
                      mode: Union[str, Mapping[str, float]] = "one-vs-rest") -> Tuple[np.ndarray, Dict[str, Any]]:
    """Direction weights (summing to 1) for a segments x directions score matrix, and what to
    report about them: ``uniform``; ``one-vs-rest`` (uniform below 3 segments or when no
    direction correlates positively with the others, with a ``weights_note``); or a fixed
    mapping naming exactly the scored directions (normalised to sum 1)."""
    info: Dict[str, Any] = {}
    if not isinstance(mode, str):
        fixed = dict(mode)
        missing, extra = sorted(set(names) - set(fixed)), sorted(set(fixed) - set(names))
        if missing or extra:
            raise ValueError(f"fixed direction weights must name exactly the scored directions {list(names)}; "
                             f"missing {missing}, not scored {extra}")
        weights = np.array([fixed[d] for d in names], dtype=float)
        if weights.sum() <= 0:
            raise ValueError("fixed direction weights of the scored directions are all zero")
        return weights / weights.sum(), {"direction_weighting": "fixed"}
    uniform = np.full(len(names), 1.0 / len(names))
    if mode == "uniform" or len(names) == 1:
        return uniform, {"direction_weighting": "uniform"}
    info["direction_weighting"] = "one-vs-rest"
    if matrix.shape[0] < MIN_SEGMENTS_FOR_OVR:
        info["weights_note"] = (f"one-vs-rest needs at least {MIN_SEGMENTS_FOR_OVR} segments to correlate "
                                f"directions; {matrix.shape[0]} given: uniform weights used")
        return uniform, info
    raw, weights = one_vs_rest_weights(matrix)
    info["one_vs_rest_raw"] = dict(zip(names, raw.tolist()))
    if np.isnan(weights).any():
        info["weights_note"] = "no direction correlates positively with the others: uniform weights used"
        return uniform, info
    return weights, info


def _local_demo_options() -> Optional[Dict[str, Any]]:
    """``{"model": dir}`` when ``NLGMETRICS_DATSCORE_MODEL`` names a local checkpoint."""
    path = os.environ.get("NLGMETRICS_DATSCORE_MODEL")
    return {"model": path, "source_lang": "fr", "target_lang": "en"} if path and os.path.isdir(path) else None


class DATScore(Scorer):
    """DATScore with an M2M-100-compatible backbone (hub id or local directory).

    Options (paper defaults first): ``source_lang`` (M2M-100 code, needed with sources),
    ``target_lang`` ("en"), ``trans1_lang`` / ``trans2_lang`` (None: the paper's rule, see
    :func:`augmentation_languages`), ``directions`` ("auto": all eight with sources, the four
    reference directions without; "all", "reference", "bartscore" or a list of names),
    ``exclude_directions`` (ablation), ``token_weights`` ("entropy" | "uniform"),
    ``direction_weights`` ("one-vs-rest" | "uniform" | a mapping direction -> weight),
    ``beam_size`` (5) and ``max_new_tokens`` (None: the model's generation config) for the
    augmented translations, ``max_length`` (1024 tokens, truncation warns), ``batch_size``,
    ``device``, ``dtype``, ``cache_dir`` (translations kept on disk), ``return_translations``.
    ``directions="bartscore"`` defaults to uniform token and direction weights (BARTScore's
    F-score with this backbone).
    """

    name: ClassVar[str] = "datscore"
    references_mode: ClassVar[str] = "required"
    sources_mode: ClassVar[str] = "optional"
    demo_inputs: ClassVar[Dict[str, List[Any]]] = {
        "sources": ["Le chat est assis sur le tapis.", "Il pleut depuis ce matin."],
        "references": ["The cat is sitting on the mat.", "It has been raining since this morning."],
        "predictions": ["The cat sits on the carpet.", "It rains since the morning."],
    }
    demo_options: ClassVar[Optional[Dict[str, Any]]] = _local_demo_options()

    def __init__(self, *, model: str = DEFAULT_MODEL, source_lang: Optional[str] = None,
                 target_lang: str = "en", trans1_lang: Optional[str] = None,
                 trans2_lang: Optional[str] = None, directions: Union[str, Sequence[str]] = "auto",
                 exclude_directions: Sequence[str] = (), token_weights: Optional[str] = None,
                 direction_weights: Union[str, Mapping[str, float], None] = None,
                 beam_size: int = 5, max_new_tokens: Optional[int] = None, max_length: int = 1024,
                 batch_size: int = 8, device: str = "auto", dtype: str = "fp32",
                 cache_dir: Optional[str] = None, return_translations: bool = False,
                 profile: str = "paper", quiet: bool = False) -> None:
        super().__init__(quiet=quiet)
        if profile != "paper":
            raise ValueError("DATScore has only the 'paper' profile: it needs an M2M-100 checkpoint "
                             "(pass model=<hub id or local directory>)")
        bartscore = directions == "bartscore"
        self.token_weights = token_weights or ("uniform" if bartscore else "entropy")
        if self.token_weights not in TOKEN_WEIGHTINGS:
            raise ValueError(f"token_weights must be one of {TOKEN_WEIGHTINGS}, got {token_weights!r}")
        self.direction_weights = self._check_direction_weights(
            direction_weights if direction_weights is not None else ("uniform" if bartscore else "one-vs-rest"))
        self.directions = self._check_directions(directions, exclude_directions)
        self.excluded = tuple(str(d).lower() for d in exclude_directions)
        if beam_size < 1:
            raise ValueError(f"beam_size must be >= 1, got {beam_size}")
        self.beam_size, self.max_new_tokens = int(beam_size), max_new_tokens
        self.return_translations = bool(return_translations)
        self.lm = Seq2SeqLM(model, device=device, dtype=dtype, batch_size=batch_size, max_length=max_length,
                            cache_dir=cache_dir, quiet=quiet)
        self.source_lang, self.target_lang = source_lang, target_lang
        default_a, default_b = augmentation_languages(source_lang, target_lang)
        self.trans1_lang, self.trans2_lang = trans1_lang or default_a, trans2_lang or default_b
        for lang in (source_lang, target_lang, self.trans1_lang, self.trans2_lang):
            if lang is not None:
                self.lm.check_language(lang)

    # -- options -----------------------------------------------------------------------
    @staticmethod
    def _check_direction_weights(value: Union[str, Mapping[str, float]]) -> Union[str, Dict[str, float]]:
        if isinstance(value, str):
            if value not in DIRECTION_WEIGHTINGS:
                raise ValueError(f"direction_weights must be one of {DIRECTION_WEIGHTINGS} or a mapping "
                                 f"direction -> weight, got {value!r}")
            return value
        fixed = {str(k): float(v) for k, v in dict(value).items()}
        unknown = sorted(set(fixed) - set(ALL_DIRECTIONS))
        if unknown:
            raise ValueError(f"unknown directions in direction_weights: {unknown}; names: {ALL_DIRECTIONS}")
        if any(not np.isfinite(v) or v < 0 for v in fixed.values()) or sum(fixed.values()) <= 0:
            raise ValueError("fixed direction weights must be finite, non-negative and not all zero")
        return fixed

    @staticmethod
    def _check_directions(directions: Union[str, Sequence[str]], exclude: Sequence[str]) -> Union[str, Tuple[str, ...]]:
        if isinstance(directions, str):
            if directions == "auto":
                chosen: Union[str, Tuple[str, ...]] = "auto"
            elif directions in DIRECTION_SETS:
                chosen = DIRECTION_SETS[directions]
            else:
                raise ValueError(f"directions must be 'auto', one of {sorted(DIRECTION_SETS)} or a list of "
                                 f"direction names, got {directions!r}")
        else:
            chosen = tuple(dict.fromkeys(str(d).lower() for d in directions))
        exclude = [str(d).lower() for d in exclude]
        unknown = sorted({*([] if chosen == "auto" else chosen), *exclude} - set(ALL_DIRECTIONS))
        if unknown:
            raise ValueError(f"unknown directions {unknown}; names: {ALL_DIRECTIONS}")
        if chosen != "auto":
            chosen = tuple(d for d in chosen if d not in exclude)
            if not chosen:
                raise ValueError("no direction left to score")
        return chosen

    def _active_directions(self, with_sources: bool) -> Tuple[str, ...]:
        """The directions scored for inputs with or without sources."""
        if self.directions == "auto":
            base = DIRECTION_SETS["all" if with_sources else "reference"]
            names = tuple(d for d in base if d not in self.excluded)
        else:
            names = self.directions
        if not names:
            raise ValueError("no direction left to score")
        return names

    # -- segment scoring ---------------------------------------------------------------
    def score_segments(self, inputs: Inputs) -> List[Record]:
        names = self._active_directions(inputs.sources is not None)
        roles = {role for name in names for role in name.split("->")}
        if roles & {"src", "trans1"}:
            if inputs.sources is None:
                raise ValueError(f"directions {[n for n in names if 'src' in n or 'trans1' in n]} need sources; "
                                 "pass sources=... or use directions='reference'")
            if self.source_lang is None:
                raise ValueError("source_lang is required to score with sources (the M2M-100 code of the "
                                 "sources' language, e.g. source_lang='de')")
        lm, t = self.lm, self.target_lang
        texts: Dict[str, Tuple[List[str], str]] = {"hypo": (inputs.predictions, t), "ref": (inputs.references, t)}
        if "src" in roles:
            texts["src"] = (inputs.sources, self.source_lang)
        if "trans1" in roles:
            texts["trans1"] = (lm.translate(inputs.sources, self.source_lang, self.trans1_lang, beam_size=self.beam_size,
                                            max_new_tokens=self.max_new_tokens, desc="translating sources"),
                               self.trans1_lang)
        if "trans2" in roles:
            texts["trans2"] = (lm.translate(inputs.references, t, self.trans2_lang, beam_size=self.beam_size,
                                            max_new_tokens=self.max_new_tokens, desc="translating references"),
                               self.trans2_lang)
        seqs = {role: lm.sequences(values, lang) for role, (values, lang) in texts.items()}
        n = len(inputs)
        pairs = [(seqs[x][i], seqs[y][i]) for name in names for x, y in [name.split("->")] for i in range(n)]
        token_scores = lm.score_pairs(pairs, desc="scoring directions")
        records: List[Record] = []
        for i, seg_id in enumerate(inputs.ids):
            record: Record = {"id": seg_id, "directions": {
                name: token_scores[k * n + i].mean(self.token_weights) for k, name in enumerate(names)}}
            if self.return_translations:
                record["translations"] = {role: texts[role][0][i] for role in ("trans1", "trans2") if role in texts}
            records.append(record)
        return records

    # -- corpus reduction --------------------------------------------------------------
    def weights_for(self, matrix: np.ndarray, names: Sequence[str]) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Direction weights for a segments x directions matrix under this scorer's option."""
        return direction_weights(matrix, names, self.direction_weights)

    def reduce(self, records: List[Record]) -> MetricResult:
        recs = sort_records(records)
        if not recs:
            raise ValueError("no records to reduce")
        names = list(recs[0]["directions"])
        for r in recs:
            if list(r["directions"]) != names:
                raise ValueError(f"segment {r['id']} was scored on directions {list(r['directions'])}, "
                                 f"segment {recs[0]['id']} on {names}; records must come from one configuration")
        matrix = np.array([[r["directions"][d] for d in names] for r in recs], dtype=float)
        weights, info = self.weights_for(matrix, names)
        scores = (matrix @ weights).tolist()
        details = [{k: v for k, v in r.items() if k != "id"} for r in recs]
        corpus: Dict[str, Any] = {
            "directions": names,
            "direction_weights": dict(zip(names, weights.tolist())),
            **info,
            "direction_means": dict(zip(names, matrix.mean(axis=0).tolist())),
            "token_weights": self.token_weights,
            "languages": self._languages(names),
        }
        return MetricResult(self.name, scores, float(np.mean(scores)), self._signature(len(names)), details, corpus)

    def _languages(self, names: Sequence[str]) -> Dict[str, str]:
        roles = {role for name in names for role in name.split("->")}
        langs = {"src": self.source_lang, "hypo": self.target_lang, "ref": self.target_lang,
                 "trans1": self.trans1_lang, "trans2": self.trans2_lang}
        return {role: langs[role] for role in ("src", "ref", "hypo", "trans1", "trans2") if role in roles}

    # -- signature ---------------------------------------------------------------------
    def _signature(self, n_dirs: Union[int, str]) -> str:
        dirw = self.direction_weights
        return make_signature(
            "datscore", __version__, model=self.lm.describe(), dirs=n_dirs, tokw=self.token_weights,
            dirw="fixed" if isinstance(dirw, dict) else {"one-vs-rest": "ovr"}.get(dirw, dirw),
            src=self.source_lang, tgt=self.target_lang, aug=f"{self.trans1_lang},{self.trans2_lang}",
            beam=self.beam_size, maxnew=self.max_new_tokens, maxlen=self.lm.max_length)

    @property
    def signature(self) -> str:
        return self._signature("auto" if self.directions == "auto" else len(self.directions))

"""DATScore's configuration and scorer: the options, the per-segment direction scores
(translation, then batched conditional log-likelihoods) and the corpus reduction."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Union

import numpy as np

from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import Inputs, Record
from nlgmetrics.core.record_fields import Field, explanation, numbers
from nlgmetrics.core.scorer import Scorer
from nlgmetrics.core.significance import Resampler

from ..core.result import MetricResult, make_signature
from .config import DEFAULT_MODEL, DATScoreConfig
from .directions import (
    ALL_DIRECTIONS,
    augmentation_languages,
    check_directions,
    direction_weights,
    fixed_weights_text,
    scored_directions,
)


class DATScore(Scorer):
    """DATScore with an M2M-100-compatible backbone (hub id or local directory); the options
    are :class:`DATScoreConfig`'s."""

    name: ClassVar[str] = "datscore"
    Config = DATScoreConfig
    references_mode: ClassVar[str] = "required"
    sources_mode: ClassVar[str] = "optional"
    config: DATScoreConfig

    def setup(self) -> None:
        c = self.config
        bartscore = c.directions == "bartscore"
        self.token_weights: str = c.token_weights or ("uniform" if bartscore else "entropy")
        self.direction_weights: Union[str, Mapping[str, float]] = (
            c.direction_weights if c.direction_weights is not None else ("uniform" if bartscore else "one-vs-rest"))
        self.directions = check_directions(c.directions, c.exclude_directions)
        self.excluded = tuple(str(d).lower() for d in c.exclude_directions)
        from .seq2seq import Seq2SeqLM  # here: torch and transformers (the CLI's --help reads this class)

        self.lm = Seq2SeqLM(c.model, device=c.device, dtype=c.dtype, batch_size=c.batch_size,
                            max_length=c.max_length, cache_dir=c.cache_dir, quiet=self.quiet,
                            batch_tokens=c.batch_tokens)
        self.source_lang, self.target_lang = c.source_lang, c.target_lang
        default_a, default_b = augmentation_languages(c.source_lang, c.target_lang)
        self.trans1_lang: str = c.trans1_lang or default_a
        self.trans2_lang: str = c.trans2_lang or default_b
        for lang in (c.source_lang, c.target_lang, self.trans1_lang, self.trans2_lang):
            if lang is not None:
                self.lm.check_language(lang)

    def signature_facts(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """The resolved facts of the signature for the directions ``names`` (default: those the
        configuration can score): fixed direction weights as ``name=weight`` pairs sorted by name,
        and the augmentation languages of the scored augmentations only (``-`` for one not
        scored; none without augmentation)."""
        dirw = self.direction_weights
        roles = {role for name in (names or self.config.possible_directions()) for role in name.split("->")}
        aug = [lang if role in roles else "-" for role, lang in (("trans1", self.trans1_lang),
                                                                  ("trans2", self.trans2_lang))]
        return {"model": self.lm.describe(), "dirs": "auto" if self.directions == "auto" else len(self.directions),
                "tokw": self.token_weights,
                "dirw": fixed_weights_text(dirw) if not isinstance(dirw, str) else {"one-vs-rest": "ovr"}.get(dirw, dirw),
                "aug": None if aug == ["-", "-"] else ",".join(aug), "maxlen": self.lm.max_length}

    def _active_directions(self, with_sources: bool) -> tuple[str, ...]:
        """The directions scored for inputs with or without sources."""
        names = scored_directions(self.directions, self.excluded, with_sources=with_sources)
        if not names:
            raise ValueError(f"exclude_directions={self.excluded!r} leaves no direction to score for inputs "
                             f"{'with' if with_sources else 'without'} sources")
        return names

    # -- segment scoring ---------------------------------------------------------------
    def score_segments(self, inputs: Inputs) -> list[Record]:
        names = self._active_directions(inputs.sources is not None)
        roles = {role for name in names for role in name.split("->")}
        if roles & {"src", "trans1"}:
            if inputs.sources is None:
                raise ValueError(f"directions {[n for n in names if 'src' in n or 'trans1' in n]} need sources; "
                                 "pass sources=... or use directions='reference'")
            if self.source_lang is None:
                raise ValueError("source_lang is required to score with sources (the M2M-100 code of the "
                                 "sources' language, e.g. source_lang='de')")
        lm, t, c = self.lm, self.target_lang, self.config
        refs: list[str] = list(inputs.references or [])
        texts: dict[str, tuple[list[str], str]] = {"hypo": (inputs.predictions, t), "ref": (refs, t)}
        sources: list[str] = list(inputs.sources or [])
        if "src" in roles:
            texts["src"] = (sources, str(self.source_lang))
        if "trans1" in roles:
            texts["trans1"] = (lm.translate(sources, str(self.source_lang), self.trans1_lang, beam_size=c.beam_size,
                                            max_new_tokens=c.max_new_tokens, desc="translating sources"),
                               self.trans1_lang)
        if "trans2" in roles:
            texts["trans2"] = (lm.translate(refs, t, self.trans2_lang, beam_size=c.beam_size,
                                            max_new_tokens=c.max_new_tokens, desc="translating references"),
                               self.trans2_lang)
        cut: set[int] = set()  # segments with a text (or translation) cut to max_length tokens
        seqs = {role: lm.sequences(values, lang, cut) for role, (values, lang) in texts.items()}
        n = len(inputs)
        pairs = [(seqs[x][i], seqs[y][i]) for name in names for x, y in [name.split("->")] for i in range(n)]
        token_scores = lm.score_pairs(pairs, desc="scoring directions")
        records: list[Record] = []
        for i, seg_id in enumerate(inputs.ids):
            scores = {name: token_scores[k * n + i].mean(self.token_weights) for k, name in enumerate(names)}
            bad = [name for name, v in scores.items() if not math.isfinite(v)]
            if bad:
                raise ValueError(
                    f"DATScore: non-finite log-probabilities for segment {seg_id} ({', '.join(bad)}) with the model "
                    f"in {self.lm.describe().rsplit('/', 1)[-1]}: its activations overflowed that dtype's range; "
                    "score with dtype='fp32'")
            record: Record = {"id": seg_id, "directions": scores}
            if i in cut:
                record["truncated"] = True
            if c.return_translations:
                record["translations"] = {role: texts[role][0][i] for role in ("trans1", "trans2") if role in texts}
            records.append(record)
        return records

    # -- corpus reduction --------------------------------------------------------------
    def weights_for(self, matrix: np.ndarray, names: Sequence[str]) -> tuple[np.ndarray, dict[str, Any]]:
        """Direction weights for a segments x directions matrix under this scorer's option."""
        return direction_weights(matrix, names, self.direction_weights, self.config.ovr_min_segments)

    @classmethod
    def record_fields(cls, config: MetricConfig) -> dict[str, Field]:
        """A record: the mean log-probability (<= 0) of each direction scored, some of those
        the configuration can score; the translations with ``return_translations``."""
        assert isinstance(config, DATScoreConfig)
        logprob = (-math.inf, 0.0)
        return {"directions": numbers(keys={name: logprob for name in config.possible_directions()}, subset=True),
                "translations": explanation()}

    def reduce_records(self, records: list[Record]) -> MetricResult:
        if not records:
            raise ValueError("no records to reduce")
        names = list(records[0]["directions"])
        for r in records:
            if list(r["directions"]) != names:
                raise ValueError(f"segment {r['id']} was scored on directions {list(r['directions'])}, "
                                 f"segment {records[0]['id']} on {names}; records must come from one configuration")
        matrix = np.array([[r["directions"][d] for d in names] for r in records], dtype=float)
        weights, info = self.weights_for(matrix, names)
        scores = (matrix @ weights).tolist()
        details = [{k: v for k, v in r.items() if k != "id"} for r in records]
        corpus: dict[str, Any] = {
            "directions": names,
            "direction_weights": dict(zip(names, weights.tolist())),
            **info,
            "direction_means": dict(zip(names, matrix.mean(axis=0).tolist())),
            "token_weights": self.token_weights,
            "languages": self._languages(names),
        }
        return MetricResult(self.name, scores, float(np.mean(scores)), self._signature(names), details, corpus)

    def resampler(self, records: list[Record]) -> Resampler:
        """Each resample's direction weights recomputed (one-vs-rest over the resampled
        segments, as :meth:`reduce_records`), its corpus score the mean weighted sum."""
        names = list(records[0]["directions"])
        matrix = np.array([[r["directions"][d] for d in names] for r in records], dtype=float)

        def run(positions: np.ndarray) -> np.ndarray:
            out = np.empty(len(positions))
            for k, row in enumerate(positions):
                sample = matrix[row]
                out[k] = float(np.mean(sample @ self.weights_for(sample, names)[0]))
            return out

        return run

    def _languages(self, names: Sequence[str]) -> dict[str, str]:
        roles = {role for name in names for role in name.split("->")}
        langs = {"src": self.source_lang, "hypo": self.target_lang, "ref": self.target_lang,
                 "trans1": self.trans1_lang, "trans2": self.trans2_lang}
        return {role: str(langs[role]) for role in ("src", "ref", "hypo", "trans1", "trans2") if role in roles}

    def _signature(self, names: Sequence[str]) -> str:
        """The generated signature with the directions actually scored (``auto`` resolves per
        call: 8 with sources, 4 without)."""
        from nlgmetrics.core.version import __version__

        return make_signature(self.name, __version__,
                              **self.config.signature_fields({**self.signature_facts(names), "dirs": len(names)}))


__all__ = ["ALL_DIRECTIONS", "DEFAULT_MODEL", "DATScore", "DATScoreConfig"]

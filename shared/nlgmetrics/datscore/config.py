"""DATScore's configuration: the model, languages, directions, weights and decoding options (:class:`DATScoreConfig`)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional, Union

from ..core.budget import WORDS, Budget
from ..core.config import MetricConfig, option
from ..core.facts import Example, MetricFacts, Need
from .directions import (
    DIRECTION_SETS,
    DIRECTION_WEIGHTINGS,
    MIN_SEGMENTS_FOR_OVR,
    augmentation_languages,
    canonical_directions,
    check_directions,
    check_fixed_weights,
    scored_directions,
)
from .translations import TOKEN_WEIGHTINGS

DEFAULT_MODEL = "facebook/m2m100_418M"
#: the work budget per segment: characters and whitespace words of a text before tokenizing (over
#: it: cut, truncated: true); the model's own unit, subword tokens, is capped by max_length (at
#: most MAX_LENGTH, M2M-100's positions) and a translation by max_new_tokens (at most MAX_NEW_TOKENS)
BUDGET = Budget("words", 4_000, WORDS, max_chars=20_000)
MAX_LENGTH = 1024
MAX_NEW_TOKENS = 512


@dataclass(frozen=True)
class DATScoreConfig(MetricConfig):
    """DATScore's options (see :mod:`nlgmetrics.datscore`)."""

    BUDGET = BUDGET

    model: str = option(DEFAULT_MODEL, "M2M-100-compatible checkpoint: hub id or local directory", short="model")
    source_lang: Optional[str] = option(None, "M2M-100 code of the sources' language (needed with sources)",
                                        short="src", signature="always")
    target_lang: str = option("en", "M2M-100 code of the hypotheses and references", short="tgt",
                              signature="always")
    trans1_lang: Optional[str] = option(
        None, "language of Trans1, the translated source (None: the paper's rule; an empty string is refused)",
        short="t1")
    trans2_lang: Optional[str] = option(
        None, "language of Trans2, the translated reference (None: the paper's rule; an empty string is refused)",
        short="t2")
    directions: Union[str, tuple[str, ...]] = option(
        "auto", "auto (8 with sources, 4 without), all, reference, bartscore, or a list of direction names",
        short="dirset")
    exclude_directions: tuple[str, ...] = option((), "directions left out (ablation)", short="excl")
    token_weights: Optional[str] = option(
        None, "token weights: entropy or uniform (None: entropy; uniform with directions=bartscore)",
        choices=TOKEN_WEIGHTINGS, short="tokw")
    direction_weights: Union[str, Mapping[str, float], None] = option(
        None, "one-vs-rest, uniform, or a mapping direction -> weight (None: one-vs-rest; uniform with "
        "directions=bartscore)", short="dirw")
    ovr_min_segments: int = option(
        MIN_SEGMENTS_FOR_OVR, "fewest segments for one-vs-rest weights; below it uniform weights, a note and a "
        "warning", low=3, short="ovrmin")
    beam_size: int = option(5, "beam size of the augmented translations", low=1, high=64, short="beam",
                            signature="always")
    max_new_tokens: Optional[int] = option(
        None, "cap on the length of an augmented translation (None: the model's generation config, M2M-100: "
        "200 tokens); a translation that reaches it warns", low=1, high=MAX_NEW_TOKENS, short="maxnew", signature="always")
    max_length: int = option(MAX_LENGTH, "token cap per text (longer texts are truncated with a warning)", low=3,
                             high=MAX_LENGTH,
                             short="maxlen", signature="always")
    batch_size: int = option(8, "sequences per forward pass (scores do not depend on it)", low=1, high=1024,
                             signature="never")
    batch_tokens: Optional[int] = option(
        None, "padded tokens per forward pass, length-sorted batches filled up to it instead of batch_size "
        "sequences (generation: divided by beam_size; scores do not depend on it)", low=1, signature="never")
    device: str = option("auto", "auto, cpu, cuda, cuda:N or mps", signature="never")
    dtype: str = option("fp32", "weights and activations: fp32, bf16 or fp16 (fp16 on GPU only)",
                        choices=("fp32", "bf16", "fp16"), short="dtype")
    cache_dir: Optional[str] = option(
        None, "directory of an sqlite cache of the translations (None: memory only; an empty string is refused)",
        signature="never")
    return_translations: bool = option(False, "put the augmented translations in the details", signature="never")
    profile: str = option("paper", "paper: the only profile (it needs an M2M-100 checkpoint)", choices=("paper",),
                          short="profile", signature="always")

    def check(self) -> None:
        for name in ("trans1_lang", "trans2_lang", "cache_dir"):
            value = getattr(self, name)
            if value is not None and not str(value).strip():
                raise ValueError(f"{name} must be None or a non-empty string, got {value!r}"
                                 + (" (None keeps the translations in memory only)" if name == "cache_dir" else
                                    " (None: the paper's rule)"))
        if isinstance(self.exclude_directions, str):
            object.__setattr__(self, "exclude_directions", (self.exclude_directions,))
        check_directions(self.directions, self.exclude_directions)
        # equivalent spellings sign alike: a list of names lower-cased, deduplicated, in the canonical
        # order (a list naming the 'all' or 'reference' set is that set; never 'bartscore', whose
        # defaults differ), and only the exclusions that remove a direction, in the canonical order
        if not isinstance(self.directions, str):
            chosen = canonical_directions(self.directions)
            named = [k for k, v in DIRECTION_SETS.items() if k != "bartscore" and v == chosen]
            object.__setattr__(self, "directions", named[0] if named else chosen)
        candidates = scored_directions(check_directions(self.directions, ()))
        excluded = {str(d).lower() for d in self.exclude_directions}
        object.__setattr__(self, "exclude_directions", tuple(d for d in candidates if d in excluded))
        weights = self.direction_weights
        if isinstance(weights, str):
            if weights not in DIRECTION_WEIGHTINGS:
                raise ValueError(f"direction_weights must be one of {DIRECTION_WEIGHTINGS} or a mapping "
                                 f"direction -> weight, got {weights!r}")
        elif weights is not None:
            if not isinstance(weights, Mapping):
                raise ValueError(  # noqa: TRY004 (option errors are ValueErrors throughout)
                    f"direction_weights must be a string or a mapping, got {type(weights).__name__}")
            object.__setattr__(self, "direction_weights", check_fixed_weights(weights))

    def possible_directions(self) -> tuple[str, ...]:
        """The directions this configuration can score: ``auto``'s 8 (with sources) or 4
        (without), exclusions removed, or the chosen ones."""
        return scored_directions(check_directions(self.directions, self.exclude_directions),
                                 self.exclude_directions)

    def unused_options(self) -> frozenset:
        """Options that cannot change a score here: without an augmented direction the
        decoding options (``beam_size``, ``max_new_tokens``); the language of an augmentation
        that is not scored; ``source_lang`` when no source direction is scored and it does not
        choose Trans2's language (Trans2 not scored, set explicitly, or the rule's choice for
        ``target_lang`` does not depend on the source); ``ovr_min_segments`` when the direction
        weights are not one-vs-rest (``auto``: inert only when inert with and without sources)."""
        names = self.possible_directions()
        roles = {role for name in names for role in name.split("->")}
        out = set()
        if not roles & {"trans1", "trans2"}:
            out |= {"beam_size", "max_new_tokens"}
        if "trans1" not in roles:
            out.add("trans1_lang")
        if "trans2" not in roles:
            out.add("trans2_lang")
        if not roles & {"src", "trans1"} and (
                "trans2" not in roles or self.trans2_lang is not None
                or augmentation_languages(self.source_lang, self.target_lang)[1]
                == augmentation_languages(None, self.target_lang)[1]):
            out.add("source_lang")
        weighting = self.direction_weights if self.direction_weights is not None else (
            "uniform" if self.directions == "bartscore" else "one-vs-rest")
        if weighting != "one-vs-rest" or len(names) == 1:
            out.add("ovr_min_segments")
        return frozenset(out)


# -- facts (nlgmetrics list, demo, higher_is_better: core/facts.py) ------------------------------
FACTS = MetricFacts(
    summary="DATScore: translation log-likelihood along up to eight augmented directions (M2M-100)",
    higher_is_better=True,
    score_range="(-inf, 0]: weighted mean token log-probability (nats), closer to 0 is better",
    needs=(Need("paper", {"profile": "paper"}, models=(DEFAULT_MODEL,)),),
    language_note="M2M-100's 100 languages, named by source_lang and target_lang (no detection needed)")


#: the evaluate module's named configurations (evaluate.load(path, name)), name -> options
PRESETS = {
    "default": {},
    "reference": {"directions": "reference"},
    "bartscore": {"directions": "bartscore"},
}

#: the demo's, the Space's and the tests' example: offline only with a local M2M-100 checkpoint
#: named by NLGMETRICS_DATSCORE_MODEL
EXAMPLE = Example({
    "sources": ["Le chat est assis sur le tapis.", "Il pleut depuis ce matin.",
                "Nous avons perdu le match hier soir."],
    "references": ["The cat is sitting on the mat.", "It has been raining since this morning.",
                   "We lost the match last night."],
    "predictions": ["The cat sits on the carpet.", "It rains since the morning.",
                    "We won the game yesterday evening."],
}, {"source_lang": "fr", "target_lang": "en"}, model_env="NLGMETRICS_DATSCORE_MODEL")

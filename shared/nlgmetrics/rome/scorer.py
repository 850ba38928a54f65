"""The RoMe scorer (Rony et al., ACL 2022) and its configuration.

    RoMe = NN(F_grammar, F_TED, F_EMD)   (see :mod:`.features`, :mod:`.grammar`, :mod:`.network`)

:class:`RoMeConfig` holds every option; :class:`RoMe` builds the encoder, parser, CoLA
classifier and network the configuration asks for and scores segments. ``component`` picks the
final score or one feature; the other features are then not computed.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..core.base import Inputs, Record, Scorer, mean_reduce, reference_group, validate_inputs, validate_texts
from ..core.config import MetricConfig, option
from ..core.embeddings import ContextualEncoder
from ..core.language import EnglishOnly
from ..core.linguistic import get_analyzer
from ..core.models import tokenize
from ..core.resources import user_or_data_file
from ..core.result import MetricResult
from ..core.significance import Resampler, mean_resampler
from .features import (
    ALIGNMENT_RULES,
    ANTONYM_RULES,
    DELTA_EMD,
    DELTA_TED,
    EMD_WEIGHTINGS,
    FUNCTION_WORD_WEIGHT,
    GAMMA,
    NAME_RULES,
    TED_NORMALIZATIONS,
    TREE_KINDS,
    UNALIGNED_COSTS,
    DependencyTree,
    clip_words,
    dependency_tree,
    emd_similarity,
    name_flags,
    preprocess,
    ted_se,
    visible_text,
)
from .grammar import GRAMMAR_PUNCTUATION, CoLAClassifier, TunedGrammarHead, load_grammar, with_end_punctuation
from .network import FEATURE_ORDER, ScorerNetwork

COMPONENTS = ("rome", "emd", "ted", "grammar")
#: the special ``scorer_weights`` value: fit a network on this configuration's own features
FIT = "fit"

#: per profile: encoder, grammaticality classifier, parser backend, scorer weights
PROFILES: dict[str, dict[str, str]] = {
    "paper": {"model": "albert-large-v2", "grammar_model": "textattack/bert-base-uncased-CoLA",
              "linguistic_backend": "auto", "scorer_weights": FIT},
    "lite": {"model": "minilm", "grammar_model": "rome_grammar_lite.npz",
             "linguistic_backend": "spacy", "scorer_weights": "rome_scorer_lite.json"},
}
#: which features each component computes
NEEDS = {"rome": {"emd", "ted", "grammar"}, "emd": {"emd"}, "ted": {"ted"}, "grammar": {"grammar"}}
#: the options each feature reads (besides the encoder, max_words and dtype)
FEATURE_OPTIONS = {
    "emd": {"delta_emd", "gamma", "alignment", "emd_unaligned", "emd_weights", "emd_antonyms", "emd_names"},
    "ted": {"linguistic_backend", "delta_ted", "ted_normalization", "ted_tree", "ted_vectors"},
    "grammar": {"grammar_model", "grammar_punctuation", "grammar_label"}}


@dataclass(frozen=True)
class RoMeConfig(MetricConfig):
    """RoMe's options."""

    RENAMED: ClassVar[dict[str, str]] = {"parser": "linguistic_backend", "ted_normalisation": "ted_normalization"}

    profile: str = option("paper", "model set: paper (albert-large-v2, BERT-base CoLA classifier, stanza when "
                          "installed; needs the hub) or lite (all-MiniLM-L6-v2, the shipped CoLA head, spaCy)",
                          choices=tuple(PROFILES), short="profile", signature="always")
    component: str = option("rome", "score to return: rome (final), emd (F_EMD), ted (F_TED, a distance: "
                            "lower is better) or grammar (F_grammar)", choices=COMPONENTS, short="component",
                            signature="always")
    model: str | None = option(None, "word-vector encoder (hub id, local directory or minilm); "
                                  "None: the profile's", short="model")
    grammar_model: str | None = option(None, "CoLA classifier (hub id, directory, or a .npz head); "
                                          "None: the profile's", short="grammar")
    scorer_weights: str | None = option(None, "final network (JSON file, or 'fit': fitted once on this "
                                           "configuration's features and cached); None: the profile's, or "
                                           "'fit' when model, grammar_model or linguistic_backend differ "
                                           "from it", short="net")
    linguistic_backend: str | None = option(None, "dependency parser for F_TED; None: the profile's",
                                               choices=("auto", "spacy", "stanza"), short="parser")
    delta_emd: float = option(DELTA_EMD, "F_EMD alignment threshold: a word pair is aligned when its "
                              "cosine exceeds it", low=-1.0, high=1.0, short="demb")
    delta_ted: float = option(DELTA_TED, "F_TED node equality: two words match when their cosine is at "
                              "least this", low=-1.0, high=1.0, short="dted")
    gamma: float = option(GAMMA, "soft position penalty constant of F_EMD", low=0.0, high=100.0, short="gamma")
    alignment: str = option("argmax", "F_EMD hard alignment: argmax (the specification; the default: within 0.001 "
                            "of thresholded on training pairs in training/rome_options.py, a tie kept for the "
                            "specification) or thresholded (best free word above delta_emd)",
                            choices=ALIGNMENT_RULES, short="align")
    emd_unaligned: str = option("cosine", "F_EMD cost of a word pair outside the hard alignment: one (the "
                                "specification) or cosine (1 - cos clipped to [0, 1]: unaligned words still "
                                "transport at their semantic distance; the default, chosen by "
                                "training/rome_options.py)", choices=UNALIGNED_COSTS, short="emdunal")
    emd_weights: str = option("content", "F_EMD word weights: tfidf (the specification; TF-IDF over the pair as two "
                              f"documents) or content (term frequency, closed-class function words weighted "
                              f"{FUNCTION_WORD_WEIGHT:g} against 1 for content words; the default, chosen by "
                              "training/rome_options.py)", choices=EMD_WEIGHTINGS, short="emdw")
    emd_antonyms: str = option("wordnet", "F_EMD and WordNet antonyms: off (the specification: the encoder's "
                               "cosine) or wordnet (an adjective and its WordNet antonym, direct or indirect, "
                               "get cosine 0: never aligned, transport cost 1; the default, chosen by "
                               "training/rome_options.py)", choices=ANTONYM_RULES, short="emdant")
    emd_names: str = option("capitalised", "F_EMD and proper names: off (the specification: the encoder's "
                            "cosine) or capitalised (two different capitalised words, not function words and not "
                            "common words starting a sentence, get cosine 0: 'London' for 'Paris' is never "
                            "aligned; English casing, no names in ALL-CAPS or Title Case texts; the default, "
                            "chosen by training/rome_options.py)",
                            choices=NAME_RULES, short="emdname")
    ted_normalization: str = option("max", "F_TED normalization: max (larger tree, clipped at 1) or sum "
                                    "(both sizes)", choices=TED_NORMALIZATIONS, short="tednorm")
    ted_tree: str = option("roles_copula", "F_TED trees: lemma (every word, the specification), roles (content "
                           "words with active-voice subject/object roles; a subject never matches an object) or "
                           "roles_copula (roles, and the two arguments of an identity copula in a fixed order, so "
                           "'X is the capital of Y' = 'the capital of Y is X'; the default, chosen by "
                           "training/rome_options.py)", choices=TREE_KINDS, short="tedtree")
    ted_vectors: str = option("static", "F_TED node vectors: contextual (the encoder's output for the "
                              "lemma sequence) or static (its input word-piece embeddings, as the paper's "
                              "static fastText vectors; the default, chosen by training/rome_options.py)",
                              choices=("contextual", "static"), short="tedvec")
    max_words: int = option(256, "texts are cut to this many words (with a warning)", low=1, short="maxw")
    return_alignment: bool = option(False, "add the F_EMD word alignment to each segment's details",
                                     signature="never")
    grammar_punctuation: str = option("as-is", "F_grammar input: as-is (the specification; the default, kept by "
                                      "benchmarks/rome_grammar_punctuation.py on CoLA's training data) or "
                                      "full-stop (a hypothesis without final . ! ? is classified with a full "
                                      "stop added, as most of CoLA's sentences have one)", choices=GRAMMAR_PUNCTUATION,
                                      short="gpunct")
    grammar_label: int | None = option(None, "index of the 'acceptable' label of a CoLA sequence classifier "
                                          "(None: from its config, else 1); refused with a .npz head (the lite "
                                          "profile's), whose one output is P(acceptable)", low=0, short="glabel")
    device: str = option("auto", "auto, cpu, cuda, cuda:N or mps", signature="never")
    dtype: str = option("fp32", "model precision", choices=("fp32", "fp16", "bf16"), short="dtype")
    batch_size: int = option(32, "texts per encoder batch", low=1, signature="never")

    def check(self) -> None:
        grammar = str(self.resource("grammar_model"))
        if self.grammar_label is not None and grammar.endswith(".npz"):
            raise ValueError(f"grammar_label={self.grammar_label} applies to a CoLA sequence classifier with one "
                             f"output per label; the grammar head {grammar} has a single output, P(acceptable): "
                             "leave grammar_label unset")

    def inert(self) -> frozenset:
        """The options of the features a component does not compute (``component="emd"``
        builds no parser and no grammar classifier; only ``rome`` runs the network)."""
        needs = NEEDS[self.component]
        unused = set().union(*(options for feature, options in FEATURE_OPTIONS.items() if feature not in needs))
        if not needs & {"emd", "ted"}:
            unused.add("model")
        if self.component != "rome":
            unused.add("scorer_weights")
        return frozenset(unused)

    def resource(self, name: str) -> str | None:
        """The option's value, else the profile's."""
        value = getattr(self, name)
        return PROFILES[self.profile][name] if value is None else value

    def network_source(self) -> str:
        """The shipped network file, or ``fit`` (see :data:`FIT`)."""
        if self.scorer_weights is not None:
            return self.scorer_weights
        own = [n for n in ("model", "grammar_model", "linguistic_backend")
               if getattr(self, n) is not None and getattr(self, n) != PROFILES[self.profile][n]]
        return FIT if own else PROFILES[self.profile]["scorer_weights"]


def _check_file_option(option: str, value: str, expected: str) -> None:
    """Refuse, when the scorer is built rather than at its first score, a file option that
    names neither a file nor one shipped with the package."""
    try:
        user_or_data_file(value)
    except FileNotFoundError:
        raise FileNotFoundError(f"{option}={value!r}: no such file ({Path(value).absolute()}) and no file of "
                                f"that name ships with nlgmetrics; give {expected}") from None


def _checked_pairs(predictions: Any, references: Any) -> tuple[list[str], list[str]]:
    """Hypotheses and references of the public feature methods, checked and normalised by
    the rules of :meth:`~nlgmetrics.core.base.Scorer.score` (lists of strings of equal length,
    lone surrogates replaced), one reference string per hypothesis."""
    inputs = validate_inputs(predictions, references)
    return inputs.predictions, inputs.references or []


@dataclass
class _Sentence:
    """Per-text work, within a call."""

    words: list[str]
    #: whether the analysis dropped words past max_words (F_EMD words split at punctuation too, F_TED tree)
    cut: bool = False
    vectors: np.ndarray | None = None
    opaque: list[bool] | None = None
    names: list[bool] | None = None
    tree: DependencyTree | None = None
    lemma_vectors: np.ndarray | None = None
    lemma_opaque: list[bool] | None = None


class RoMe(Scorer):
    """RoMe and its three features (options: :class:`RoMeConfig`).

    References may be one string or several per prediction; with several, the reference
    giving the best score counts (highest, or lowest F_TED for ``component="ted"``).
    """

    name = "rome"
    Config = RoMeConfig
    references_mode = "required"
    sources_mode = "none"
    multi_reference = True
    config: RoMeConfig

    def setup(self) -> None:
        cfg = self.config
        self._english = EnglishOnly(
            "RoMe's encoder, parser and grammar classifier are English: a text mostly in another script "
            "gets scores that are not meaningful (flagged 'non_english' in details)")
        needs = NEEDS[cfg.component]
        if cfg.component == "rome" and cfg.scorer_weights not in (None, FIT):
            _check_file_option("scorer_weights", str(cfg.scorer_weights), "a network JSON file (written by "
                               "python -m nlgmetrics.training.rome_scorer), 'fit', or None for the profile's")
        if "grammar" in needs and str(cfg.grammar_model).endswith(".npz"):
            _check_file_option("grammar_model", str(cfg.grammar_model), "a .npz head (written by python -m "
                               "nlgmetrics.training.rome_grammar), a hub id or directory, or None for the profile's")
        self.encoder: ContextualEncoder | None = None
        if needs & {"emd", "ted"}:
            self.encoder = ContextualEncoder(str(cfg.resource("model")), device=cfg.device, dtype=cfg.dtype,
                                             batch_size=cfg.batch_size, quiet=self.quiet)
        self.linguistic_backend = str(cfg.resource("linguistic_backend"))
        self._analyzer: Any = get_analyzer(self.linguistic_backend) if "ted" in needs else None
        self.grammar: Any | None = None
        if "grammar" in needs:
            self.grammar = load_grammar(str(cfg.resource("grammar_model")), device=cfg.device, dtype=cfg.dtype,
                                        batch_size=cfg.batch_size, label=cfg.grammar_label)
        self.network_source = cfg.network_source() if cfg.component == "rome" else None
        self._network: ScorerNetwork | None = None

    @property
    def network(self) -> ScorerNetwork | None:
        """The final scorer network (loaded, or fitted and cached, on first use; None for a
        single component)."""
        if self._network is None and self.network_source is not None:
            if self.network_source == FIT:
                from .fitting import fitted_network

                self._network = fitted_network(self)
            else:
                self._network = ScorerNetwork(self.network_source)
        return self._network

    def resolved(self) -> dict[str, Any]:
        needs = NEEDS[self.config.component]
        net = None
        if self.network_source == FIT:
            from .fitting import fit_key

            net = f"fit-{fit_key(self)[:12]}"
        elif self.network_source is not None:
            net = self.network_source.replace("\\", "/").rsplit("/", 1)[-1]
        return {"model": self.encoder.describe() if self.encoder else None,
                "grammar": self.grammar.name if self.grammar else None,
                "parser": self._analyzer.backend if "ted" in needs and self._analyzer else None,
                "net": net}

    # -- the three features, batched over unique texts --------------------------------------
    def _opaque(self, lists: Sequence[Sequence[str]]) -> list[list[bool]]:
        """Per word: True when the encoder's tokenizer maps it to no token or to any unknown
        token; such a word is compared by its text, since its vector cannot tell it from another
        word that differs only in unknown characters ("好消息" and "坏消息")."""
        assert self.encoder is not None
        tok = self.encoder.tokenizer
        unk = tok.unk_token_id
        words = list(dict.fromkeys(w for ws in lists for w in ws))
        ids = tokenize(tok, words, add_special_tokens=False, split_special_tokens=True)["input_ids"] if words else []
        flag = {w: (not i) or (unk is not None and unk in i) for w, i in zip(words, ids)}
        return [[flag[w] for w in ws] for ws in lists]

    def _static_vectors(self, lists: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Per word: the mean of its word pieces' input embeddings (no context)."""
        assert self.encoder is not None
        import torch

        table = self.encoder.model.get_input_embeddings().weight
        words = list(dict.fromkeys(w for ws in lists for w in ws))
        ids = (tokenize(self.encoder.tokenizer, words, add_special_tokens=False, split_special_tokens=True)["input_ids"]
               if words else [])
        with torch.inference_mode():
            vec = {w: (table[torch.tensor(i, device=table.device)].float().mean(0).cpu().numpy() if i
                       else np.zeros(table.shape[1], dtype=np.float32)) for w, i in zip(words, ids)}
        return [np.array([vec[w] for w in ws], dtype=np.float32).reshape(len(ws), table.shape[1]) for ws in lists]

    def _analyse(self, texts: Sequence[str], needs: set[str]) -> dict[str, _Sentence]:
        """Per unique text: words and word vectors (F_EMD), lemma tree and lemma vectors
        (F_TED). All word lists go through the encoder in one batched call."""
        max_words = self.config.max_words
        unique = list(dict.fromkeys(texts))
        sentences = {}
        for t in unique:
            words = preprocess(t)
            sentences[t] = _Sentence(words[:max_words], cut="emd" in needs and len(words) > max_words)
        if "emd" in needs and self.config.emd_names != "off":
            for t in unique:
                sentences[t].names = name_flags(t)[:max_words]
        if "ted" in needs:
            if self._analyzer is None:
                raise ValueError(f"this scorer was built with component={self.config.component!r} and has no parser")
            for text, parsed in zip(unique, self._analyzer.analyze(unique)):
                tree = dependency_tree(parsed, max_words, roles=self.config.ted_tree != "lemma",
                                       copula=self.config.ted_tree == "roles_copula")
                sentences[text].tree = tree
                sentences[text].cut |= tree.cut
        lists: list[list[str]] = []
        if "emd" in needs:
            lists += [sentences[t].words for t in unique]
        static = "ted" in needs and self.config.ted_vectors == "static"
        if "ted" in needs and not static:
            lists += [sentences[t].tree.lemmas for t in unique]  # type: ignore[union-attr]
        if lists and self.encoder is None:
            raise ValueError(f"this scorer was built with component={self.config.component!r} and has no encoder")
        vectors = iter(self.encoder.word_vectors(lists) if lists and self.encoder else [])
        opaque = iter(self._opaque(lists) if lists else [])
        if static:
            lemma_lists = [sentences[t].tree.lemmas for t in unique]  # type: ignore[union-attr]
            for t, vecs, flags in zip(unique, self._static_vectors(lemma_lists), self._opaque(lemma_lists)):
                sentences[t].lemma_vectors, sentences[t].lemma_opaque = vecs, flags
        for kind in ("emd", "ted"):
            if kind in needs and not (kind == "ted" and static):
                for t in unique:
                    if kind == "emd":
                        sentences[t].vectors, sentences[t].opaque = next(vectors), next(opaque)
                    else:
                        sentences[t].lemma_vectors, sentences[t].lemma_opaque = next(vectors), next(opaque)
        return sentences

    def _pair(self, sh: _Sentence, sr: _Sentence, needs: set[str]) -> tuple[float, float, list[Any]]:
        cfg = self.config
        emd, pairs = (emd_similarity(sh.words, sr.words, sh.vectors, sr.vectors,  # type: ignore[arg-type]
                                     delta=cfg.delta_emd,
                                     gamma=cfg.gamma, alignment=cfg.alignment, unaligned=cfg.emd_unaligned,
                                     weights=cfg.emd_weights, antonyms=cfg.emd_antonyms, names=cfg.emd_names,
                                     hyp_opaque=sh.opaque, ref_opaque=sr.opaque,
                                     hyp_names=sh.names, ref_names=sr.names)
                      if "emd" in needs else (float("nan"), []))
        ted = (ted_se(sh.tree, sr.tree, sh.lemma_vectors, sr.lemma_vectors,  # type: ignore[arg-type]
                      delta=cfg.delta_ted, normalization=cfg.ted_normalization,
                      hyp_opaque=sh.lemma_opaque, ref_opaque=sr.lemma_opaque)[0]
               if "ted" in needs else float("nan"))
        return emd, ted, [[i, j, sh.words[i], sr.words[j]] for i, j in pairs]

    def _features(self, predictions: Sequence[str], references: Sequence[str], needs: set[str],
                  final: bool) -> dict[str, Any]:
        max_words = self.config.max_words
        clipped = [clip_words(visible_text(t), max_words) for t in [*predictions, *references]]
        texts, cut = [t for t, _ in clipped], [c for _, c in clipped]
        hyps, refs = texts[:len(predictions)], texts[len(predictions):]
        out: dict[str, Any] = {}
        if needs & {"emd", "ted"}:
            sent = self._analyse(texts, needs)
            cut = [c or sent[t].cut for t, c in zip(texts, cut)]
            done: dict[tuple[str, str], tuple[float, float, list[Any]]] = {}
            for h, r in zip(hyps, refs):
                if (h, r) not in done:
                    done[(h, r)] = self._pair(sent[h], sent[r], needs)
            values = [done[(h, r)] for h, r in zip(hyps, refs)]
            if "emd" in needs:
                out["f_emd"] = np.array([v[0] for v in values])
                out["alignment"] = [v[2] for v in values]
            if "ted" in needs:
                out["f_ted"] = np.array([v[1] for v in values])
        if any(cut):  # one warning for the call, counting each distinct hypothesis and reference
            # once (with several references a hypothesis is in these lists once per reference)
            roles = ["hypothesis"] * len(predictions) + ["reference"] * len(references)
            n_cut = len({(role, t) for role, t, c in zip(roles, [*predictions, *references], cut) if c})
            warnings.warn(f"{n_cut} distinct text(s) longer than {max_words} words (split at whitespace, and at "
                          f"punctuation for F_EMD and F_TED) were cut to max_words={max_words}", stacklevel=3)
        if "grammar" in needs:
            if self.grammar is None:
                raise ValueError(f"this scorer was built with component={self.config.component!r} "
                                 "and has no grammar classifier")
            unique = [t for t in dict.fromkeys(hyps) if t.strip()]
            inputs = ([with_end_punctuation(t) for t in unique] if self.config.grammar_punctuation == "full-stop"
                      else unique)
            probs = dict(zip(unique, self.grammar.probabilities(inputs)))
            out["f_grammar"] = np.array([float(probs.get(h, 0.0)) for h in hyps])
        if final and needs == NEEDS["rome"] and self.network_source is not None:
            net = self.network
            assert net is not None
            out["rome"] = net(np.column_stack([out[k] for k in FEATURE_ORDER])) if hyps else np.zeros(0)
        return out

    def features(self, predictions: Sequence[str], references: Sequence[str], *,
                 final: bool = True) -> dict[str, Any]:
        """F_EMD, F_TED and F_grammar (those the component needs) for aligned lists of
        hypothesis and reference strings, as arrays (plus ``alignment`` lists), and the final
        ``rome`` score unless ``final=False`` (the network's training uses the features).
        Inputs are checked and normalised as :meth:`score` does (one reference per hypothesis)."""
        hyps, refs = _checked_pairs(predictions, references)
        return self._features(hyps, refs, NEEDS[self.config.component], final)

    def f_emd(self, predictions: Sequence[str], references: Sequence[str]) -> np.ndarray:
        """F_EMD alone (encoder only)."""
        return self._features(*_checked_pairs(predictions, references), {"emd"}, False)["f_emd"]

    def f_ted(self, predictions: Sequence[str], references: Sequence[str]) -> np.ndarray:
        """F_TED alone (parser and encoder); a distance in [0, 1]."""
        return self._features(*_checked_pairs(predictions, references), {"ted"}, False)["f_ted"]

    def f_grammar(self, predictions: Sequence[str]) -> np.ndarray:
        """F_grammar alone (the CoLA classifier); an empty hypothesis gives 0."""
        hyps = validate_texts(predictions, "predictions")
        return self._features(hyps, [""] * len(hyps), {"grammar"}, False)["f_grammar"]

    # -- Scorer hooks -----------------------------------------------------------------------
    def score_segments(self, inputs: Inputs) -> list[Record]:
        groups = [reference_group(r) for r in inputs.references or []]
        flat_h = [h for h, g in zip(inputs.predictions, groups) for _ in g]
        flat_r = [r for g in groups for r in g]
        feats = self._features(flat_h, flat_r, NEEDS[self.config.component], True)  # inputs already validated
        component = self.config.component
        key = {"rome": "rome", "emd": "f_emd", "ted": "f_ted", "grammar": "f_grammar"}[component]
        sign = -1.0 if component == "ted" else 1.0
        records: list[Record] = []
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
            self._english.check(record, (flat_h[start], *group), quiet=self.quiet)
            if self.config.return_alignment and "alignment" in feats:
                record["alignment"] = feats["alignment"][best]
            records.append(record)
            start += len(group)
        return records

    def reduce_records(self, records: list[Record]) -> MetricResult:
        return mean_reduce(self, records, corpus=EnglishOnly.corpus(records))

    def resampler(self, records: list[Record]) -> Resampler:
        """The corpus score is the mean of the segment scores: resampled as such."""
        return mean_resampler([r["score"] for r in records])


__all__ = ["COMPONENTS", "FIT", "PROFILES", "CoLAClassifier", "RoMe", "RoMeConfig", "TunedGrammarHead"]

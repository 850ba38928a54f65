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
from typing import TYPE_CHECKING, Any

import numpy as np

from nlgmetrics.core.config import MetricConfig
from nlgmetrics.core.inputs import (
    Inputs,
    Record,
    normalize_text,
    reference_group,
    validate_inputs,
    validate_texts,
    visible_text,
)
from nlgmetrics.core.record_fields import Field, explanation, integer, number
from nlgmetrics.core.scorer import Scorer, mean_reduce
from nlgmetrics.core.significance import Resampler, mean_resampler

from ..core.language import EnglishOnly
from ..core.linguistic import get_analyzer
from ..core.result import MetricResult
from .config import COMPONENTS, FIT, MAX_TED_WORK, NEEDS, PROFILES, RoMeConfig, _check_file_option
from .features import clip_words, emd_similarity, name_flags, preprocess, relative_grammar
from .network import FEATURE_ORDER, ScorerNetwork
from .ted import DependencyTree, dependency_tree, ted_se
from .tree_edit import ted_work

if TYPE_CHECKING:
    from ..core.embeddings import ContextualEncoder

# The model code (core.embeddings, core.models, .grammar: torch and transformers) is imported
# where a scorer sets up or runs, not here: the command line reads RoMe's class for --help.


def _checked_pairs(predictions: Any, references: Any) -> tuple[list[str], list[str]]:
    """Hypotheses and references of the public feature methods, checked and normalised by
    the rules of :meth:`~nlgmetrics.core.scorer.Scorer.score` (lists of strings of equal length,
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
        self._setup_network()
        if "grammar" in needs and str(cfg.grammar_model).endswith(".npz"):
            _check_file_option("grammar_model", str(cfg.grammar_model), "a .npz head (written by python "
                               "shared/tools/training/rome_grammar.py), a hub id or directory, or None for the profile's")
        self.encoder: ContextualEncoder | None = None
        if needs & {"emd", "ted"}:
            from ..core.embeddings import ContextualEncoder

            self.encoder = ContextualEncoder(str(cfg.resource("model")), device=cfg.device, dtype=cfg.dtype,
                                             batch_size=cfg.batch_size, quiet=self.quiet)
        self.linguistic_backend = str(cfg.resource("linguistic_backend"))
        self._analyzer: Any = get_analyzer(self.linguistic_backend) if "ted" in needs else None
        self.grammar: Any | None = None
        if "grammar" in needs:
            from .grammar import load_grammar

            self.grammar = load_grammar(str(cfg.resource("grammar_model")), device=cfg.device, dtype=cfg.dtype,
                                        batch_size=cfg.batch_size, label=cfg.grammar_label)

    def setup_reduce(self) -> None:
        """The reduction reads the features in the records and the final network (a file):
        no encoder, parser or grammar classifier; a network fitted at first use (``fit``)
        needs them, so that one sets up in full."""
        cfg = self.config
        if cfg.component == "rome" and cfg.network_source() == FIT:
            self.setup()
            return
        self._setup_network()
        self.encoder, self._analyzer, self.grammar = None, None, None
        self.linguistic_backend = str(cfg.resource("linguistic_backend"))

    def _setup_network(self) -> None:
        """The final network's source, and a network file read and checked (before any model loads)."""
        cfg = self.config
        if cfg.component == "rome" and cfg.scorer_weights not in (None, FIT):
            _check_file_option("scorer_weights", str(cfg.scorer_weights), "a network JSON file (written by "
                               "python shared/tools/training/rome_scorer.py), 'fit', or None for the profile's")
        self.network_source = cfg.network_source() if cfg.component == "rome" else None
        self._network: ScorerNetwork | None = None
        if self.network_source not in (None, FIT):
            self._network = ScorerNetwork(str(self.network_source))

    @property
    def network(self) -> ScorerNetwork | None:
        """The final scorer network (loaded, or fitted and cached, on first use; None for a
        single component)."""
        if self._network is None and self.network_source is not None:
            if self.network_source == FIT:
                from .fit import fitted_network

                self._network = fitted_network(self)
            else:
                self._network = ScorerNetwork(self.network_source)
        return self._network

    def signature_facts(self) -> dict[str, Any]:
        needs = NEEDS[self.config.component]
        net = None
        if self.network_source == FIT:
            from .fit import fit_key

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
        from ..core.models import tokenize

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

        from ..core.models import tokenize

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
                limit = max_words
                while ted_work(tree.tree) > MAX_TED_WORK and limit > 1:  # the work budget of F_TED
                    limit = max(1, limit * 4 // 5)
                    tree = dependency_tree(parsed, limit, roles=self.config.ted_tree != "lemma",
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

    def pair_analysis(self, hypothesis: str, reference: str) -> tuple[_Sentence, _Sentence]:
        """The F_EMD analysis of one pair exactly as scoring makes it (text preparation, words,
        vectors, opaque and name flags), for :mod:`nlgmetrics.rome.explain`."""
        hyp, ref = (clip_words(visible_text(normalize_text(t)), self.config.max_words)[0]
                    for t in (hypothesis, reference))
        sentences = self._analyse([hyp, ref], {"emd"})
        return sentences[hyp], sentences[ref]

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
                  final: bool, relative: bool = True) -> dict[str, Any]:
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
            from .grammar import with_end_punctuation

            rule = self.config.grammar_relative if relative else "off"
            unique = [t for t in dict.fromkeys(hyps + refs if rule != "off" else hyps) if t.strip()]
            inputs = ([with_end_punctuation(t) for t in unique] if self.config.grammar_punctuation == "full-stop"
                      else unique)
            probs = dict(zip(unique, self.grammar.probabilities(inputs)))
            p_hyp = np.array([float(probs.get(h, 0.0)) for h in hyps])
            out["f_grammar"] = relative_grammar(p_hyp, np.array([float(probs.get(r, 0.0)) for r in refs]), rule)
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
        """F_grammar alone (the CoLA classifier's P(acceptable), whatever ``grammar_relative``
        says: there is no reference here); an empty hypothesis gives 0."""
        hyps = validate_texts(predictions, "predictions")
        return self._features(hyps, [""] * len(hyps), {"grammar"}, False, relative=False)["f_grammar"]

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
            self._english.check(record, (flat_h[start], *group))
            if self.config.return_alignment and "alignment" in feats:
                record["alignment"] = feats["alignment"][best]
            records.append(record)
            start += len(group)
        return records

    @classmethod
    def record_fields(cls, config: MetricConfig) -> dict[str, Field]:
        """A record: the score and the features the component computes, each in [0, 1]
        (F_TED a distance), the best reference's index, and F_EMD's alignment."""
        assert isinstance(config, RoMeConfig)
        needs = NEEDS[config.component]
        fields = {"score": number(0, 1), **{f"f_{name}": number(0, 1) for name in ("grammar", "ted", "emd")
                                            if name in needs}}
        return {**fields, "reference_index": integer(required=False), "alignment": explanation("list")}

    def derived_fields(self, record: Record) -> dict[str, Any]:
        """The score: the final network on the three features (``component="rome"``), else
        the component's feature itself."""
        component = self.config.component
        if component != "rome":
            return {"score": record[f"f_{component}"]}
        net = self.network
        if net is None:
            return {}
        return {"score": float(net(np.array([[float(record[k]) for k in FEATURE_ORDER]]))[0])}

    def reduce_records(self, records: list[Record]) -> MetricResult:
        return mean_reduce(self, records, corpus=EnglishOnly.corpus(records))

    def resampler(self, records: list[Record]) -> Resampler:
        """The corpus score is the mean of the segment scores: resampled as such."""
        return mean_resampler([r["score"] for r in records])


__all__ = ["COMPONENTS", "FIT", "PROFILES", "RoMe", "RoMeConfig"]

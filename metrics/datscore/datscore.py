"""DATScore as a Hugging Face ``evaluate`` metric: a thin wrapper over ``nlgmetrics.datscore``."""
import datasets  # noqa: F401
import evaluate

from nlgmetrics import evaluate_support as support

_CITATION = """\
@article{kamal-eddine-etal-2022-datscore,
    title = "{DATS}core: Evaluating Translation with Data Augmented Translations",
    author = "Kamal Eddine, Moussa and Shang, Guokan and Vazirgiannis, Michalis",
    journal = "arXiv preprint arXiv:2210.06576",
    year = "2022",
    url = "https://arxiv.org/abs/2210.06576",
}
"""

_DESCRIPTION = """\
DATScore (Kamal Eddine et al., 2022) extends BARTScore to machine translation with a multilingual
seq2seq model (M2M-100). The source is translated into a language a (Trans1) and the reference
into a language b (Trans2); the hypothesis is scored by the model's conditional log-likelihood in
eight directions centred on it (Src, Ref, Trans1, Trans2 -> Hypo and back), each a weighted mean
of token log-probabilities with entropy token weights. The directions are combined with
one-vs-rest weights: each direction's weight is the sum of its Pearson correlations with the other
directions over the scored corpus. Without sources (data-to-text, summarisation, captioning) four
directions are used: Hypo <-> Ref and Hypo <-> Trans2. Scores are in log-probability units
(negative; higher is better).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): hypotheses (in target_lang).
    references (list of str): one reference per hypothesis (in target_lang).
    sources (list of str): the sources (in source_lang); the "default" configuration takes them,
        "reference" and "bartscore" do not.
    model (str): M2M-100-compatible checkpoint, hub id or local directory
        (default "facebook/m2m100_418M").
    source_lang (str): M2M-100 code of the sources' language (required with sources).
    target_lang (str): M2M-100 code of hypotheses and references (default "en").
    trans1_lang, trans2_lang (str): languages of the augmented translations (default: the
        paper's rule: to English en/es, from English es/en, otherwise en/es).
    directions: "auto" (default: 8 with sources, 4 without), "all", "reference", "bartscore",
        or a list of names such as ["ref->hypo", "hypo->ref"].
    exclude_directions (list of str): directions to leave out (ablation).
    token_weights (str): "entropy" (default) or "uniform".
    direction_weights: "one-vs-rest" (default), "uniform", or a dict direction -> weight
        (e.g. the weights returned on a calibration set, to freeze them).
    beam_size (int): beam size of the augmented translations (default 5).
    max_new_tokens (int): cap on translation length (default: the model's generation config).
    max_length (int): token cap per text, longer texts are truncated with a warning (1024).
    batch_size (int), device (str), dtype ("fp32" | "bf16" | "fp16").
    cache_dir (str): keep translations on disk (sqlite) so re-scoring is free.
    return_translations (bool): put the augmented translations in the details.
    return_details (bool): also return per-segment details (direction scores) and corpus
        information (direction weights).
Returns:
    score (float): mean of the segment scores.
    scores (list of float): DATScore per segment (weighted mean log-probability, <= 0).
    signature (str): reproducibility string.
    details, corpus: with return_details=True.
Examples:
    >>> import evaluate
    >>> datscore = evaluate.load("metrics/datscore")  # doctest: +SKIP
    >>> out = datscore.compute(predictions=["The cat sits on the carpet."],
    ...                        references=["The cat is sitting on the mat."],
    ...                        sources=["Le chat est assis sur le tapis."], source_lang="fr")  # doctest: +SKIP
    >>> out["score"] < 0  # doctest: +SKIP
    True
"""

_CONFIGS = {
    "default": {},
    "reference": {"directions": "reference"},
    "bartscore": {"directions": "bartscore"},
}
_WITH_SOURCES = {"default"}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DATScore(evaluate.Metric):
    def _info(self):
        return support.metric_info(description=_DESCRIPTION, citation=_CITATION,
                                   inputs_description=_KWARGS_DESCRIPTION,
                                   features=support.features(sources=self.config_name in _WITH_SOURCES),
                                   reference_urls=["https://arxiv.org/abs/2210.06576"])

    def _compute(self, predictions, references=None, sources=None, **options):
        return support.compute("datscore", predictions, references, sources,
                               config_options=_CONFIGS.get(self.config_name, {}), **options)

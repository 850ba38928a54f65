"""DATScore as a Hugging Face ``evaluate`` metric: a thin wrapper over ``nlgmetrics.datscore``."""
import evaluate

from nlgmetrics.datscore.config import PRESETS
from nlgmetrics.integrations import evaluate as support

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


_KWARGS_DESCRIPTION = support.kwargs_description("datscore", configs=PRESETS, inputs="""\
    predictions (list of str): hypotheses (in target_lang).
    references (list of str): one reference per hypothesis (in target_lang).
    sources (list of str): the sources (in source_lang); the "default" configuration takes
        them, "reference" and "bartscore" do not.
""", returns="""\
    score (float): mean of the segment scores; scores (list of float): DATScore per segment
        (weighted mean log-probability, <= 0); signature (str): reproducibility string.
    details, corpus: with return_details=True (direction scores, direction weights).
""", examples="""\
    >>> import evaluate, nlgmetrics
    >>> datscore = evaluate.load(nlgmetrics.metric_path("datscore"))
    >>> out = datscore.compute(predictions=["The cat sits on the carpet.", "It rains since the morning.",
    ...                                     "We won the game yesterday evening."],
    ...                        references=["The cat is sitting on the mat.", "It has been raining since this morning.",
    ...                                    "We lost the match last night."],
    ...                        sources=["Le chat est assis sur le tapis.", "Il pleut depuis ce matin.",
    ...                                 "Nous avons perdu le match hier soir."],
    ...                        source_lang="fr", target_lang="en")  # model: a hub id or a local directory
    >>> len(out["scores"]), all(s <= 0 for s in out["scores"])
    (3, True)
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DATScore(support.Metric):
    metric_name = "datscore"
    CONFIGS = PRESETS
    DESCRIPTION, CITATION, KWARGS_DESCRIPTION = _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION
    REFERENCE_URLS = ("https://arxiv.org/abs/2210.06576",)

    def _features(self, preset):
        return support.features(sources="directions" not in preset)

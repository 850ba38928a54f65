"""TextEval as a Hugging Face ``evaluate`` metric: a thin wrapper over ``nlgmetrics.texteval``."""
import datasets  # noqa: F401
import evaluate

from nlgmetrics import evaluate_support as support

_CITATION = """\
@inproceedings{brew-thompson-1994-automatic,
    title = "Automatic Evaluation of Computer Generated Text: A Progress Report on the {T}ext{E}val Project",
    author = "Brew, Chris and Thompson, Henry S.",
    booktitle = "Human Language Technology: Proceedings of a Workshop held at Plainsboro, New Jersey, March 8-11, 1994",
    year = "1994",
    url = "https://aclanthology.org/H94-1020",
    pages = "108--113",
}
"""

_DESCRIPTION = """\
TextEval (Brew and Thompson, 1994) rates a translation by how much it resembles the other
translations of the same source (its standard set): good translations are expected to resemble
each other more than bad ones. Each text is a multinomial over words, part-of-speech tags or
ambiguity classes; two texts are compared by Dunning's log-likelihood ratio G2 (or the -ln p of
it, as the paper reports). The direct approach scores a text by its distance from the composite of its
standard set (score = -distance, higher is better); the scaling approach places the set on one
dimension by classical multidimensional scaling and scores the text by its coordinate, oriented
toward the consensus.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): the texts to rate.
    references (list of list of str): for each prediction, its standard set (other translations
        of the same source; the prediction itself is not among them). Rows may share one set;
        its work is then done once.
    model (str): "tags" (default), "words" or "classes" (ambiguity classes).
    approach (str): "direct" (default) or "scaling".
    distance (str): "g2" (default, Dunning's log-likelihood ratio) or "neg_log_p" (-ln p of G2
        under chi-square with k-1 df, as the paper reports; degenerate for long word-count texts).
    ngram (int): 1 (default) or higher for n-gram multinomials of the features.
    corpus (str): "document" (default: the predictions as one text against the references
        concatenated slot by slot) or "mean" (mean of the segment scores).
    return_details (bool): also return per-segment details and corpus information.
Returns:
    score (float): corpus score (higher = closer to the standard set).
    scores (list of float): per-segment scores (-distance, or oriented MDS coordinate).
    signature (str): reproducibility string.
Examples:
    >>> import evaluate
    >>> texteval = evaluate.load("metrics/texteval", "words")  # doctest: +SKIP
    >>> out = texteval.compute(predictions=["the cat sat on the mat"],
    ...                        references=[["the cat sat on a mat", "a cat was on the mat"]])  # doctest: +SKIP
    >>> round(out["scores"][0], 4)  # doctest: +SKIP
    -3.1395
"""

_CONFIGS = {
    "default": {},
    "tags": {"model": "tags"},
    "words": {"model": "words"},
    "classes": {"model": "classes"},
    "scaling": {"approach": "scaling"},
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TextEval(evaluate.Metric):
    def _info(self):
        return support.metric_info(description=_DESCRIPTION, citation=_CITATION,
                                   inputs_description=_KWARGS_DESCRIPTION,
                                   features=support.features(multi_reference=True),
                                   reference_urls=["https://aclanthology.org/H94-1020"])

    def _compute(self, predictions, references=None, sources=None, **options):
        return support.compute("texteval", predictions, references, sources,
                               config_options=_CONFIGS.get(self.config_name, {}), **options)

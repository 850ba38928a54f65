"""TextEval as a Hugging Face ``evaluate`` metric: a thin wrapper over ``nlgmetrics.texteval``."""
import evaluate

from nlgmetrics.integrations import evaluate as support
from nlgmetrics.texteval.config import PRESETS

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


_KWARGS_DESCRIPTION = support.kwargs_description("texteval", configs=PRESETS, inputs="""\
    predictions (list of str): the texts to rate.
    references (list of list of str): for each prediction, its standard set (other translations
        of the same source; the prediction itself is not among them). Rows may share one set;
        its work is then done once.
""", returns="""\
    score (float): corpus score (higher = closer to the standard set); scores (list of float):
        per-segment scores (-distance, or oriented MDS coordinate); signature (str).
    details, corpus: with return_details=True.
""", examples="""\
    >>> import evaluate, nlgmetrics
    >>> texteval = evaluate.load(nlgmetrics.metric_path("texteval"), "words")
    >>> out = texteval.compute(predictions=["the cat sat on the mat"],
    ...                        references=[["the cat sat on a mat", "a cat was on the mat"]])
    >>> round(out["scores"][0], 4)
    -3.1395
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TextEval(support.Metric):
    metric_name = "texteval"
    CONFIGS = PRESETS
    DESCRIPTION, CITATION, KWARGS_DESCRIPTION = _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION
    REFERENCE_URLS = ("https://aclanthology.org/H94-1020",)

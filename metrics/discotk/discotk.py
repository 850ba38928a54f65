"""DiscoTK as a Hugging Face ``evaluate`` metric: a thin wrapper over ``nlgmetrics.discotk``."""
import evaluate

from nlgmetrics.discotk.config import PRESETS
from nlgmetrics.integrations import evaluate as support

_CITATION = """\
@inproceedings{joty-etal-2014-discotk,
    title = "{D}isco{TK}: Using Discourse Structure for Machine Translation Evaluation",
    author = "Joty, Shafiq and Guzm{\\'a}n, Francisco and M{\\`a}rquez, Llu{\\'i}s and Nakov, Preslav",
    booktitle = "Proceedings of the Ninth Workshop on Statistical Machine Translation",
    year = "2014",
    address = "Baltimore, Maryland, USA",
    url = "https://aclanthology.org/W14-3352",
    pages = "402--408",
}
"""

_DESCRIPTION = """\
DiscoTK (Joty et al., 2014) compares the RST discourse tree of a translation with that of its
reference by subset-tree kernels (decay lambda 0.4, normalised) over five tree representations
(DR-nolex, DR-lex1, DR-lex2, DR-lex1.1, DR-lex1.2). DiscoTK-light averages the five kernel
scores after per-test-set normalisation; DiscoTK-party adds the members of Asiya's ULC that
have a resource here (TER, METEOR with WordNet synonyms, head-word-chain matching over POS
categories and dependency relations, dependency overlap) plus, by default, chrF, sentence BLEU
and MiniLM BERTScore, and combines them with non-negative weights tuned by pairwise logistic
regression on same-source WMT21 human judgements (or uniformly). Discourse trees come from
the project's offline heuristic RST-style parser (an approximation of the paper's CODRA
parser), or from the inputs themselves when they are bracketed RST trees.
"""


_KWARGS_DESCRIPTION = support.kwargs_description("discotk", configs=PRESETS, inputs="""\
    predictions (list of str): hypotheses (plain text, or bracketed RST trees such as
        "(Elaboration[N][S] _!first unit!_ _!second unit!_)").
    references (list of str): one reference per prediction, in the same format.
""", returns="""\
    score (float): corpus score (mean of the segment scores); scores (list of float):
        per-segment scores in [0, 1] (higher is better; the default party's tuned scores lie in
        about [0.26, 0.62]); signature (str): reproducibility string.
    details, corpus: with return_details=True (per-segment features, corpus information).
""", examples="""\
    >>> import evaluate, nlgmetrics
    >>> predictions = ["If it rains, we stay home.", "We stay home."]
    >>> references = ["If it rains, we stay home.", "If it rains, we stay home."]
    >>> party = evaluate.load(nlgmetrics.metric_path("discotk"))  # party: tuned, a ranking in about [0.26, 0.62]
    >>> [round(s, 3) for s in party.compute(predictions=predictions, references=references)["scores"]]
    [0.613, 0.458]
    >>> light = evaluate.load(nlgmetrics.metric_path("discotk"), "light")  # score a whole test set at once
    >>> [round(s, 3) for s in light.compute(predictions=predictions, references=references)["scores"]]
    [1.0, 0.17]
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DiscoTK(support.Metric):
    metric_name = "discotk"
    CONFIGS = PRESETS
    DESCRIPTION, CITATION, KWARGS_DESCRIPTION = _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION
    REFERENCE_URLS = ("https://aclanthology.org/W14-3352",)

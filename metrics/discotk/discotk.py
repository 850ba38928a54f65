"""DiscoTK as a Hugging Face ``evaluate`` metric: a thin wrapper over ``nlgmetrics.discotk``."""
import datasets  # noqa: F401
import evaluate

from nlgmetrics import evaluate_support as support

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
categories and dependency relations, dependency overlap) and combines them with weights tuned
by pairwise logistic regression on human judgements (or uniformly). Discourse trees come from
the project's offline heuristic RST-style parser (an approximation of the paper's CODRA
parser), or from the inputs themselves when they are bracketed RST trees.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): hypotheses (plain text, or bracketed RST trees such as
        "(Elaboration[N][S] _!first unit!_ _!second unit!_)").
    references (list of str): one reference per prediction, in the same format.
    variant (str): "party" (default) or "light".
    weights: None (the variant's default: uniform for light, shipped tuned weights for party),
        "uniform", "tuned", a path to a weights JSON, or a mapping {feature: weight, "bias": b}.
    decay (float): the kernel's lambda, default 0.4.
    normalization (str): "per-test-set" (default, Asiya's s/max rule, for uniform weights) or "none".
    lexical_layer (str): "flat" (default, the paper's words under the EDU) or "chain".
    input_format (str): "auto" (default), "text" or "rst".
    return_details (bool): also return per-segment features and corpus information.
Returns:
    score (float): corpus score (mean of the segment scores).
    scores (list of float): per-segment scores in [0, 1] (higher is better).
    signature (str): reproducibility string.
Examples:
    >>> import evaluate
    >>> discotk = evaluate.load("metrics/discotk", "light")  # doctest: +SKIP
    >>> out = discotk.compute(predictions=["If it rains, we stay home."],
    ...                       references=["If it rains, we stay home."])  # doctest: +SKIP
    >>> out["scores"]  # doctest: +SKIP
    [1.0]
"""

_CONFIGS = {
    "default": {},
    "light": {"variant": "light"},
    "party": {"variant": "party"},
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DiscoTK(evaluate.Metric):
    def _info(self):
        return support.metric_info(description=_DESCRIPTION, citation=_CITATION,
                                   inputs_description=_KWARGS_DESCRIPTION,
                                   features=support.features(),
                                   reference_urls=["https://aclanthology.org/W14-3352"])

    def _compute(self, predictions, references=None, sources=None, **options):
        return support.compute("discotk", predictions, references, sources,
                               config_options=_CONFIGS.get(self.config_name, {}), **options)

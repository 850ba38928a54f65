"""RoMe as a Hugging Face evaluate metric; the scoring lives in nlgmetrics.rome."""
import evaluate

from nlgmetrics.integrations import evaluate as support
from nlgmetrics.rome.config import PRESETS

_CITATION = """\
@inproceedings{rony-etal-2022-rome,
    title = "{R}o{M}e: A Robust Metric for Evaluating Natural Language Generation",
    author = "Rony, Md Rashad Al Hasan and Kovriguina, Liubov and Chaudhuri, Debanjan and Usbeck, Ricardo and Lehmann, Jens",
    booktitle = "Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
    year = "2022",
    address = "Dublin, Ireland",
    url = "https://aclanthology.org/2022.acl-long.387",
    pages = "5645--5657",
}
"""

_DESCRIPTION = """\
RoMe (Rony et al., ACL 2022) scores a generated sentence against a reference with a small
feed-forward network over three features, each available on its own: F_EMD, an earth mover's
similarity of contextual word vectors with position-aware hard word alignment (cosine > 0.60,
one-to-one) and a soft position penalty; F_TED, a tree edit distance between the lemmatised
dependency trees in which two words are equal when their vectors' cosine is >= 0.65 (a
distance in [0, 1]); and F_grammar, the probability that the hypothesis is grammatically
acceptable from a CoLA classifier. The final score sigmoid(NN(F_grammar, F_TED, F_EMD)) is in
[0, 1]. Profiles: "paper" (albert-large-v2, textattack/bert-base-uncased-CoLA, stanza when
installed; needs the hub) and "lite" (all-MiniLM-L6-v2, the project's CoLA head, spaCy;
offline). With several references per prediction the best one counts.
"""


_KWARGS_DESCRIPTION = support.kwargs_description("rome", configs=PRESETS, inputs="""\
    predictions (list of str): generated sentences.
    references (list of str, or list of list of str): one or several references each (the
        best one counts).
""", returns="""\
    score (float): mean of the segment scores; scores (list of float): per segment, in [0, 1]
        (component "ted": a distance, lower is better); signature (str): profile, models,
        parser, thresholds and version.
    details, corpus: with return_details=True (per-segment f_emd, f_ted, f_grammar).
""", examples="""\
    >>> import evaluate, nlgmetrics
    >>> rome = evaluate.load(nlgmetrics.metric_path("rome"), "lite")  # offline models
    >>> out = rome.compute(predictions=["the cat sat on the mat", "a dog barked"],
    ...                    references=["the cat sat on the mat", "the cat sat on the mat"])
    >>> [round(s, 2) for s in out["scores"]]
    [0.98, 0.03]
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RoMe(support.Metric):
    metric_name = "rome"
    CONFIGS = PRESETS
    DESCRIPTION, CITATION, KWARGS_DESCRIPTION = _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION
    REFERENCE_URLS = ("https://aclanthology.org/2022.acl-long.387",)

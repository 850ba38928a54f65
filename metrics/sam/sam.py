"""SAM (sentiment-aware adjustment) as a Hugging Face evaluate metric; the scoring lives in
nlgmetrics.sam."""
import evaluate

from nlgmetrics.integrations import evaluate as support
from nlgmetrics.sam.config import PRESETS

_CITATION = """\
@inproceedings{saadany-etal-2021-sentiment,
    title = "Sentiment-Aware Measure ({SAM}) for Evaluating Sentiment Transfer by Machine Translation Systems",
    author = "Saadany, Hadeel and Orasan, Constantin and Mohamed, Emad and Tantavy, Ashraf",
    booktitle = "Proceedings of the International Conference on Recent Advances in Natural Language Processing (RANLP 2021)",
    year = "2021",
    pages = "1217--1226",
}
@inproceedings{baccianella-etal-2010-sentiwordnet,
    title = "{S}enti{W}ord{N}et 3.0: An Enhanced Lexical Resource for Sentiment Analysis and Opinion Mining",
    author = "Baccianella, Stefano and Esuli, Andrea and Sebastiani, Fabrizio",
    booktitle = "Proceedings of LREC 2010",
    year = "2010",
}
"""

_DESCRIPTION = """\
SAM shrinks any hypothesis-reference metric score C_hr by the sentiment distance of the words
the two texts do not share: p = |S_h - S_r| / 2, where S_h and S_r are the |s|-weighted means of
the prior polarities s of the unmatched words (METEOR-style alignment by default, the paper's
lemma#pos matching with matching="lemma"), and SAM = C_hr * (1 - p). The base metric is sentence
BLEU, chrF, METEOR (default), BERTScore, or scores you pass in (any scale: base_range). The score
keeps the base metric's scale (BLEU/chrF 0-100, METEOR/BERTScore 0-1). The default lexicon,
sentivader, joins VADER's emotion and social-media valences (MIT) to a SentiWordNet 3.0 prior
(CC BY-SA 3.0); lexicon="sentiwordnet" is the paper-like prior, and a SentiWords 1.1 file can be
passed as lexicon="path".
"""


_KWARGS_DESCRIPTION = support.kwargs_description("sam", configs=PRESETS, inputs="""\
    predictions (list of str): hypotheses (machine translations).
    references (list of str): one reference per hypothesis.
""", returns="""\
    score (float): mean SAM-adjusted score; scores (list of float): per segment, on the base
        metric's scale; signature (str): base metric, models, lexicon and tagger.
    details, corpus: with return_details=True (base, p, p_raw, s_h, s_r, mismatched words with their
        polarities).
    Passing base_scores in any configuration means base="given" (unless base is given too).
""", examples="""\
    >>> import evaluate, nlgmetrics
    >>> sam = evaluate.load(nlgmetrics.metric_path("sam"))  # METEOR base
    >>> out = sam.compute(predictions=["What is this amount of anger, I don't understand!"],
    ...                   references=["What is this amount of happiness, I don't understand!"])
    >>> round(out["score"], 4)
    0.3056
    >>> given = evaluate.load(nlgmetrics.metric_path("sam"), "given")  # your own base scores
    >>> out = given.compute(predictions=["What is this amount of anger, I don't understand!"],
    ...                     references=["What is this amount of happiness, I don't understand!"],
    ...                     base_scores=[0.85], lexicon={"anger#n": -0.669, "happiness#n": 0.856})
    >>> round(out["score"], 2)
    0.2
    >>> sam.compute(predictions="the cat sat", references="the cat sat")
    Traceback (most recent call last):
    ...
    ValueError: predictions must be a list of strings, not a single str; wrap it in [...]
    >>> evaluate.load(nlgmetrics.metric_path("sam"), "bertscore-lit")
    Traceback (most recent call last):
    ...
    ValueError: unknown configuration 'bertscore-lit' for sam; the configurations are: default, meteor, bleu, chrf, bertscore, bertscore-lite, given
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SAM(support.Metric):
    metric_name = "sam"
    CONFIGS = PRESETS
    DESCRIPTION, CITATION, KWARGS_DESCRIPTION = _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION
    REFERENCE_URLS = ("https://aclanthology.org/2021.ranlp-1.137/",)

    def _features(self, preset):
        return support.features(extras=["base_scores"] if preset.get("base") == "given" else [])

"""SAM (sentiment-aware adjustment) as a Hugging Face evaluate metric; the scoring lives in
nlgmetrics.sam."""
import datasets
import evaluate

from nlgmetrics import evaluate_support as support

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
the prior polarities s of the unmatched lemma#pos items, and SAM = C_hr * (1 - p). The base
metric is sentence BLEU, chrF, METEOR (default), BERTScore, or scores you pass in. The score keeps
the base metric's scale (BLEU/chrF 0-100, METEOR/BERTScore 0-1). The default lexicon is derived
from SentiWordNet 3.0 (CC BY-SA 3.0); a SentiWords 1.1 file can be passed as lexicon="path".
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): hypotheses (machine translations).
    references (list of str): one reference per hypothesis.
    base_scores (list of float, optional): your own C_hr per segment (the "given" config, or
        any config: passing them means base="given").
    base (str): "meteor" (default), "bleu", "chrf", "bertscore" or "given".
    profile (str): "paper" (BERTScore with roberta-large, layer 17) or "lite" (MiniLM, offline).
    lexicon (str or dict): "sentiwordnet" (embedded), a SentiWords 1.1 file path, or
        {"lemma#pos": score}.
    matching (str): "lemma" (lemma#pos multiset, default) or "meteor" (exact, stem, synonym).
    multiword (bool): treat adjacent words forming a multiword lexicon entry as one item.
    return_details (bool): add per-segment details (base, p, s_h, s_r, mismatched words with
        their polarities) and corpus information.
Returns:
    score (float): mean SAM-adjusted score; scores (list of float): per segment;
    signature (str): base metric, models, lexicon and tagger.
Examples:
    >>> sam = evaluate.load("metrics/sam", "given")  # doctest: +SKIP
    >>> out = sam.compute(predictions=["What is this amount of anger, I don't understand!"],
    ...                   references=["What is this amount of happiness, I don't understand!"],
    ...                   base_scores=[0.85], lexicon={"anger#n": -0.669, "happiness#n": 0.856})  # doctest: +SKIP
    >>> round(out["score"], 2)  # doctest: +SKIP
    0.2
"""

_CONFIGS = {
    "default": {},
    "meteor": {"base": "meteor"},
    "bleu": {"base": "bleu"},
    "chrf": {"base": "chrf"},
    "bertscore": {"base": "bertscore"},
    "bertscore-lite": {"base": "bertscore", "profile": "lite"},
    "given": {"base": "given"},
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class SAM(evaluate.Metric):
    def _info(self):
        features = support.features()
        if self.config_name == "given":
            features["base_scores"] = datasets.Value("float64")
        return support.metric_info(description=_DESCRIPTION, citation=_CITATION,
                                   inputs_description=_KWARGS_DESCRIPTION, features=features,
                                   reference_urls=["https://aclanthology.org/2021.ranlp-1.137/"])

    def _compute(self, predictions, references, base_scores=None, return_details=False, **options):
        config = dict(_CONFIGS.get(self.config_name, {}))
        score_kwargs = None
        if base_scores is not None:
            config["base"] = "given"
            score_kwargs = {"base_scores": list(base_scores)}
        return support.compute("sam", predictions, references, config_options=config,
                               return_details=return_details, score_kwargs=score_kwargs, **options)

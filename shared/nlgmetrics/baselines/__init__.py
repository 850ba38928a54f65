"""Baselines the metrics task ranks beside the five metrics, each by its own name (``bleu``,
``chrf``, ``bertscore``) wherever a metric name is taken: BLEU and chrF as sacrebleu computes
them (segment: sentence score; system: the corpus score over summed statistics) and BERTScore
F1 as bert_score does (system: the mean), from the implementations SAM's bases use
(:mod:`nlgmetrics.core.lexical`, :mod:`nlgmetrics.core.embeddings`). They have no evaluate
module or Space of their own: evaluate and bert_score ship theirs."""

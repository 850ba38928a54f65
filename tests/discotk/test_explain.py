"""discotk.explain.segment_view: the scorer's own trees and the segment's recorded features."""
import nlgmetrics
from nlgmetrics.discotk import REPRESENTATIONS
from nlgmetrics.discotk.explain import segment_view


def test_segment_view_is_the_scored_analysis():
    hyp, ref = "The cat sat because it was tired.", "The cat sat down since it was tired."
    scorer = nlgmetrics.load("discotk", variant="party", quiet=True)
    result = scorer.score([hyp], [ref])
    view = segment_view(scorer, hyp, ref, result.details[0])
    assert set(view.kernels) == set(REPRESENTATIONS)
    assert view.kernels == {k: result.details[0]["features"][k] for k in REPRESENTATIONS}
    assert view.party and view.hypothesis_tree is scorer.analyze([hyp])[0].tree

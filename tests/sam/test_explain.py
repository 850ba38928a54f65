"""sam.explain.item_spans places the scorer's own unmatched items in the texts."""
import nlgmetrics
from nlgmetrics.sam.explain import item_spans


def test_item_spans_are_the_recorded_mismatches():
    hyp, ref = "What is this amount of anger, I don't understand!", "What is this amount of happiness, I don't understand!"
    detail = nlgmetrics.score("sam", [hyp], [ref], base="chrf").details[0]
    spans = item_spans(hyp, detail["mismatches"]["hypothesis"])
    assert [hyp[a:b] for a, b, _ in spans] == ["anger"]
    assert [ref[a:b] for a, b, _ in item_spans(ref, detail["mismatches"]["reference"])] == ["happiness"]


def test_multiword_items_and_repeats():
    text = "I love ice  cream and ice cream"
    spans = item_spans(text, [{"word": "ice cream"}, {"word": "ice cream"}, {"word": "absent"}])
    assert [(a, b) for a, b, _ in spans] == [(7, 17), (22, 31)]

"""datscore.explain reads the direction weights and per-segment directions from the result."""
import nlgmetrics
from nlgmetrics.datscore.explain import direction_weights, segment_directions


def test_directions_are_the_results(tiny_m2m100):
    result = nlgmetrics.score("datscore", ["le chat", "un chien"], ["le chat", "le chien"], ["the cat", "a dog"],
                              model=str(tiny_m2m100), source_lang="en", target_lang="fr", return_translations=True)
    weights = direction_weights(result)
    assert set(weights) == set(result.corpus["direction_weights"])
    segments = segment_directions(result)
    assert [s.directions for s in segments] == [d["directions"] for d in result.details]
    assert all(set(s.translations) <= {"trans1", "trans2"} and s.translations for s in segments)

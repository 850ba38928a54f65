"""SAM's rule "passing base_scores means base='given'" lives in the scorer
(``SAM.call_options``) and every surface resolves a call through the core's one front door
(``nlgmetrics.core.call.resolve``): ``score``, ``compare``, ``meta_eval``, the evaluate module
and the command line give the same result."""
import json

import pytest

import nlgmetrics
from nlgmetrics import cli

HYPS = ["What is this amount of anger, I don't understand!", "the cat sat on the mat"]
REFS = ["What is this amount of happiness, I don't understand!", "the cat sat on the mat"]
BASES = [0.85, 0.5]


def test_python_evaluate_and_cli_agree(tmp_path, capsys):
    evaluate = pytest.importorskip("evaluate")
    python = nlgmetrics.score("sam", HYPS, REFS, base_scores=BASES)
    assert "base:given" in python.signature
    module = evaluate.load(nlgmetrics.metric_path("sam"))  # the default configuration: METEOR
    from_module = module.compute(predictions=HYPS, references=REFS, base_scores=BASES)
    hyp, ref, base = tmp_path / "hyp.txt", tmp_path / "ref.txt", tmp_path / "base.txt"
    hyp.write_text("\n".join(HYPS) + "\n")
    ref.write_text("\n".join(REFS) + "\n")
    base.write_text("\n".join(map(str, BASES)) + "\n")
    capsys.readouterr()
    assert cli.main(["score", "sam", "-p", str(hyp), "-r", str(ref), "--base-scores", str(base),
                     "--json", "--quiet"]) == 0
    from_cli = json.loads(capsys.readouterr().out)
    assert python.scores == from_module["scores"] == from_cli["scores"]
    assert python.signature == from_module["signature"] == from_cli["signature"]
    assert python.scores[1] == pytest.approx(0.5)  # identical texts: the given base unchanged
    assert python.scores[0] < 0.85  # the sentiment flip shrinks the given base
    # compare: one per-segment list per system (the second system the same as the first)
    comparison = nlgmetrics.compare("sam", [HYPS, HYPS], REFS, base_scores=[BASES, BASES], resamples=10, trials=10)
    assert comparison.systems[0].score == pytest.approx(python.score) and comparison.systems[1].diff == 0
    meta = nlgmetrics.meta_eval("sam", HYPS, REFS, human=[0.1, 0.9], base_scores=BASES, bootstrap=0)
    assert meta["signature"] == python.signature


def test_an_explicit_base_still_refuses_base_scores():
    with pytest.raises(ValueError, match="is for base='given' only"):
        nlgmetrics.score("sam", HYPS, REFS, base="chrf", base_scores=BASES)
    assert nlgmetrics.scorer_class("sam").call_options({"base": "bleu"}, ["base_scores"]) == {"base": "bleu"}
    assert nlgmetrics.scorer_class("rome").call_options({"profile": "lite"}, []) == {"profile": "lite"}


def test_an_option_a_surface_always_sends_is_dropped_only_where_unused():
    """The resolver's ``sent_always`` rule, used by the Space (its form always sends profile):
    SAM's profile with base chrF (no model) is dropped; with BERTScore it is kept; a caller who
    names it for chrF is refused; the Space's settings pool gives the resolver's answer."""
    from nlgmetrics.core.call import resolve
    from nlgmetrics.space.runtime import Runtime
    from nlgmetrics.space.settings import ScorerPool

    cls = nlgmetrics.scorer_class("sam")
    chrf = resolve(cls, {"base": "chrf", "profile": "lite"}, sent_always=("profile",))
    assert chrf.dropped == ("profile",) and chrf.config.base == "chrf"
    bert = resolve(cls, {"base": "bertscore", "profile": "lite"}, sent_always=("profile",))
    assert bert.dropped == () and bert.config.profile == "lite"
    with pytest.raises(ValueError, match="changes nothing for base='chrf'"):
        resolve(cls, {"base": "chrf", "profile": "lite"})
    with pytest.raises(ValueError, match="unknown option 'colour'"):  # the rest is still checked
        resolve(cls, {"colour": "red", "profile": "lite"}, sent_always=("profile",))
    pool, runtime = ScorerPool("sam"), Runtime("cpu", "fp32", False)
    chrf_call = pool.resolve({"base": "chrf", "profile": "lite"}, {}, runtime)
    assert chrf_call.dropped == ("profile",) and chrf_call.config.base == "chrf"
    bert_call = pool.resolve({"base": "bertscore", "profile": "lite"}, {}, runtime)
    assert bert_call.dropped == () and bert_call.config.profile == "lite"
    # the profile put back on the configuration built without it: the same as built whole
    assert bert_call.config == cls.Config.from_options(base="bertscore", profile="lite", device="cpu")


def test_compare_takes_base_scores_keyed_like_the_predictions():
    """With predictions keyed by system, base_scores keyed the same way (any order) give what
    the list in the systems' order gives; keys that are not the systems' are refused."""
    other = ["What is this amount of joy, I don't understand!", "the cat sat on a mat"]
    keyed = nlgmetrics.compare("sam", {"A": HYPS, "B": other}, REFS, base_scores={"B": [0.5, 0.6], "A": BASES},
                               resamples=10, trials=10)
    listed = nlgmetrics.compare("sam", {"A": HYPS, "B": other}, REFS, base_scores=[BASES, [0.5, 0.6]],
                                resamples=10, trials=10)
    assert [s.score for s in keyed.systems] == [s.score for s in listed.systems]
    assert keyed.systems[0].score == pytest.approx(nlgmetrics.score("sam", HYPS, REFS, base_scores=BASES).score)
    with pytest.raises(ValueError, match="base_scores must be keyed like predictions: one per-segment list for each "
                                         "of A, B; got keys A, C"):
        nlgmetrics.compare("sam", {"A": HYPS, "B": other}, REFS, base_scores={"A": BASES, "C": BASES})

"""Unicode at the one input step (issue 37), through every metric that runs offline here:
NFC and NFD inputs score the same, a copy with invisible format characters (zero-width
joiners and spaces, direction marks, soft hyphens, BOMs) or no-break spaces inserted scores
as the copy, the probe ``"Zoë visited Zürich and Málaga."`` against its NFD form scores what
the copy scores (the metric's top where it has one), and shuffling the segments gives each
segment the same score. Cheap metrics run hypothesis (a small, derandomised profile); the
model metrics (RoMe lite with MiniLM, DATScore on the tiny random M2M-100) a few fixed cases.
"""
from __future__ import annotations

import random
import unicodedata
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nlgmetrics
from nlgmetrics.core.inputs import INVISIBLE_FORMAT, NO_BREAK_SPACES, normalize_text

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PROFILE = settings(max_examples=5, deadline=None, derandomize=True, database=None,
                   suppress_health_check=list(HealthCheck), print_blob=True)

PROBE = "Zoë visited Zürich and Málaga."

#: words whose NFC and NFD forms differ (Latin, Greek, Vietnamese, Hangul), and plain ones
WORDS = ("Zoë Zürich Málaga café naïve façade Ångström São Paulo Dvořák résumé Việt Nam crème brûlée niño "
         "Ελλάδα ἀλήθεια 한국어 the cat visited and sat on a mat in rain").split()
TEXT = st.lists(st.sampled_from(WORDS), min_size=2, max_size=7).map(" ".join)
#: what a copy may get inserted without changing its score
MARKS = sorted(set(INVISIBLE_FORMAT))
#: TextEval rates a prediction against a set of references: the extra ones of every segment
TEXTEVAL_EXTRA = ["Zoë went to Zürich and then to Málaga.", "In Málaga the café was crème brûlée."]

#: id -> (metric, options, the score of a copy: a number, or None where there is no fixed top)
CHEAP: Dict[str, Tuple[str, Dict[str, Any], Optional[float]]] = {
    "sam-bleu": ("sam", {"base": "bleu"}, 100.0),
    "sam-chrf": ("sam", {"base": "chrf"}, 100.0),
    "sam-meteor": ("sam", {"base": "meteor"}, None),  # METEOR's fragmentation penalty: below 1
    "discotk-light": ("discotk", {"variant": "light"}, 1.0),
    # a copy of one of three references: no fixed top (0 only against one reference, where
    # every prediction scores 0)
    "texteval": ("texteval", {"features": "tags"}, None),
}
MODEL: Dict[str, Tuple[str, Dict[str, Any], Optional[float]]] = {
    "rome-lite": ("rome", {"profile": "lite"}, None),  # the copy's grammaticality counts too
    "datscore-tiny": ("datscore", {}, None),  # log-probabilities: unbounded
}
ALL = {**CHEAP, **MODEL}


@pytest.fixture(scope="module")
def scorers(request):
    """Scorers by configuration id, loaded on first use (``nlgmetrics.load`` shares them)."""
    built: Dict[str, Any] = {}

    def get(key: str) -> Any:
        if key not in built:
            name, options, _ = ALL[key]
            if name == "datscore":
                # a random model translates to its cap: keep it small (as test_properties)
                options = {"model": request.getfixturevalue("tiny_m2m100"), "source_lang": "fr",
                           "target_lang": "en", "beam_size": 2, "max_new_tokens": 6, "device": "cpu"}
            built[key] = nlgmetrics.load(name, quiet=True, **options)
        return built[key]

    return get


def run(scorer: Any, predictions: List[str], references: List[str], form: Any = None, ref_form: Any = None) -> Any:
    """``scorer.score`` with every text of every field passed through ``form`` (a function of
    one text; None: as given), the references and sources through ``ref_form`` if given."""
    p = form or (lambda t: t)
    f = ref_form or p
    kwargs: Dict[str, Any] = {"predictions": [p(t) for t in predictions]}
    if scorer.name == "texteval":
        kwargs["references"] = [[f(r)] + [f(x) for x in TEXTEVAL_EXTRA] for r in references]
    else:
        kwargs["references"] = [f(r) for r in references]
    if scorer.sources_mode == "required":
        kwargs["sources"] = [f(r) for r in references]
    return scorer.score(**kwargs)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def with_marks(seed: int):
    """A function that inserts invisible marks into a text (and reads its spaces as no-break
    spaces), deterministically from ``seed``; every text gets at least one mark."""
    def insert(text: str) -> str:
        rnd = random.Random(f"{seed}:{text}")
        chars = [rnd.choice(NO_BREAK_SPACES) if c == " " and rnd.random() < 0.5 else c for c in text]
        for _ in range(rnd.randint(1, 4)):
            chars.insert(rnd.randint(0, len(chars)), rnd.choice(MARKS))
        return "".join(chars)
    return insert


def same(a: Any, b: Any) -> None:
    """Bit-identical per-segment and corpus scores."""
    assert a.scores == b.scores
    assert a.score == b.score or (a.score != a.score and b.score != b.score)


def test_marks_and_forms_used_here_change_the_text():
    """The transformations below really change the inputs (else the properties prove nothing)."""
    assert nfd(PROBE) != PROBE and len(nfd(PROBE)) == len(PROBE) + 3
    marked = with_marks(0)(PROBE)
    assert marked != PROBE and normalize_text(marked) == PROBE
    assert all(normalize_text(with_marks(s)(nfd(w))) == nfc(w) for s in range(5) for w in WORDS)


# -- the probe ----------------------------------------------------------------------------------
@pytest.mark.parametrize("key", list(ALL))
def test_probe_against_its_nfd_form_scores_the_copy(key, scorers):
    """Issue 37: RoMe scored the probe against its NFD form at the floor, DiscoTK-light 0.25,
    SAM-chrF 50.4, TextEval -23.9; SAM-BLEU gave a copy with RTL marks 3.35."""
    scorer = scorers(key)
    top = ALL[key][2]
    preds = [PROBE, nfd(PROBE), PROBE, with_marks(1)(PROBE), "\u200f" + PROBE.replace(" ", " \u200d") + "\ufeff",
             "the cat sat on the mat"]
    refs = [PROBE, PROBE, nfd(PROBE), nfd(with_marks(2)(PROBE)), PROBE, "a cat sat on a mat"]
    result = run(scorer, preds, refs)
    copy = result.scores[0]
    assert result.scores[1:5] == [copy] * 4, result.scores
    if top is not None:
        assert copy == pytest.approx(top, abs=1e-9)
    # each pair alone (no other segment in the call) scores the same
    assert run(scorer, [nfd(PROBE)], [PROBE]).scores == run(scorer, [PROBE], [PROBE]).scores


# -- properties on the cheap metrics ------------------------------------------------------------
PAIRS = st.integers(1, 3).flatmap(lambda n: st.tuples(st.lists(TEXT, min_size=n, max_size=n),
                                                      st.lists(TEXT, min_size=n, max_size=n)))


@pytest.mark.parametrize("key", list(CHEAP))
def test_nfc_and_nfd_inputs_score_the_same(key, scorers):
    scorer = scorers(key)

    @PROFILE
    @given(PAIRS)
    def check(pair):
        preds, refs = pair
        nfc_result = run(scorer, preds, refs, nfc)
        same(run(scorer, preds, refs, nfd), nfc_result)
        same(run(scorer, preds, refs, nfd, nfc), nfc_result)  # a mix: NFD predictions, NFC references

    check()


@pytest.mark.parametrize("key", list(CHEAP))
def test_a_copy_with_invisible_marks_scores_as_the_copy(key, scorers):
    scorer = scorers(key)
    top = CHEAP[key][2]

    @PROFILE
    @given(st.lists(TEXT, min_size=1, max_size=3), st.integers(0, 10**6))
    def check(texts, seed):
        clean = run(scorer, texts, texts)
        same(run(scorer, texts, texts, with_marks(seed), nfc), clean)
        # marks in the references too, and in both
        same(run(scorer, texts, texts, None, with_marks(seed + 1)), clean)
        same(run(scorer, texts, texts, with_marks(seed + 2)), clean)
        if top is not None:
            assert clean.scores == pytest.approx([top] * len(texts), abs=1e-9)

    check()


def _shuffled(scorer: Any, preds: List[str], refs: List[str], rnd: random.Random, base: Any = None) -> None:
    """Each segment's score is the same whatever the order of the segments (``base``: the
    result in the given order, if already scored)."""
    order = list(range(len(preds)))
    while len(order) > 1 and order == sorted(order):
        rnd.shuffle(order)
    base = base or run(scorer, preds, refs)
    perm = run(scorer, [preds[i] for i in order], [refs[i] for i in order])
    by_id = dict(zip(order, perm.scores))
    assert [by_id[i] for i in range(len(preds))] == pytest.approx(base.scores, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("key", list(CHEAP))
def test_shuffled_input_order_gives_each_segment_its_score(key, scorers):
    scorer = scorers(key)

    @PROFILE
    @given(st.integers(2, 5).flatmap(lambda n: st.tuples(st.lists(TEXT, min_size=n, max_size=n),
                                                         st.lists(TEXT, min_size=n, max_size=n))),
           st.randoms(use_true_random=False))
    def check(pair, rnd):
        _shuffled(scorer, *pair, rnd)

    check()


# -- the model metrics: fixed cases -------------------------------------------------------------
FIXED = (["Zoë visited Zürich and Málaga.", "the café in São Paulo", "한국어 Ελλάδα naïve"],
         ["Zoë went to Zürich.", "a café in São Paulo", "한국어 ἀλήθεια"])


@pytest.mark.parametrize("key", list(MODEL))
def test_model_metrics_nfd_marks_and_order(key, scorers):
    """One call for both forms (each a slow call): NFD predictions with marks inserted against
    references with marks, in NFD."""
    scorer = scorers(key)
    preds, refs = FIXED
    clean = run(scorer, preds, refs)
    same(run(scorer, preds, refs, lambda t: with_marks(0)(nfd(t)), lambda t: nfd(with_marks(1)(t))), clean)
    _shuffled(scorer, preds, refs, random.Random(0), clean)


# -- option values that are texts ---------------------------------------------------------------
def test_sam_lexicon_keys_are_normalised_as_the_texts():
    from nlgmetrics.sam.lexicon import load_lexicon, normalise_key

    assert normalise_key("cafe\u0301\u00a0au\u200b lait", "n") == "caf\u00e9_au_lait#n"
    lexicon = load_lexicon({"cafe\u0301#n": 0.5, "\u200dgood#a": 0.75})
    assert lexicon.get("caf\u00e9#n") == 0.5 and lexicon.get("good#a") == 0.75


def test_explanations_see_the_texts_as_scored(scorers):
    """RoMe's alignment map analyses the pair as scoring does (normalised)."""
    scorer = scorers("rome-lite")
    hyp, ref = scorer.pair_analysis(nfd(PROBE) + "\u200b", "\ufeff" + PROBE)
    plain_hyp, plain_ref = scorer.pair_analysis(PROBE, PROBE)
    assert hyp.words == plain_hyp.words == ref.words == plain_ref.words


def test_discotk_segment_view_sees_the_texts_as_scored(scorers):
    from nlgmetrics.discotk.explain import segment_view

    scorer = scorers("discotk-light")
    result = run(scorer, [PROBE], [PROBE])
    view = segment_view(scorer, nfd(PROBE) + "\u200f", PROBE, result.details[0])
    plain = segment_view(scorer, PROBE, PROBE, result.details[0])
    assert str(view.hypothesis_tree) == str(plain.hypothesis_tree) == str(view.reference_tree)

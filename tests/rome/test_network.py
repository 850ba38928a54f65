"""RoMe's scorer network: the shipped network is monotone (checked on a grid), a monotone file
with a negative weight is refused, and a configuration without a shipped network fits one on
its own features once and caches it (end to end on tiny random models)."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from nlgmetrics.core.resources import data_path
from nlgmetrics.rome import FEATURE_ORDER, RoMe, ScorerNetwork

GRID = np.linspace(0.0, 1.0, 11)


def _assert_monotone(net: ScorerNetwork) -> None:
    points = np.array(list(itertools.product(GRID, GRID, GRID)))  # (grammar, ted, emd)
    scores = net(points).reshape(len(GRID), len(GRID), len(GRID))
    assert ((scores >= 0.0) & (scores <= 1.0)).all()
    assert (np.diff(scores, axis=0) >= 0).all()  # non-decreasing in F_grammar
    assert (np.diff(scores, axis=1) <= 0).all()  # non-increasing in F_TED (a distance)
    assert (np.diff(scores, axis=2) >= 0).all()  # non-decreasing in F_EMD


def test_shipped_lite_network_is_monotone_on_a_grid():
    net = ScorerNetwork("rome_scorer_lite.json")
    assert net.kind == "monotone"
    _assert_monotone(net)
    # and it is not flat: the features move the score
    best, worst = net(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))
    assert best - worst > 0.5


def test_monotone_network_refuses_negative_weights(tmp_path):
    payload = json.loads(data_path("rome_scorer_lite.json").read_text())
    payload["layers"][1]["weight"][0][0] = -0.5
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(ValueError, match="non-negative"):
        ScorerNetwork(path)


def test_trained_network_is_monotone_whatever_the_labels():
    from training.rome_scorer import train_network

    rng = np.random.default_rng(1)
    x = rng.random((64, 3)).astype(np.float32)
    # labels that reward F_TED: a free network would learn to increase with it
    y = (x[:, 1] > 0.5).astype(np.float32)
    net = train_network(x, y)
    _assert_monotone(ScorerNetwork({"kind": "monotone", "layers": net.export()}))


# -- fitting on a configuration's own features ------------------------------------------------
def _words() -> list:
    facts = json.loads(data_path("rome_scorer_facts.json").read_text())
    text = json.dumps(facts["categories"]).lower()
    return sorted({w for w in "".join(c if c.isalnum() else " " for c in text).split()})


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """A random 1-layer BERT encoder and a random BERT CoLA classifier with a word vocabulary."""
    import torch
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        BertModel,
        BertTokenizerFast,
    )

    torch.manual_seed(0)
    root = tmp_path_factory.mktemp("tiny_rome")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + _words()
    out = {}
    for name, cls, extra in (("encoder", BertModel, {}),
                             ("cola", BertForSequenceClassification,
                              {"id2label": {0: "unacceptable", 1: "acceptable"},
                               "label2id": {"unacceptable": 0, "acceptable": 1}})):
        path = root / name
        path.mkdir()
        (path / "vocab.txt").write_text("\n".join(words) + "\n")
        BertTokenizerFast(vocab_file=str(path / "vocab.txt")).save_pretrained(path)
        config = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, max_position_embeddings=128, **extra)
        cls(config).save_pretrained(path)
        out[name] = str(path)
    return out


def test_paper_profile_fits_a_network_once_and_caches_it(tiny_models, tmp_path, monkeypatch):
    from nlgmetrics.rome import fit as fitting

    monkeypatch.setenv("NLGMETRICS_CACHE", str(tmp_path))
    monkeypatch.setattr(fitting, "FIT_PAIRS_PER_CLASS", 20)
    monkeypatch.setattr(fitting, "FIT_TEST_PAIRS_PER_CLASS", 5)
    options = dict(profile="paper", model=tiny_models["encoder"], grammar_model=tiny_models["cola"],
                   linguistic_backend="spacy", device="cpu", quiet=True)
    scorer = RoMe(**options)
    assert scorer.network_source == "fit"
    hyps, refs = ["Paris is the capital of France.", "France is the capital of Paris."], ["Paris is the capital of France."] * 2
    result = scorer.score(hyps, refs)
    files = list((tmp_path / "rome").glob("scorer-*.json"))
    assert len(files) == 1
    payload = json.loads(files[0].read_text())
    assert payload["kind"] == "monotone" and payload["training"]["pairs_per_class"] == 20
    assert "fit-" in result.signature and "rome_scorer_lite" not in result.signature
    # the score is the fitted network over the features
    feats = scorer.features(hyps, refs, final=False)
    expected = ScorerNetwork(files[0])(np.column_stack([feats[k] for k in FEATURE_ORDER]))
    assert result.scores == pytest.approx(expected.tolist(), abs=1e-12)

    # a second scorer with the same configuration loads the cached file instead of fitting
    def refuse(*args, **kwargs):
        raise AssertionError("fitted twice")

    monkeypatch.setattr(fitting, "fit_network", refuse)
    again = RoMe(**options)
    assert again.score(hyps, refs).scores == pytest.approx(result.scores, abs=1e-12)
    # another feature setting is another network
    other = RoMe(**options, delta_ted=0.5)
    with pytest.raises(AssertionError, match="fitted twice"):
        other.score(hyps, refs)


def test_two_threads_fit_the_network_once(tiny_models, tmp_path, monkeypatch):
    """Two threads of one process asking for the same fitted network: one fits, the other waits
    and loads its file (before, both fitted and raced to the same temporary file)."""
    import threading
    import time

    from nlgmetrics.rome import fit as fitting

    monkeypatch.setenv("NLGMETRICS_CACHE", str(tmp_path))
    monkeypatch.setattr(fitting, "FIT_PAIRS_PER_CLASS", 20)
    monkeypatch.setattr(fitting, "FIT_TEST_PAIRS_PER_CLASS", 5)
    real, calls = fitting.fit_network, []

    def slow_fit(*args, **kwargs):
        calls.append(threading.get_ident())
        time.sleep(0.5)  # a real fit takes minutes: wide enough for the other thread to arrive
        return real(*args, **kwargs)

    monkeypatch.setattr(fitting, "fit_network", slow_fit)
    options = dict(profile="paper", model=tiny_models["encoder"], grammar_model=tiny_models["cola"],
                   linguistic_backend="spacy", device="cpu", quiet=True)
    scorers = [RoMe(**options), RoMe(**options)]
    nets, errors = [None, None], []

    def run(k):
        try:
            nets[k] = scorers[k].network
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(calls) == 1
    x = np.random.default_rng(0).random((16, 3))
    assert nets[0](x).tolist() == nets[1](x).tolist()
    assert len(list((tmp_path / "rome").glob("scorer-*.json"))) == 1
    assert not list((tmp_path / "rome").glob("*.tmp"))


def test_shipped_profile_does_not_fit():
    from nlgmetrics.rome import RoMeConfig

    assert RoMeConfig(profile="lite").network_source() == "rome_scorer_lite.json"
    assert RoMeConfig(profile="lite", model="minilm").network_source() == "rome_scorer_lite.json"
    assert RoMeConfig(profile="paper").network_source() == "fit"
    assert RoMeConfig(profile="lite", scorer_weights="my.json", model="x").network_source() == "my.json"


def test_network_scores_a_row_the_same_in_any_batch():
    """Sharded runs equal single runs bit for bit only if a row's score does not depend on the
    rows beside it (a BLAS matmul rounds differently for different batch shapes). The shipped
    network on 257 random rows: each row alone, in every prefix batch size tried, and the whole
    batch give identical floats; and the values agree with a plain matmul to 1e-12."""
    net = ScorerNetwork("rome_scorer_lite.json")
    x = np.random.default_rng(3).random((257, 3))
    whole = net(x)
    alone = np.array([net(row[None, :])[0] for row in x])
    assert whole.tolist() == alone.tolist()
    for size in (1, 2, 7, 64, 100):
        assert net(x[:size]).tolist() == whole[:size].tolist()
    (w1, b1), (w2, b2), (w3, b3) = net.layers
    u = x.copy()
    u[:, 1] = 1 - u[:, 1]
    h = np.maximum(np.maximum(u @ w1.T + b1, 0) @ w2.T + b2, 0)
    np.testing.assert_allclose(whole, 1 / (1 + np.exp(-(h @ w3.T + b3)[:, 0])), rtol=0, atol=1e-12)

"""RoMe scorer network's ranking objective: same-reference triples from the training generator,
and a network trained on the pairwise loss alone stays monotone and learns the ranking."""
from __future__ import annotations

import itertools

import numpy as np
import torch


def test_triples_share_their_reference_and_cover_the_families():
    from training.rome_ranking import make_triples

    triples = make_triples()["test"]
    assert len(triples) == 500
    kinds = {t[4] for t in triples}
    assert {"role_reversal", "antonym", "entity_swap", "random_word"} <= kinds
    assert {t[2] for t in triples} <= {"identical", "paraphrase", "synonym"}
    for ref, pos, _, neg, _ in triples:
        assert neg != ref and pos != neg
    # role reversals of passive realisations are among the negatives
    assert any(t[4] == "role_reversal" and " by " in t[3] for t in triples)


def test_ranking_only_network_is_monotone_and_ranks():
    from training.rome_scorer import train_network

    from nlgmetrics.rome import ScorerNetwork

    rng = np.random.default_rng(2)
    pos = rng.random((128, 3)).astype(np.float32)
    neg = pos.copy()
    neg[:, 1] = np.minimum(1.0, neg[:, 1] + 0.3)  # negatives differ only by a larger F_TED
    x, y = np.zeros((0, 3), dtype=np.float32), np.zeros(0, dtype=np.float32)
    trained = train_network(x, y, ranked=(pos, neg), rank_weight=1.0, class_weight=0.0)
    with torch.no_grad():  # logits: the ranking loss alone leaves their offset free
        assert (trained(torch.tensor(pos)) > trained(torch.tensor(neg))).float().mean() > 0.9
    net = ScorerNetwork({"kind": "monotone", "layers": trained.export()})
    grid = np.linspace(0.0, 1.0, 6)
    scores = net(np.array(list(itertools.product(grid, grid, grid)))).reshape(6, 6, 6)
    assert (np.diff(scores, axis=0) >= 0).all() and (np.diff(scores, axis=1) <= 0).all()
    assert (np.diff(scores, axis=2) >= 0).all()

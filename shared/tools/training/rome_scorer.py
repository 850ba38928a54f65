"""Train RoMe's final scorer network self-supervised, as the paper's section 3.4 does, on
pairs built from text the project ships (``nlgmetrics/data/rome_scorer_facts.json``:
general-knowledge facts and invented venues realised with hand-written templates).

    python -m training.rome_scorer  # from shared/tools --profile lite   # the shipped lite network

Any other configuration (the paper profile, an own encoder or classifier) fits its network on
its own features the first time it scores: :func:`fit_network`, called and cached by
``nlgmetrics.rome.fit``.

Positives (label 1): a reference realisation of a fact with a meaning-preserving variant (a
different template, an adjective or verb synonym, or the same sentence). Negatives (label 0):
a realisation perturbed by one of entity swap (a slot value from another fact of the same
kind), antonym replacement (WordNet), random-word replacement (a word from the corpus or the
TextAttack placeholder ``AAA``), repetition, deletion, or role reversal (two slot values
exchanged: "France is the capital of Paris"). Passive rewrites and clause reorderings are
positives through the templates. 2,500 + 2,500 training pairs and 500 + 500 test pairs, fixed
seed. The network is monotone by construction (see ``nlgmetrics.rome.network``), trained with
full-batch Adam on binary cross-entropy in one thread: the same features give the same
weights bit for bit. Written to ``nlgmetrics/data/rome_scorer_<profile>.json``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nlgmetrics.core.resources import DATA_DIR
from nlgmetrics.rome import RoMe
from nlgmetrics.rome.fit import accuracy_by_kind, features, fit_network, train_network  # noqa: F401 (used by tests and experiments)
from nlgmetrics.rome.pairs import N_TEST, N_TRAIN, PERTURBATIONS, SEED, make_pairs  # noqa: F401


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=("lite",), default="lite")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)
    output = args.output or DATA_DIR / f"rome_scorer_{args.profile}.json"
    scorer = RoMe(profile=args.profile, quiet=True, device="cpu", scorer_weights=str(output.name))
    payload = fit_network(scorer)
    payload["profile"] = args.profile
    output.write_text(json.dumps(payload, indent=1) + "\n")
    print(json.dumps(payload["report"], indent=1))
    print(f"wrote {output}")
    return payload


if __name__ == "__main__":
    main()

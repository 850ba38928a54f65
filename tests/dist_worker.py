"""Run under torchrun: score a corpus data-parallel and (rank 0) write the result as JSON.

    torchrun --nproc_per_node 2 tests/dist_worker.py SPEC.json OUT.json
    torchrun --nproc_per_node 2 tests/dist_worker.py --cli score toy ... --distributed
(the second form runs the command line with the toy scorer registered; "{rank}" in an argument
becomes the process's rank)
SPEC: {"metric": ..., "options": {...}, "predictions": [...], "references": [...],
       "rank_predictions" / "rank_options": {"1": ...} (optional: what rank 1 gets instead),
       "sources": [...] or null, "extras": {name: [...]} (optional),
       "registry": {name: [module, class]} (optional extra entries),
       "accelerate": true to let accelerate's Accelerator set up the process group}
"""
import json
import os
import sys

import torch.distributed as dist

import nlgmetrics
from nlgmetrics.integrations import distributed


def main(spec_path: str, out_path: str) -> None:
    spec = json.load(open(spec_path))
    for name, entry in spec.get("registry", {}).items():
        nlgmetrics.REGISTRY[name] = tuple(entry)
    if spec.get("accelerate"):  # the process group as a training script under accelerate has it
        from accelerate import Accelerator

        Accelerator(cpu=True)
        assert dist.is_initialized(), "accelerate did not initialise the process group"
    else:
        assert distributed.init_distributed(), "not launched by torchrun"
    rank = dist.get_rank()
    options = dict(spec["options"], **spec.get("rank_options", {}).get(str(rank), {}))
    predictions = spec.get("rank_predictions", {}).get(str(rank), spec["predictions"])
    scorer = nlgmetrics.load(spec["metric"], **options)
    payload = {"rank": rank, "world": dist.get_world_size()}
    try:
        result = distributed.score_distributed(scorer, predictions, spec.get("references"),
                                               spec.get("sources"), all_ranks=True, **spec.get("extras", {}))
        payload["result"] = result.to_dict()
    except ValueError as err:  # a refused run: every rank reports it
        payload["error"] = str(err)
    # every rank got the same result; rank 0 writes OUT, the others OUT.rankN
    with open(out_path if rank == 0 else f"{out_path}.rank{rank}", "w") as out:
        json.dump(payload, out)
    distributed.shutdown_distributed()  # barrier first: a rank leaving early aborts the other


if __name__ == "__main__":
    if sys.argv[1] == "--cli":
        nlgmetrics.REGISTRY["toy"] = ("toy_scorers", "ToyChrf")
        from nlgmetrics.cli import main as cli_main

        rank = os.environ.get("RANK", "0")  # "{rank}" in an argument: each rank's own file
        sys.exit(cli_main([arg.replace("{rank}", rank) for arg in sys.argv[2:]]))
    main(sys.argv[1], sys.argv[2])

"""Run under torchrun: score a corpus data-parallel and (rank 0) write the result as JSON.

    torchrun --nproc_per_node 2 tests/dist_worker.py SPEC.json OUT.json
    torchrun --nproc_per_node 2 tests/dist_worker.py --cli score toy ... --distributed
(the second form runs the command line with the toy scorer registered)
SPEC: {"metric": ..., "options": {...}, "predictions": [...], "references": [...],
       "sources": [...] or null, "extras": {name: [...]} (optional),
       "registry": {name: [module, class]} (optional extra entries),
       "accelerate": true to let accelerate's Accelerator set up the process group}
"""
import json
import sys

import torch.distributed as dist

import nlgmetrics
from nlgmetrics import distributed


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
    scorer = nlgmetrics.load(spec["metric"], **spec["options"])
    result = distributed.score_distributed(scorer, spec["predictions"], spec.get("references"),
                                           spec.get("sources"), all_ranks=True, **spec.get("extras", {}))
    payload = {"rank": dist.get_rank(), "world": dist.get_world_size(), "result": result.to_dict()}
    if dist.get_rank() == 0:
        json.dump(payload, open(out_path, "w"))
    else:  # every rank got the same result
        json.dump(payload, open(out_path + f".rank{dist.get_rank()}", "w"))
    dist.destroy_process_group()


if __name__ == "__main__":
    if sys.argv[1] == "--cli":
        nlgmetrics.REGISTRY["toy"] = ("toy_scorers", "ToyChrf")
        from nlgmetrics.cli import main as cli_main

        sys.exit(cli_main(sys.argv[2:]))
    main(sys.argv[1], sys.argv[2])

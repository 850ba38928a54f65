"""Build SAM's embedded default lexicon from SentiWordNet 3.0.

SAM (Saadany et al., 2021) reads prior polarities of ``lemma#pos`` from SentiWords 1.1, which
cannot be redistributed here. This script derives a stand-in from SentiWordNet 3.0 (CC BY-SA
3.0): the prior polarity of a lemma#pos is the sense-rank-weighted mean of
``PosScore - NegScore`` over the synsets listing that lemma, with weight ``1 / rank`` for the
lemma's sense number in each synset (FORMULAS.md section 5)::

    s(lemma#pos) = sum_k (Pos_k - Neg_k) / rank_k  /  sum_k 1 / rank_k

Lemmas are lowercased (case variants merge); multiword lemmas keep WordNet's underscores
(``look_up#v``). Entries whose prior rounds to 0 are left out (a missing entry reads as 0).
The output is written in SentiWords' ``lemma#pos<TAB>score`` format with ``#`` comment lines,
sorted, gzip with a fixed header, so every run produces the same bytes::

    python shared/tools/training/sam_lexicon.py [--source PATH] [--output PATH]
"""
from __future__ import annotations

import argparse
import gzip
import io
import os
from collections import defaultdict
from pathlib import Path
from typing import Dict, Iterable, Tuple

from nlgmetrics.core.resources import DATA_DIR

#: ``../shared`` beside the checkout (or ``$NLGMETRICS_SHARED``), as the tests and benchmarks use
SHARED = Path(os.environ.get("NLGMETRICS_SHARED", Path(__file__).resolve().parents[3].parent / "shared"))
DEFAULT_SOURCE = SHARED / "data" / "lexicons" / "SentiWordNet_3.0.0.txt.gz"
DEFAULT_OUTPUT = DATA_DIR / "sentiwordnet_prior.tsv.gz"
DECIMALS = 4
# the header keeps the script's old module name: it is part of the shipped file's bytes (its digest signs)
HEADER = """# SAM default lexicon: prior polarity of lemma#pos in [-1, 1], derived from SentiWordNet 3.0
# s(lemma#pos) = sense-rank-weighted mean of (PosScore - NegScore), weights 1/rank; zeros omitted
# Built by python -m nlgmetrics.training.sam_lexicon (nlgmetrics). Derived from SentiWordNet 3.0,
# Copyright 2010 ISTI-CNR (Baccianella, Esuli, Sebastiani), licensed CC BY-SA 3.0
# (http://creativecommons.org/licenses/by-sa/3.0/); this derived file is shared under the same
# licence. See sentiwordnet_prior.md and sentiwordnet_prior.LICENSE.
"""


def read_synsets(lines: Iterable[str]) -> Iterable[Tuple[str, float, float, str]]:
    """``(pos, pos_score, neg_score, synset_terms)`` per data line of SentiWordNet 3.0."""
    for line in lines:
        if line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 5 or fields[0] not in {"a", "n", "r", "v"}:
            continue
        yield fields[0], float(fields[2]), float(fields[3]), fields[4]


def prior_polarities(lines: Iterable[str]) -> Dict[str, float]:
    """``lemma#pos -> prior polarity`` by the 1/rank-weighted mean of Pos - Neg."""
    total: Dict[str, float] = defaultdict(float)
    weight: Dict[str, float] = defaultdict(float)
    for pos, pos_score, neg_score, terms in read_synsets(lines):
        for term in terms.split():
            lemma, _, rank = term.rpartition("#")
            if not lemma or not rank.isdigit() or int(rank) < 1:
                continue
            key = f"{lemma.lower()}#{pos}"
            total[key] += (pos_score - neg_score) / int(rank)
            weight[key] += 1.0 / int(rank)
    return {key: total[key] / weight[key] for key in total}


def render(priors: Dict[str, float]) -> str:
    """The TSV text: header comments, then sorted non-zero entries."""
    out = io.StringIO()
    out.write(HEADER)
    for key in sorted(priors):
        value = round(priors[key], DECIMALS)
        if value != 0:
            out.write(f"{key}\t{value:.{DECIMALS}f}".rstrip("0").rstrip(".") + "\n")
    return out.getvalue()


def write_gzip(text: str, path: Path) -> None:
    """gzip with mtime 0 and no file name in the header: the same bytes on every run."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                compresslevel=9) as fh:
        fh.write(text.encode("utf-8"))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE,
                        help="SentiWordNet_3.0.0.txt(.gz)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    opener = gzip.open if args.source.suffix == ".gz" else open
    with opener(args.source, "rt", encoding="utf-8") as fh:
        priors = prior_polarities(fh)
    text = render(priors)
    write_gzip(text, args.output)
    kept = text.count("\n") - HEADER.count("\n")
    print(f"{len(priors)} lemma#pos entries, {kept} non-zero written to {args.output} "
          f"({args.output.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

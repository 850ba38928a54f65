"""Build SAM's emotion-aware lexicon ``sentivader``: VADER's human-rated valences joined to the
SentiWordNet 3.0 prior (``sentiwordnet_prior.tsv.gz``).

SentiWordNet's sense-averaged priors are weak on emotion and social-media words (anger#n
-0.18, great#a 0.26, kill#v -0.13; no "lol"). VADER's lexicon (Hutto and Gilbert, 2014; MIT;
shipped in the ``vaderSentiment`` package) rates 7,500 words and emoticons by ten human raters
each on -4..4 out of context, which is what a prior polarity is. The rule:

1. VADER entries that are one lowercase word ``[a-z]+`` are kept (emoticons, multiword and
   hyphenated entries cannot match one tagged token); v(word) = mean valence / 4 in [-1, 1].
2. ``vader`` rule (shipped): for every ``word#pos`` the prior lists, s = v(word) (the human
   rating replaces the sense average, for every pos of the word); a VADER word the prior does
   not list at all gets s = v(word) under each of a, n, r, v (VADER has no pos: whichever tag
   the word receives, it is found).
   ``mean`` rule (measured, not shipped): s = (prior + v) / 2 where both exist.
3. Every other prior entry is kept unchanged (``not#r`` -0.625: VADER treats negation by rule
   and has no entry).

Deterministic: sorted, rounded to 4 decimals, gzip with mtime 0::

    python shared/tools/training/sam_vader.py [--rule vader|mean] [--output PATH]
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Dict, Iterable, Optional, Sequence

from nlgmetrics.core.resources import DATA_DIR
from training.sam_lexicon import DECIMALS, write_gzip

DEFAULT_OUTPUT = DATA_DIR / "sentivader.tsv.gz"
RULES = ("vader", "mean")
WORD = re.compile(r"[a-z]+")
# the header keeps the script's old module name: it is part of the shipped file's bytes (its digest signs)
HEADER = """# SAM lexicon 'sentivader': prior polarity of lemma#pos in [-1, 1]
# = VADER 3.3.2 mean valence / 4 for its one-word entries (replacing, for every pos, the
# SentiWordNet 3.0 prior; added under a, n, r and v when the prior lacks the word), else the
# SentiWordNet 3.0 sense-rank-weighted prior. Built by python -m nlgmetrics.training.sam_vader.
# VADER lexicon Copyright (c) 2016 C.J. Hutto, MIT licence. SentiWordNet 3.0 Copyright 2010
# ISTI-CNR, CC BY-SA 3.0; this combined file is shared under CC BY-SA 3.0 with both notices.
# See sentivader.md and sentivader.LICENSE.
"""


def vader_path() -> Path:
    """``vader_lexicon.txt`` inside the installed ``vaderSentiment`` package."""
    import vaderSentiment

    return Path(vaderSentiment.__file__).resolve().parent / "vader_lexicon.txt"


def read_vader(lines: Iterable[str]) -> Dict[str, float]:
    """``word -> valence / 4`` for the one-word lowercase entries of VADER's lexicon."""
    out: Dict[str, float] = {}
    for line in lines:
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 2 or not WORD.fullmatch(fields[0]):
            continue
        out[fields[0]] = max(-1.0, min(1.0, float(fields[1]) / 4.0))
    return out


def combine(prior: Dict[str, float], vader: Dict[str, float], rule: str = "vader") -> Dict[str, float]:
    """The combined ``lemma#pos -> polarity`` mapping (see the module docstring)."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; choose one of {', '.join(RULES)}")
    out = dict(prior)
    for word, value in vader.items():
        keys = [f"{word}#{pos}" for pos in "anrv" if f"{word}#{pos}" in prior]
        if not keys:
            out.update({f"{word}#{pos}": value for pos in "anrv"})
            continue
        for key in keys:
            out[key] = value if rule == "vader" else (prior[key] + value) / 2
    return out


def render(polarity: Dict[str, float]) -> str:
    lines = [HEADER]
    for key in sorted(polarity):
        value = round(polarity[key], DECIMALS)
        if value != 0:
            lines.append(f"{key}\t{value:.{DECIMALS}f}".rstrip("0").rstrip(".") + "\n")
    return "".join(lines)


def build(rule: str = "vader") -> Dict[str, float]:
    """The combined lexicon from the shipped prior and the installed VADER lexicon."""
    from nlgmetrics.sam.lexicon import load_lexicon

    prior = dict(load_lexicon("sentiwordnet").polarity)
    with open(vader_path(), encoding="utf-8") as fh:
        return combine(prior, read_vader(fh), rule)


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rule", choices=RULES, default="vader")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    polarity = build(args.rule)
    write_gzip(render(polarity), args.output)
    print(f"{len(polarity)} lemma#pos entries written to {args.output} ({args.output.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

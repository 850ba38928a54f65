"""The golden corpus and option sets: every metric's scores and signature on a fixed small
corpus, stored before the 0.2 layout change (``golden.json``) and compared after it.

Regenerate only when a score is meant to change, and say so in the changelog:
``python tests/golden/cases.py --write`` (needs the lite extras).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden.json"

PREDICTIONS = [
    "The cat sat on the mat.",
    "A quick brown fox jumps over the lazy dog.",
    "",
    "The government announced new measures to help small firms.",
    "I love this film 😀 it was great!",
    "Кошка сидит на коврике.",
    "The match was not postponed because of rain.",
    "She reads a book every evening before sleep.",
]
REFERENCES = [
    "The cat is sitting on the mat.",
    "The quick brown fox jumped over the lazy dog.",
    "Nothing happened.",
    "The government announced new measures to support small businesses.",
    "I hate this film 😡 it was awful!",
    "Кошка сидит на ковре.",
    "The match was postponed because of heavy rain.",
    "Every evening she reads a book before going to sleep.",
]
SOURCES = [
    "Le chat est assis sur le tapis.",
    "Un renard brun rapide saute par-dessus le chien paresseux.",
    "Rien ne s'est passé.",
    "Le gouvernement a annoncé de nouvelles mesures pour les petites entreprises.",
    "Je déteste ce film, il était affreux !",
    "Le chat est assis sur le tapis.",
    "Le match a été reporté à cause de la pluie.",
    "Elle lit un livre chaque soir avant de dormir.",
]
BASE_SCORES = [0.5, 0.25, 0.0, 0.75, 0.9, 0.1, 0.6, 0.4]

#: (case name, metric, options, needs references as groups of two, extras)
CASES: List[Tuple[str, str, Dict[str, Any]]] = [
    ("datscore-tiny", "datscore", {"source_lang": "fr", "target_lang": "en", "max_new_tokens": 8,
                                   "beam_size": 2, "ovr_min_segments": 3}),
    ("datscore-tiny-uniform", "datscore", {"source_lang": "fr", "target_lang": "en", "max_new_tokens": 8,
                                           "beam_size": 1, "token_weights": "uniform"}),
    ("rome-lite", "rome", {"profile": "lite"}),
    ("rome-lite-emd", "rome", {"profile": "lite", "component": "emd"}),
    ("rome-lite-ted", "rome", {"profile": "lite", "component": "ted"}),
    ("rome-lite-grammar", "rome", {"profile": "lite", "component": "grammar"}),
    ("discotk-light", "discotk", {"variant": "light"}),
    ("discotk-party", "discotk", {"variant": "party"}),
    ("texteval-tags", "texteval", {}),
    ("texteval-words-mean", "texteval", {"features": "words", "corpus": "mean"}),
    ("sam-chrf", "sam", {"base": "chrf"}),
    ("sam-bleu", "sam", {"base": "bleu"}),
    ("sam-meteor", "sam", {"base": "meteor"}),
    ("sam-bertscore-lite", "sam", {"base": "bertscore", "profile": "lite"}),
    ("sam-given", "sam", {"base": "given"}),
]


def strip_version(signature: str) -> str:
    """The signature without its version field (the version moves with releases)."""
    return re.sub(r"\|v:[^|]*$", "", signature)


def run_case(name: str, metric: str, options: Dict[str, Any], tiny_model: str) -> Dict[str, Any]:
    """Score the golden corpus with one option set; the stored form of its result."""
    import nlgmetrics

    options = dict(options)
    extras: Dict[str, Any] = {}
    sources = None
    if metric == "datscore":
        options["model"] = tiny_model
        sources = SOURCES
    if name == "sam-given":
        extras["base_scores"] = BASE_SCORES
    scorer = nlgmetrics.load(metric, quiet=True, **options)
    result = scorer.score(PREDICTIONS, REFERENCES, sources, **extras)
    signature = strip_version(result.signature)
    if metric == "datscore":  # the tiny model's path is a temporary directory
        signature = signature.replace(tiny_model, "<tiny>")
    return {"score": result.score, "scores": list(result.scores), "signature": signature}


def compute_all(tiny_model: str) -> Dict[str, Any]:
    return {name: run_case(name, metric, options, tiny_model) for name, metric, options in CASES}


def main(argv: List[str]) -> int:
    import tempfile

    sys.path.insert(0, str(HERE.parent))
    from tiny_models import build_tiny_m2m100

    with tempfile.TemporaryDirectory() as tmp:
        results = compute_all(build_tiny_m2m100(Path(tmp) / "tiny-m2m100"))
    text = json.dumps(results, indent=1, ensure_ascii=False, allow_nan=True)
    if "--write" in argv:
        GOLDEN.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

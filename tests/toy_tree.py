"""A sixth metric, ``toysix``, that lives in a tree the way the five live in this project's:
its package (``toysix/``: ``config.py`` with FACTS, PRESETS and EXAMPLE, ``scorer.py``,
``__init__.py``), its evaluate module (``metrics/toysix/toysix.py`` with its card) and its Space
(``spaces/toysix/app.py``), all written by :func:`write_tree` into a folder (tests never write
into the checkout) and joined by :func:`register`: one registry line and the tree's folder
(``registry.TREES``); everything else is found by name, as for the five.

The toy scores unigram precision (hand-computable): per segment the share of the hypothesis'
tokens that occur in the reference, times ``scale``, plus a per-segment ``offsets`` input
when given (like SAM's ``base_scores``); the corpus score is the mean."""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

NAME = "toysix"

CONFIG = '''
"""The toy's options and facts."""
from dataclasses import dataclass

from nlgmetrics.core.config import MetricConfig, option
from nlgmetrics.core.facts import Example, MetricFacts, Need


@dataclass(frozen=True)
class ToySixConfig(MetricConfig):
    scale: float = option(1.0, "factor on the precision", low=0.0)


FACTS = MetricFacts(summary="ToySix: unigram precision", higher_is_better=True, score_range="[0, scale]",
                    needs=(Need("every option", {}),))
PRESETS = {"default": {}, "double": {"scale": 2.0}}
EXAMPLE = Example({"predictions": ["the cat sat", "a dog ran off"],
                   "references": ["the cat sat down", "the dog ran"]}, {"scale": 1.0})
'''

SCORER = '''
"""The toy's scorer."""
from typing import Any, Dict, List

from nlgmetrics.core.inputs import Inputs, Record, per_segment_numbers
from nlgmetrics.core.scorer import Scorer

from .config import ToySixConfig


class ToySix(Scorer):
    name = "toysix"
    Config = ToySixConfig
    extra_inputs = {"offsets": "a number added to each segment's score"}

    def check_extras(self, extras: Dict[str, Any], n: int) -> Dict[str, List[Any]]:
        return {"offsets": per_segment_numbers(extras["offsets"], "offsets", n)} if "offsets" in extras else {}

    def precision(self, hypothesis: str, reference: str) -> float:
        tokens, known = hypothesis.split(), set(reference.split())
        return self.config.scale * sum(t in known for t in tokens) / len(tokens) if tokens else 0.0

    def score_segments(self, inputs: Inputs) -> List[Record]:
        offsets = inputs.extras.get("offsets", [0.0] * len(inputs))
        # the corpus step is the core's default: the mean, resampled as such
        return [{"id": i, "score": self.precision(h, r) + offsets[k]}
                for k, (i, h, r) in enumerate(zip(inputs.ids, inputs.predictions, inputs.references))]
'''

INIT = '''"""A toy sixth metric."""
from .config import ToySixConfig
from .scorer import ToySix
'''

MODULE = '''
"""ToySix as an evaluate metric, shaped like metrics/<name>/<name>.py."""
import evaluate

from nlgmetrics.integrations import evaluate as support
from toysix.config import PRESETS

_KWARGS_DESCRIPTION = support.kwargs_description("toysix", configs=PRESETS, inputs="""\\
    predictions (list of str): hypotheses.
    references (list of str): references.
""", returns="""\\
    score (float): mean unigram precision.
""", examples="""\\
    >>> 1
    1
""")


@evaluate.utils.file_utils.add_start_docstrings("ToySix.", _KWARGS_DESCRIPTION)
class ToySixMetric(support.Metric):
    metric_name = "toysix"
    CONFIGS = PRESETS
    DESCRIPTION, CITATION, KWARGS_DESCRIPTION = "ToySix.", "", _KWARGS_DESCRIPTION
'''

CARD = """---
title: ToySix
tags:
- evaluate
- metric
---
# ToySix

Unigram precision, the tests' sixth metric.
"""

APP = '''
"""Gradio Space for ToySix, shaped like spaces/<name>/app.py."""
from typing import Any, Mapping, Optional

import gradio as gr

from nlgmetrics import space as ui

EXAMPLES = [{"predictions": "the cat sat\\na dog ran off", "references": "the cat sat down\\nthe dog ran"}]


def reading(scorer: Any) -> ui.Reading:
    return ui.Reading("0 to scale; higher is better", "the mean of the segments",
                      (ui.Anchor("exact copy", "the cat", "the cat"), ui.Anchor("an error", "a dog", "the cat")))


SPEC = ui.SpaceSpec(metric="toysix", title="ToySix", summary="unigram precision", intro="A toy.",
                    settings=["scale"], visuals=lambda: [gr.HTML(elem_id="toysix-visual")],
                    examples=EXAMPLES, explain=lambda scorer, result, inputs: [""], reading=reading)


def build_demo(scorer_factory: Optional[ui.Factory] = None, options: Optional[Mapping[str, Any]] = None,
               preload: bool = True) -> gr.Blocks:
    return ui.build_space(SPEC, scorer_factory, options, preload)


if __name__ == "__main__":
    ui.launch(build_demo())
'''


def write_tree(root: Path) -> Path:
    """The toy's three parts under ``root`` (the package in ``root/toysix``); ``root``."""
    files = {f"{NAME}/__init__.py": INIT, f"{NAME}/config.py": CONFIG, f"{NAME}/scorer.py": SCORER,
             f"metrics/{NAME}/{NAME}.py": MODULE, f"metrics/{NAME}/README.md": CARD,
             f"metrics/{NAME}/requirements.txt": "nlgmetrics\n", f"spaces/{NAME}/app.py": APP,
             f"spaces/{NAME}/requirements.txt": "nlgmetrics[spaces]\n"}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def register(root: Path, monkeypatch: Any) -> None:
    """The toy joined to the registry as a metric of another tree: its package on the path, its
    one registry line and its tree's folder."""
    from nlgmetrics import registry

    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setitem(registry.REGISTRY, NAME, (NAME, "ToySix"))
    monkeypatch.setitem(registry.TREES, NAME, str(root))

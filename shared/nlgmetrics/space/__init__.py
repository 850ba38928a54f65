"""What the five Gradio Spaces (``spaces/<name>/app.py``) share, by responsibility:
:mod:`.runtime` (device, dtype, ZeroGPU, the owner's model list), :mod:`.settings` (settings
generated from the metric's configuration, the scorer pool), :mod:`.inputs` (text boxes,
uploads, score files), :mod:`.draw` (HTML/SVG drawings), :mod:`.report` (score, how to read
it, warnings), :mod:`.api` (the JSON endpoint ``/score`` and named API parameters, for
programs) and :mod:`.page` (the page itself: :class:`SpaceSpec`, :func:`build_space`)."""
from .draw import (
                   MAX_DRAWN,
                   MAX_HEATMAP,
                   MAX_LEAVES,
                   TreeNode,
                   bar_chart,
                   count_leaves,
                   flex_row,
                   fmt,
                   heatmap,
                   legend,
                   note,
                   scroll,
                   section,
                   shorten,
                   tree_svg,
)
from .inputs import (
                   MAX_BATCH_ROWS,
                   MAX_EXAMPLE_LINES,
                   REFERENCE_SEPARATOR,
                   escape_cell,
                   example_inputs,
                   read_batch,
                   write_batch,
)
from .page import GRADIO_SDK_VERSION, SpaceSpec, build_space, launch, page_words, status_html
from .report import (
                   Anchor,
                   Reading,
                   english_warning,
                   explain_error,
                   looks_non_english,
                   message_html,
                   reading_html,
                   score_html,
                   truncation_warning,
)
from .runtime import (
                   MODELS_VARIABLE,
                   Runtime,
                   allowed_models,
                   default_profile,
                   detect_runtime,
                   on_gpu,
                   on_zero_gpu,
                   zero_gpu_decorator,
)
from .settings import DEFAULT, Factory, ScorerPool, Setting, build_settings

__all__ = ["MAX_DRAWN", "MAX_HEATMAP", "MAX_LEAVES", "TreeNode", "bar_chart", "count_leaves", "flex_row", "fmt",
           "heatmap", "legend", "note", "scroll", "section", "shorten", "tree_svg", "MAX_BATCH_ROWS",
           "MAX_EXAMPLE_LINES", "REFERENCE_SEPARATOR", "escape_cell", "example_inputs", "read_batch", "write_batch",
           "GRADIO_SDK_VERSION", "SpaceSpec", "build_space", "launch", "page_words", "status_html", "Anchor", "Reading",
           "english_warning", "explain_error", "looks_non_english", "message_html", "reading_html", "score_html",
           "truncation_warning", "MODELS_VARIABLE", "Runtime", "allowed_models", "default_profile",
           "detect_runtime", "on_gpu", "on_zero_gpu", "zero_gpu_decorator", "DEFAULT", "Factory", "ScorerPool",
           "Setting", "build_settings"]

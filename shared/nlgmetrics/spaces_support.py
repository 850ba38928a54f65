"""Former single module of the Spaces' support, kept as a re-export: the code now lives in
:mod:`nlgmetrics.space` (runtime, settings and scorer pool, inputs, drawings, report, page)."""
from nlgmetrics.space import *  # noqa: F403
from nlgmetrics.space import __all__  # noqa: F401

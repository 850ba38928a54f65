"""The check every metric's worst-case test makes: a call finishes within the time budget per
segment (core/budget.py: about 2 s on two cores) times its segments. CPU seconds of this
process are measured, not wall seconds: other processes on a loaded machine slow the wall
clock, not the work done. The best of ``attempts`` calls counts (a first call at a new input
shape pays one-time costs); ``call(attempt)`` should vary its texts so no cache answers."""
import time
import warnings
from typing import Any, Callable, Tuple

#: seconds per segment the caps are derived for (benchmarks/budget_caps.py)
SECONDS_PER_SEGMENT = 2.0


def within_budget(call: Callable[[int], Any], segments: int, attempts: int = 2) -> Tuple[Any, float]:
    """``(result of the last call, best CPU seconds)``, asserting the budget (warnings silenced)."""
    best, result = float("inf"), None
    for attempt in range(attempts):
        start = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call(attempt)
        best = min(best, time.process_time() - start)
    assert best <= SECONDS_PER_SEGMENT * segments, f"{best:.2f} CPU s for {segments} segment(s)"
    return result, best

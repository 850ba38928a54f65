"""Shared test fixtures: the reference data beside the checkout (skip cleanly when absent)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# hypothesis keeps no example database: by default it writes .hypothesis/ into the working
# directory, and no test writes into the checkout
settings.register_profile("nlgmetrics", database=None)
settings.load_profile("nlgmetrics")

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "shared" / "tools"  # scripts that rebuild shipped data (not installed): import training.<name>
if str(TOOLS) not in sys.path:
    sys.path.append(str(TOOLS))
SHARED = Path(os.environ.get("NLGMETRICS_SHARED", ROOT.parent / "shared"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


#: tests left out of the edit-test loop (pytest -m "not slow"), by node id prefix or name part:
#: browsers, torchrun and other subprocesses, real models, evaluate loading by name, memory and
#: thread stress (chosen from --durations; the full suite still runs them)
SLOW = ("tests/spaces/test_browser.py", "tests/core/test_memory.py", "tests/core/test_threads.py",
        "tests/integrations/test_evaluate_by_name.py", "tests/tools/test_publish.py", "tests/golden/",
        "tests/rome/test_scorer.py", "tests/integrations/test_distributed.py::test_torchrun",
        "tests/cli/test_commands.py::test_a_real_process", "tests/cli/test_commands.py::test_a_closed_stdout",
        "tests/cli/test_commands.py::test_cli_distributed", "tests/cli/test_commands.py::test_warnings_print_as_one_line",
        "tests/integrations/test_distributed.py::test_real_metrics", "tests/integrations/test_distributed.py::test_sam_given",
        "tests/discotk/test_rst_formats.py::test_too_deep_rst_trees", "tests/benchmarks/test_streaming.py::test_streamed",
        "tests/discotk/test_robustness.py::test_no_process_wide", "tests/integrations/test_evaluate_plumbing.py::test_evaluate_load",
        "tests/integrations/test_evaluate_plumbing.py::test_cli_score_json", "tests/core/test_doctests.py::test_wrapper_examples",
        "tests/integrations/test_transformers_hook.py::test_compute_metrics_in_seq2seq_trainer",
        # the Space's worker processes (spawned, 5-18 s each); the first worker test stays in the loop
        "tests/spaces/test_workers.py::test_a_request_past", "tests/spaces/test_workers.py::test_a_newer_request",
        "tests/spaces/test_workers.py::test_a_worker_that_cannot", "tests/spaces/test_workers.py::test_the_workers_start",
        "tests/spaces/test_workers.py::test_a_page_whose")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(SLOW) or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption("--update-screenshots", action="store_true", default=False,
                     help="the browser tests write spaces/<name>/screenshot.png (else a temporary directory)")


@pytest.fixture(scope="session")
def screenshot_dir(request, tmp_path_factory) -> Path:
    """Where the browser tests put the Spaces' screenshots: ``spaces/`` with
    ``--update-screenshots``, else a temporary directory (no test writes into the checkout)."""
    if request.config.getoption("--update-screenshots"):
        return ROOT / "spaces"
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; tests that need it skip when it is not there."""
    path = SHARED / "data"
    if not path.is_dir():
        pytest.skip("../shared/data is not beside the checkout")
    return path


@pytest.fixture(scope="session")
def tiny_m2m100(tmp_path_factory) -> str:
    """One tiny random M2M-100 (tests/tiny_models.py defaults) for the whole run; tests must
    not write into its directory."""
    tiny_models = pytest.importorskip("tiny_models")
    return tiny_models.build_tiny_m2m100(tmp_path_factory.mktemp("tiny-m2m100"))


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models run faster on one thread (and much faster on a shared, loaded CPU)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)

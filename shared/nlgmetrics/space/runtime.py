"""Where a Space's models run: the device and default dtype, the optional ZeroGPU
``spaces.GPU`` wrapper, the default profile (``lite`` offline), and the models a Space's owner
allows its visitors to choose (an environment variable, never free text from the page)."""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence

#: environment variable with the model ids or directories a Space offers (comma-separated)
MODELS_VARIABLE = "NLGMETRICS_SPACE_MODELS"


@dataclass(frozen=True)
class Runtime:
    """Where models run: ``device`` (``cuda``/``mps``/``cpu``), the default ``dtype`` for it and
    whether the ZeroGPU ``spaces.GPU`` decorator is present."""

    device: str
    dtype: str
    zero_gpu: bool

    def describe(self) -> str:
        where = "ZeroGPU" if self.zero_gpu else self.device
        return f"device {where} · dtype {self.dtype}"


def zero_gpu_decorator() -> Optional[Callable[..., Any]]:
    """``spaces.GPU`` when the Hugging Face ``spaces`` package is installed, else ``None``
    (a folder named ``spaces`` on the path imports as an empty namespace package: no ``GPU``)."""
    try:
        module = importlib.import_module("spaces")
    except ImportError:
        return None
    decorator = getattr(module, "GPU", None)
    return decorator if callable(decorator) else None


def on_zero_gpu() -> bool:
    """A ZeroGPU Space: the ``spaces`` package is there and the Hub set ``SPACES_ZERO_GPU``."""
    return zero_gpu_decorator() is not None and os.environ.get("SPACES_ZERO_GPU", "").lower() in ("1", "true")


def detect_runtime(gpu_dtypes: Sequence[str] = ("bf16", "fp16")) -> Runtime:
    """CUDA when present (then the first of ``gpu_dtypes`` the GPU supports: bf16 needs
    compute capability 8+; ZeroGPU's GPUs all have it, and are not queried at start-up), else
    the CPU in fp32. An empty ``gpu_dtypes`` keeps fp32 for a metric whose scores would
    suffer from half precision."""
    from nlgmetrics.core.models import resolve_device

    device = resolve_device("auto").type
    zero = on_zero_gpu()
    dtype = "fp32"
    if device == "cuda":
        import torch

        for candidate in gpu_dtypes:
            if candidate == "bf16" and not zero and not torch.cuda.is_bf16_supported():
                continue
            dtype = candidate
            break
    return Runtime(device, dtype, zero)


def on_gpu(fn: Callable[..., Any], duration: int = 120) -> Callable[..., Any]:
    """``fn`` wrapped with ``spaces.GPU(duration=...)`` when the ``spaces`` package is there
    (the decorator does nothing outside ZeroGPU); ``fn`` unchanged without it."""
    decorator = zero_gpu_decorator()
    return decorator(duration=duration)(fn) if decorator is not None else fn


def default_profile(profiles: Sequence[str]) -> str:
    """``paper`` when the hub is reachable (its checkpoints download), ``lite`` offline."""
    from nlgmetrics.core.models import is_offline

    if "lite" in profiles and (is_offline() or "paper" not in profiles):
        return "lite"
    return "paper" if "paper" in profiles else profiles[0]


def allowed_models(defaults: Sequence[str], initial: Optional[str] = None) -> List[str]:
    """The models a visitor may pick: ``NLGMETRICS_SPACE_MODELS`` (comma-separated, set by the
    Space's owner) or ``defaults``; the owner's initial model (``build_space`` options) first.
    A visitor never types a model id or a path: the page offers these and the server refuses
    anything else."""
    given = os.environ.get(MODELS_VARIABLE, "")
    models = [m.strip() for m in given.replace("\n", ",").split(",") if m.strip()] or list(defaults)
    if initial:
        models = [initial] + [m for m in models if m != initial]
    return list(dict.fromkeys(m for m in models if m))

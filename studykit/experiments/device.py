"""Loading torch on demand and choosing the device a run uses."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
from types import ModuleType

from studykit.experiments.base import DeviceUnavailable, ParamError, TorchMissing

DEVICES = ("auto", "cpu", "cuda")


def load_torch() -> ModuleType:
    """`import torch`, or TorchMissing saying which extra to install."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        raise TorchMissing() from None


def torch_version() -> str:
    """The installed torch version from its metadata (no import), or `none`."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def check_device_name(requested: str) -> None:
    """ParamError unless `requested` is one of auto, cpu, cuda."""
    if requested not in DEVICES:
        raise ParamError(f"device must be one of {', '.join(DEVICES)}; got {requested!r}")


def resolve_device(requested: str, torch: ModuleType | None = None) -> str:
    """`cpu` or `cuda`; `auto` is cuda when available. Asking for cuda without it says why."""
    check_device_name(requested)
    if requested == "cpu":
        return "cpu"
    torch = torch or load_torch()
    available = bool(torch.cuda.is_available())
    if requested == "auto":
        return "cuda" if available else "cpu"
    if available:
        return "cuda"
    raise DeviceUnavailable(cuda_unavailable_reason(torch))


def cuda_unavailable_reason(torch: ModuleType) -> str:
    """Why CUDA cannot be used (a CPU-only build, or no GPU visible), without command-line flags."""
    version = str(torch.__version__)
    if getattr(torch.version, "cuda", None) is None:
        return (
            f"CUDA is not available: this torch ({version}) is a CPU-only build, so it cannot "
            "use a GPU; install a CUDA build of torch, or run on the CPU"
        )
    return (
        f"CUDA is not available: torch {version} was built for CUDA {torch.version.cuda}, but "
        "no GPU is visible (torch.cuda.is_available() is False: no GPU, no driver, or "
        "CUDA_VISIBLE_DEVICES hides it); run on the CPU"
    )


def machine_description(device: str, torch: ModuleType | None = None) -> str:
    """A short description of where a run happened, e.g. `2-core CPU` or the GPU's name."""
    if device == "cuda" and torch is not None:
        return f"GPU {torch.cuda.get_device_name(0)}"
    cores = os.cpu_count() or 1
    return f"{cores}-core CPU ({platform.machine() or 'unknown'})"

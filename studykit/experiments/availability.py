"""Which devices a run can use, asked of a separate Python so this process never imports torch."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from typing import Final

from studykit.experiments.base import DeviceUnavailable
from studykit.experiments.device import check_device_name, torch_version

_PROBE: Final = (
    "import torch\n"
    "if torch.cuda.is_available():\n"
    "    print('ok')\n"
    "elif getattr(torch.version, 'cuda', None) is None:\n"
    "    print('cpu-build ' + str(torch.__version__))\n"
    "else:\n"
    "    print('no-gpu ' + str(torch.version.cuda))\n"
)
PROBE_TIMEOUT_S: Final = 60.0


@cache
def cuda_status() -> str | None:
    """None when CUDA can be used; otherwise why not, in words without command-line flags."""
    if torch_version() == "none":
        return "PyTorch is not installed"
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"could not ask torch about CUDA: {error}"
    answer = done.stdout.strip()
    if answer == "ok":
        return None
    if answer.startswith("cpu-build"):
        return f"this torch ({answer.split()[-1]}) is a CPU-only build"
    if answer.startswith("no-gpu"):
        return f"torch is built for CUDA {answer.split()[-1]}, but no GPU is visible"
    return f"could not ask torch about CUDA (exit {done.returncode})"


def device_without_torch(requested: str) -> str:
    """`cpu` or `cuda` for a requested device, as the child will resolve it; torch stays out."""
    check_device_name(requested)
    if requested == "cpu":
        return "cpu"
    reason = cuda_status()
    if reason is None:
        return "cuda"
    if requested == "auto":
        return "cpu"
    raise DeviceUnavailable(f"CUDA is not available: {reason}")

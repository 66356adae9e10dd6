"""Which devices a run can use, asked of a separate Python so this process never imports torch.

Most machines are answered without one: a CPU-only build of torch says so in its
`torch/version.py`, and a CUDA build on a Linux machine with no NVIDIA device, or with
`CUDA_VISIBLE_DEVICES` empty, sees no GPU. Only a CUDA (or ROCm) build that could have a GPU
is asked, which takes a child process that imports torch (seconds).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
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
_BUILD_FIELD: Final = re.compile(
    r"^(cuda|hip)\s*(?::[^=]*)?=\s*(None|'[^']*'|\"[^\"]*\")\s*$", re.M
)
_ASK: Final = "ask"  # what `_without_a_child` says when only torch itself can tell


def _build(version_file: Path) -> dict[str, str | None] | None:
    """torch's `cuda` and `hip` build fields, read from its version.py; None if unreadable."""
    try:
        text = version_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    fields = {
        name: None if value == "None" else value[1:-1] for name, value in _BUILD_FIELD.findall(text)
    }
    return fields if set(fields) == {"cuda", "hip"} else None


def _hidden_by_environment() -> bool:
    """Whether `CUDA_VISIBLE_DEVICES` hides every GPU (set, and empty or -1)."""
    return os.environ.get("CUDA_VISIBLE_DEVICES", "unset").strip() in {"", "-1"}


def _no_nvidia_device() -> bool:
    """On Linux, whether no NVIDIA GPU can be visible to this process."""
    if _hidden_by_environment():
        return True
    if not sys.platform.startswith("linux"):
        return False  # no device files to look at: ask torch
    devices = Path("/dev")
    return not Path("/proc/driver/nvidia").exists() and not any(devices.glob("nvidia[0-9]*"))


def _torch_build() -> dict[str, str | None] | None:
    """The installed torch's build fields (`_build`), found without importing it."""
    spec = importlib.util.find_spec("torch")  # finds the package; imports nothing
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    return _build(Path(folders[0]) / "version.py") if folders else None


def _without_a_child(version: str, build: dict[str, str | None] | None) -> str:
    """The answer when torch's build and the machine give it; `_ASK` when they do not."""
    if build is None or build["hip"] is not None:
        return _ASK  # an unreadable or a ROCm build: only torch can tell
    if build["cuda"] is None:
        return f"this torch ({version}) is a CPU-only build"
    if _no_nvidia_device():
        return f"torch is built for CUDA {build['cuda']}, but no GPU is visible"
    return _ASK


@cache
def cuda_status() -> str | None:
    """None when CUDA can be used; otherwise why not, in words without command-line flags."""
    version = torch_version()
    if version == "none":
        return "PyTorch is not installed"
    known = _without_a_child(version, _torch_build())
    if known != _ASK:
        return known
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

"""Whether PyTorch is installed, found without importing it (the `torch` extra is optional)."""

from __future__ import annotations

import importlib.util

__all__ = ["torch_installed"]


def torch_installed() -> bool:
    """Whether `import torch` can work, found without importing it."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False

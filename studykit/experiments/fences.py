"""The child's own fences: die with the parent, an address-space limit, a wall clock."""

from __future__ import annotations

import ctypes
import os
import re
import resource
import signal
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Final

from studykit.experiments.budget import MIB

_PR_SET_PDEATHSIG: Final = 1
# What a tiny run of each built-in maps beyond a bare `import torch` (VmPeak - VmSize, with
# MALLOC_ARENA_MAX=2; benchmarks/rlimit_overhead.py measures it): at most 212 MiB with 2
# threads and 325 MiB with 16, i.e. ~200 MiB plus ~8 MiB of stack per thread.
RUN_SLACK_BYTES: Final = 256 * MIB
PER_THREAD_BYTES: Final = 16 * MIB


def die_with_parent(parent_pid: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies; exit now if it already has."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the closed stdin (see child.py) still ends an orphan
    if os.getppid() != parent_pid:
        os._exit(1)


def mapped_bytes() -> int:
    """This process's virtual memory size now (VmSize), the quantity RLIMIT_AS bounds."""
    with open("/proc/self/status", encoding="ascii") as status:
        found = re.search(r"VmSize:\s+(\d+) kB", status.read())
    return int(found.group(1)) * 1024 if found else 0


def limit_memory(budget_bytes: int, torch: ModuleType) -> int:
    """Cap the address space at what torch maps now, plus the budget and the measured slack."""
    threads = int(torch.get_num_threads()) + int(torch.get_num_interop_threads())
    limit = mapped_bytes() + budget_bytes + RUN_SLACK_BYTES + PER_THREAD_BYTES * threads
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return limit


def cap_gpu_memory(budget_bytes: int, torch: ModuleType) -> None:
    """On CUDA, RLIMIT_AS cannot be used (the driver reserves huge ranges): cap torch's pool."""
    total = int(torch.cuda.get_device_properties(0).total_memory)
    torch.cuda.set_per_process_memory_fraction(min(1.0, budget_bytes / total))


def start_wall_clock(seconds: float, on_expiry: Callable[[], None]) -> threading.Timer:
    """Call `on_expiry` (which must end the process) after `seconds`, from a daemon thread."""
    timer = threading.Timer(seconds, on_expiry)
    timer.daemon = True
    timer.start()
    return timer

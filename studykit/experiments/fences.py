"""The child's own fences: die with the parent, a memory limit and watch, a wall clock."""

from __future__ import annotations

import ctypes
import os
import re
import resource
import signal
import threading
import time
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
_PAGE: Final = os.sysconf("SC_PAGE_SIZE")
WATCH_S: Final = 0.005  # torch fills memory at ~5 GB/s: one poll lets it ~25 MiB past


def die_with_parent(parent_pid: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies; exit now if it already has."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the closed stdin (see child.py) still ends an orphan
    if os.getppid() != parent_pid:
        os._exit(1)


def _status_bytes(key: str) -> int:
    """One `kB` line of /proc/self/status in bytes (0 where there is no such file)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            found = re.search(key + r":\s+(\d+) kB", status.read())
    except OSError:
        return 0
    return int(found.group(1)) * 1024 if found else 0


def mapped_bytes() -> int:
    """This process's virtual memory size now (VmSize), the quantity RLIMIT_AS bounds."""
    return _status_bytes("VmSize")


def resident_bytes() -> int:
    """This process's resident memory now (VmRSS): what the memory budget counts."""
    try:  # statm, not status: the watch below reads it every few milliseconds
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except OSError:
        return 0


def peak_resident_bytes() -> int:
    """The most this process has had resident since it started (VmHWM): Python, torch, run."""
    return _status_bytes("VmHWM")


def limit_memory(budget_bytes: int, torch: ModuleType) -> int:
    """Cap the address space: what is mapped now, plus what the budget leaves above what is
    resident now, plus the measured slack of mappings torch reserves and never fills."""
    threads = int(torch.get_num_threads()) + int(torch.get_num_interop_threads())
    room = max(budget_bytes - resident_bytes(), 0)
    limit = mapped_bytes() + room + RUN_SLACK_BYTES + PER_THREAD_BYTES * threads
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return limit


def watch_memory(budget_bytes: int, on_over: Callable[[int], None]) -> threading.Thread:
    """Call `on_over(resident)` (which must end the process) once resident memory passes the
    budget; a daemon thread polls every WATCH_S. Linux enforces no limit on resident memory,
    and the address-space limit above sits beyond it by the slack: this stops a run there."""

    def watch() -> None:
        while True:
            resident = resident_bytes()
            if resident > budget_bytes:
                on_over(resident)
                return
            time.sleep(WATCH_S)

    thread = threading.Thread(target=watch, name="memory-watch", daemon=True)
    thread.start()
    return thread


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

"""Test-only experiments at module level, so a child process can import their run functions."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from studykit.experiments import registry
from studykit.experiments.base import Answer, Cost, Experiment, Outcome, Param, Params, RunContext
from studykit.experiments.budget import GIB

CHILD_MODULE = "studykit.experiments.child"
SERVER = "studykit.experiments.forkserver"


def _slow(params: Params, ctx: RunContext) -> Outcome:
    """Steps every 10 ms for `seconds`, checking for a cancel each time."""
    started = time.monotonic()
    while time.monotonic() - started < float(params["seconds"]):
        ctx.step((time.monotonic() - started) / float(params["seconds"]), "ticking")
        time.sleep(0.01)
    return Outcome((Answer("waited", "waited", float(params["seconds"]), "s"),), "done")


def _deaf(params: Params, ctx: RunContext) -> Outcome:
    """Reports once, then sleeps without ever checking for a cancel (a stuck C call)."""
    ctx.step(0.0, "asleep")
    time.sleep(float(params["seconds"]))
    return Outcome((Answer("waited", "waited", float(params["seconds"]), "s"),), "done")


def _hog(params: Params, ctx: RunContext) -> Outcome:
    """Allocates and touches `mib` MiB of float32."""
    import torch

    ctx.step(0.0, "allocating")
    block = torch.ones(int(params["mib"]) << 18, dtype=torch.float32)
    return Outcome((Answer("sum", "sum", float(block.sum())),), "done")


def _crash(params: Params, ctx: RunContext) -> Outcome:
    """Dies by a signal (as a segfaulting extension would), or raises a plain bug."""
    ctx.step(0.0, "about to fail")
    if params["how"] == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(5)
    raise TypeError("a bug in the run function")


def _sized(params: Params, ctx: RunContext) -> Outcome:
    return Outcome((Answer("size", "size", int(params["size"])),), "done")


def _sized_cost(params: Params) -> Cost:
    """One GiB per unit of `size`, one second per unit of `steps`."""
    return Cost(
        peak_bytes=int(params["size"]) * GIB,
        seconds=float(params["steps"]),
        drivers=("size", "steps"),
    )


SLOW = Experiment(
    "test-slow", "Slow (test)", "Ticks.", (Param("seconds", "float", 30.0, "how long"),), _slow
)
DEAF = Experiment(
    "test-deaf", "Deaf (test)", "Sleeps.", (Param("seconds", "float", 30.0, "how long"),), _deaf
)
HOG = Experiment("test-hog", "Hog (test)", "Allocates.", (Param("mib", "int", 16, "MiB"),), _hog)
CRASH = Experiment(
    "test-crash",
    "Crash (test)",
    "Fails.",
    (Param("how", "choice", "segfault", "how", choices=("segfault", "bug")),),
    _crash,
)
SIZED = Experiment(
    "test-sized",
    "Sized (test)",
    "Has an estimate.",
    (Param("size", "int", 1, "GiB", low=1, high=1000), Param("steps", "int", 1, "s", low=1)),
    _sized,
    estimate=_sized_cost,
)
ALL = (SLOW, DEAF, HOG, CRASH, SIZED)


@contextmanager
def registered(*experiments: Experiment) -> Iterator[None]:
    """Register these for the duration."""
    for experiment in experiments:
        registry.register(experiment)
    try:
        yield
    finally:
        for experiment in experiments:
            registry.unregister(experiment.name)


def _processes() -> list[tuple[int, int, str]]:
    """(pid, parent pid, command line) of every process we can see."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue  # it ended while we looked
        fields = re.sub(r"^.*\) ", "", stat).split()
        found.append((int(entry.name), int(fields[1]), cmdline))
    return found


def run_children(parent: int | None = None) -> list[int]:
    """PIDs of the processes running experiments for `parent` (default: us): its own children
    started fresh, and the runs its fork server forked (they have the server's command line).

    An exiting child or a zombie has an empty command line (its memory is gone) but still
    counts: nobody reaped it yet.
    """
    parent = os.getpid() if parent is None else parent
    processes = _processes()
    servers = {pid for pid, ppid, cmdline in processes if ppid == parent and SERVER in cmdline}
    return [
        pid
        for pid, ppid, cmdline in processes
        if (ppid == parent and (CHILD_MODULE in cmdline or not cmdline.strip())) or ppid in servers
    ]


def fork_servers(parent: int | None = None, *, expect: int | None = None) -> list[int]:
    """PIDs of `parent`'s fork servers (default: ours); waiting up to 2 s for `expect` of them,
    as a server just started shows its parent's command line until it has exec'd."""
    parent = os.getpid() if parent is None else parent
    deadline = time.monotonic() + 2.0
    while True:
        found = [pid for pid, ppid, cmd in _processes() if ppid == parent and SERVER in cmd]
        if expect is None or len(found) == expect or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


def gone(pid: int) -> bool:
    """No such process any more (a zombie still counts as there: nobody reaped it)."""
    return not Path(f"/proc/{pid}").exists()


def dead(pid: int) -> bool:
    """Gone, or a zombie: it runs no more and only waits for init (its new parent) to reap it."""
    try:
        return re.sub(r"^.*\) ", "", Path(f"/proc/{pid}/stat").read_text()).startswith("Z")
    except OSError:
        return True


def wait_until_gone(pid: int, timeout: float, *, reaped: bool = True) -> float:
    """Seconds until `pid` disappeared (or, not `reaped`, died); AssertionError after `timeout`."""
    started = time.monotonic()
    while not (gone(pid) if reaped else dead(pid)):
        if time.monotonic() - started > timeout:
            raise AssertionError(f"process {pid} still exists after {timeout} s")
        time.sleep(0.01)
    return time.monotonic() - started

"""The fork server: runs forked from one process that imported torch once, each still alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator

import pytest

from studykit.experiments import forked, process
from studykit.experiments.base import ExperimentFailed
from studykit.experiments.runner import run_experiment
from tests.experiment_fixtures import (
    ALL,
    fork_servers,
    registered,
    run_children,
    wait_until_gone,
)

pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not forked.supported(), reason="needs pidfds (Linux 5.3+)")


@pytest.fixture(autouse=True)
def no_server_before_or_after() -> Iterator[None]:
    process.stop_server()
    with registered(*ALL):
        yield
    process.stop_server()


class Pids:
    """Progress callback that remembers the run's process and its parent."""

    def __init__(self) -> None:
        self.run: int | None = None
        self.parent: int | None = None

    def progress(self, fraction: float, message: str) -> None:
        if self.run is None:
            [self.run] = run_children()
            self.parent = parent_of(self.run)


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(") ", 1)[1].split()[1])


def test_runs_are_forked_by_one_server_that_imported_torch_once_and_each_is_reaped() -> None:
    process.prewarm()
    process.prewarm()  # one server at most
    [server] = fork_servers(expect=1)
    seen: list[int] = []
    for _ in range(2):
        pids = Pids()
        run = run_experiment("test-slow", {"seconds": 0.1}, device="cpu", progress=pids.progress)
        assert run.answer("waited").value == 0.1
        assert pids.run is not None and pids.run != server
        seen.append(pids.run)
        wait_until_gone(pids.run, 0.1)  # reaped before run_experiment returned
    assert seen[0] != seen[1]  # a fresh process for each run
    assert fork_servers() == [server]
    started = time.monotonic()
    run_experiment("test-slow", {"seconds": 0.0}, device="cpu")
    took = time.monotonic() - started
    print(f"a run on a warm server: {took:.2f} s")
    assert took < 1.0  # no `import torch` (1.5-2 s of CPU) in the way
    process.stop_server()
    wait_until_gone(server, 0.1)
    assert run_children() == []


def test_a_server_killed_between_runs_is_replaced_and_one_killed_mid_run_is_a_clear_error() -> None:
    process.prewarm()
    [server] = fork_servers(expect=1)
    os.kill(server, signal.SIGKILL)
    wait_until_gone(server, 2.0, reaped=False)
    again = run_experiment("test-slow", {"seconds": 0.0}, device="cpu")  # a new server
    assert again.answer("waited").value == 0.0
    [second] = fork_servers()
    assert second != server

    def kill_the_server(fraction: float, message: str) -> None:
        if fork_servers():
            os.kill(second, signal.SIGKILL)

    with pytest.raises(ExperimentFailed, match=r"the process running test-slow was killed"):
        run_experiment("test-slow", {"seconds": 5.0}, device="cpu", progress=kill_the_server)
    assert run_children() == []


def test_a_changed_environment_gets_a_server_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # A forked run must see exactly the environment a fresh child would (threads, paths).
    process.prewarm()
    [first] = fork_servers(expect=1)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    run_experiment("test-slow", {"seconds": 0.0}, device="cpu")
    [second] = fork_servers()
    assert second != first
    with open(f"/proc/{second}/environ", "rb") as environ:
        assert b"OMP_NUM_THREADS=3" in environ.read().split(b"\0")
    wait_until_gone(first, 1.0)


def test_a_worker_thread_starts_no_server_but_uses_a_running_one() -> None:
    # Linux ends a child when the thread that started it exits: a server started by a worker
    # would take later runs down with that worker.
    parents: list[int | None] = []

    def in_a_worker() -> None:
        pids = Pids()
        run_experiment("test-slow", {"seconds": 0.05}, device="cpu", progress=pids.progress)
        parents.append(pids.parent)

    worker = threading.Thread(target=in_a_worker)
    worker.start()
    worker.join()
    assert parents == [os.getpid()] and fork_servers() == []  # started fresh, no server
    process.prewarm()
    [server] = fork_servers(expect=1)
    worker = threading.Thread(target=in_a_worker)
    worker.start()
    worker.join()
    assert parents[1] == server


PARENT = textwrap.dedent(
    """
    from studykit.experiments import process
    from studykit.experiments.runner import run_experiment
    from tests.experiment_fixtures import SLOW, registered
    process.prewarm()
    with registered(SLOW):
        run_experiment("test-slow", {}, device="cpu", progress=lambda f, m: print("up", flush=True))
    """
)


def test_the_server_and_its_runs_end_when_the_parent_is_killed() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline() == "up\n"
        [server] = fork_servers(parent.pid)
        [run] = run_children(parent.pid)
        assert parent_of(run) == server
        parent.kill()
        parent.wait()
        wait_until_gone(server, 2.0, reaped=False)
        wait_until_gone(run, 2.0, reaped=False)
    finally:
        parent.kill()
        parent.wait()

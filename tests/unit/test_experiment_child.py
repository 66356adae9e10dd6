"""Each run in its own process: cancel, memory and time fences, crashes, no child left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import pytest

from studykit.experiments import process, registry
from studykit.experiments.base import Cancelled, Experiment, ExperimentFailed, ParamError
from studykit.experiments.budget import MIB, Budget, LimitExceeded, OverBudget, estimate
from studykit.experiments.params import validate
from studykit.experiments.runner import run_experiment
from tests.experiment_fixtures import (
    ALL,
    HOG,
    SIZED,
    SLOW,
    registered,
    run_children,
    wait_until_gone,
)
from tests.tiny_runs import TINY

pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def test_experiments() -> Iterator[None]:
    with registered(*ALL):
        yield


class Watch:
    """Progress callback that remembers the child's PID and when it first reported."""

    def __init__(self, *, cancel_after: int | None = None) -> None:
        self.pids: list[int] = []
        self.seen = 0
        self.cancel_after = cancel_after
        self.cancelled_at: float | None = None

    def progress(self, fraction: float, message: str) -> None:
        self.seen += 1
        if not self.pids:
            self.pids = run_children()

    def cancelled(self) -> bool:
        if self.cancel_after is not None and self.seen >= self.cancel_after:
            if self.cancelled_at is None:
                self.cancelled_at = time.monotonic()
            return True
        return False

    @property
    def pid(self) -> int:
        assert len(self.pids) == 1, self.pids
        return self.pids[0]

    def gone_within(self, timeout: float) -> None:
        """The run's process is gone within `timeout`; a fork server may have reaped a run that
        failed at once before its first report reached us, and then there is none to see."""
        assert len(self.pids) <= 1, self.pids
        for pid in self.pids:
            wait_until_gone(pid, timeout)


def test_the_run_happens_in_a_child_that_is_reaped() -> None:
    watch = Watch()
    result = run_experiment("test-slow", {"seconds": 0.2}, device="cpu", progress=watch.progress)
    assert result.answer("waited").value == 0.2
    assert watch.pid != os.getpid()
    wait_until_gone(watch.pid, 0.1)


@pytest.mark.parametrize("name", ["test-slow", "test-deaf"])
def test_cancel_lands_within_a_second_and_the_child_is_gone(name: str) -> None:
    # test-slow checks every 10 ms; test-deaf never checks, so it has to be terminated.
    watch = Watch(cancel_after=1)
    with pytest.raises(Cancelled):
        run_experiment(name, {}, device="cpu", progress=watch.progress, cancelled=watch.cancelled)
    assert watch.cancelled_at is not None
    took = time.monotonic() - watch.cancelled_at
    wait_until_gone(watch.pid, 0.05)
    print(f"{name}: cancel to child gone {took:.2f} s")
    assert took < 1.0


def test_a_run_over_its_memory_limit_is_a_clear_error() -> None:
    watch = Watch()
    with pytest.raises(LimitExceeded) as caught:
        run_experiment(
            HOG.name,
            {"mib": 4096},
            device="cpu",
            budget=Budget(bytes=512 * MIB),
            progress=watch.progress,
        )
    message = str(caught.value)
    assert "test-hog ran out of its memory budget of 512 MiB" in message
    assert "raise the budget" in message and "\n" not in message
    watch.gone_within(0.1)


def test_the_same_allocation_fits_a_budget_that_allows_it() -> None:
    result = run_experiment(HOG.name, {"mib": 512}, device="cpu", budget=Budget(bytes=1024 * MIB))
    assert result.answer("sum").value == 512 * (1 << 18)


def test_a_run_past_its_time_budget_is_stopped_by_its_wall_clock() -> None:
    watch = Watch()
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match=r"test-slow ran past its time budget of 1 s"):
        run_experiment(
            "test-slow", {}, device="cpu", budget=Budget(seconds=1), progress=watch.progress
        )
    print(f"time fence: {time.monotonic() - started:.2f} s after the start (not asserted)")
    wait_until_gone(watch.pid, 0.1)


def test_a_frozen_child_is_stopped_by_the_parents_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    # A stopped process runs no code, so its own wall clock cannot fire; ours must.
    monkeypatch.setattr(process, "STARTUP_ALLOWANCE_S", 10.0)
    monkeypatch.setattr(process, "REPORT_GRACE_S", 0.5)
    watch = Watch()

    def freeze(fraction: float, message: str) -> None:
        if not watch.pids:
            watch.progress(fraction, message)
            os.kill(watch.pid, signal.SIGSTOP)

    with pytest.raises(LimitExceeded, match=r"did not finish within 12 s"):
        run_experiment("test-slow", {}, device="cpu", budget=Budget(seconds=1.5), progress=freeze)
    wait_until_gone(watch.pid, 0.1)


def test_a_child_killed_by_a_signal_is_a_clear_error() -> None:
    with pytest.raises(
        ExperimentFailed, match=r"the process running test-crash crashed \(SIGSEGV\)"
    ):
        run_experiment("test-crash", {"how": "segfault"}, device="cpu")
    assert run_children() == []


def test_a_bug_in_a_run_function_is_one_line() -> None:
    with pytest.raises(ExperimentFailed) as caught:
        run_experiment("test-crash", {"how": "bug"}, device="cpu")
    assert str(caught.value) == "the run raised TypeError: a bug in the run function"


def test_over_budget_is_refused_before_any_process_starts() -> None:
    with pytest.raises(OverBudget) as caught:
        run_experiment(SIZED.name, {"size": 4, "steps": 90}, device="cpu")
    message = str(caught.value)
    assert "test-sized would need ~4.0 GiB, ~90 s, over the budget" in message
    assert "memory 4.0 GiB > 2.0 GiB; time 90 s > 60 s" in message
    assert "lower `size`, `steps`" in message
    assert run_children() == []
    fits = run_experiment(SIZED.name, {"size": 4}, device="cpu", budget=Budget(bytes=8 << 30))
    assert fits.answer("size").value == 4


@pytest.mark.parametrize("seed", [-1, 2**64, True])
def test_a_seed_outside_64_bits_is_a_parameter_error(seed: int) -> None:
    with pytest.raises(ParamError, match=r"seed must be an integer from 0 to 2\*\*64 - 1"):
        run_experiment("positional-encoding", {}, device="cpu", seed=seed)


def test_the_largest_seed_runs() -> None:
    result = run_experiment(
        "positional-encoding", {"positions": 4, "d_model": 2}, device="cpu", seed=2**64 - 1
    )
    assert result.seed == 2**64 - 1


def _local_run(params: object, ctx: object) -> object:
    raise AssertionError("replaced below")


def test_a_run_function_a_child_cannot_import_runs_here_with_a_warning() -> None:
    def run(params: object, ctx: object) -> object:
        return SLOW.run({"seconds": 0.0}, ctx)  # type: ignore[arg-type]

    local = Experiment("test-local", "Local", "Local.", (), run)  # type: ignore[arg-type]
    with registered(local), pytest.warns(RuntimeWarning, match="runs in this process"):
        result = run_experiment("test-local", {}, device="cpu")
    assert result.answer("waited").value == 0.0


PARENT = textwrap.dedent(
    """
    import sys
    from studykit.experiments.runner import run_experiment
    from tests.experiment_fixtures import SLOW, registered
    with registered(SLOW):
        run_experiment("test-slow", {}, device="cpu", progress=lambda f, m: print("up", flush=True))
    """
)


def test_a_child_whose_parent_is_killed_exits() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline() == "up\n"
        children = run_children(parent.pid)
        assert len(children) == 1, (
            children,
            os.popen(f"ps -o pid,ppid,stat,args --ppid {parent.pid}").read(),
        )
        [child] = children
        parent.kill()
        parent.wait()
        took = wait_until_gone(child, 1.0, reaped=False)  # init reaps it in its own time
        print(f"orphan dead after {took:.2f} s")
    finally:
        parent.kill()
        parent.wait()


def test_every_built_in_runs_tiny_under_a_small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # The address-space limit is what torch maps + the budget + slack for torch's own use.
    # A budget of exactly a tiny run's own estimate must carry it, even where the user set
    # 16 threads: each maps its own stack, so fewer threads only need less.
    monkeypatch.setenv("OMP_NUM_THREADS", "16")
    for name, params in TINY.items():
        experiment = registry.get(name)
        cost = estimate(experiment, validate(experiment, params))
        assert cost is not None
        budget = Budget(bytes=cost.peak_bytes, seconds=max(cost.seconds, 60.0))
        run_experiment(name, params, device="cpu", budget=budget)


def test_runs_never_import_torch_here() -> None:
    code = (
        "import sys\n"
        "from studykit.experiments.runner import run_experiment\n"
        "run_experiment('positional-encoding', {'positions': 4, 'd_model': 2}, device='cpu')\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

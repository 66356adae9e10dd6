"""The parent side of a run: start the child, relay its progress, cancel it, always reap it."""

from __future__ import annotations

import atexit
import os
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import IO, Final

from pydantic import ValidationError

import studykit
from studykit.experiments import forked
from studykit.experiments.base import CancelFn, Cancelled, ExperimentFailed, ProgressFn, Result
from studykit.experiments.budget import RAISE_HINT, LimitExceeded, describe_bytes
from studykit.experiments.forked import ForkedRun, ForkServer
from studykit.experiments.installed import torch_installed
from studykit.experiments.protocol import (
    CANCEL,
    MAX_LINE,
    Failed,
    Finished,
    Progress,
    Request,
    decode,
    error_from,
    first_problem,
)

STARTUP_ALLOWANCE_S: Final = 30.0  # `import torch` on a busy 2-core machine, with room to spare
REPORT_GRACE_S: Final = 2.0  # for the child's own wall clock to report before ours fires
CANCEL_GRACE_S: Final = 0.5
EXIT_GRACE_S: Final = 1.0
TERMINATE_GRACE_S: Final = 0.2
POLL_S: Final = 0.02
STDERR_TAIL: Final = 4096
_CRASH_SIGNALS: Final = {signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGILL}

Child = subprocess.Popen[bytes] | ForkedRun


def child_environment() -> dict[str, str]:
    """Our environment, with this studykit importable, glibc's malloc arenas capped and one
    torch thread (each where the user has not set their own)."""
    env = dict(os.environ)
    package_parent = str(Path(studykit.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    # Each arena reserves 64 MiB of address space per thread; RLIMIT_AS counts reservations.
    env.setdefault("MALLOC_ARENA_MAX", "2")
    # The runs are many small operations: a second thread gains at most 2x on a quiet
    # machine, while on a busy one its spin-waits made them 5-25x slower (calibrate_costs.py).
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def start_fresh() -> subprocess.Popen[bytes]:
    """A new child waiting for its request; in its own session so a terminal's Ctrl-C reaches
    only us, and we decide."""
    return subprocess.Popen(
        [sys.executable, "-m", "studykit.experiments.child", str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_environment(),
        start_new_session=True,
    )


_server_lock = threading.Lock()
_server: ForkServer | None = None
# What Python, torch, its thread pools, the allocator and CUDA read as a process starts: a
# server started under other values would fork runs unlike a fresh child, so it is replaced.
_STARTUP_VARIABLES: Final = (
    "PYTHON", "LD_", "MALLOC_", "OMP_", "GOMP_", "KMP_", "MKL_", "OPENBLAS_", "TORCH",
    "PYTORCH_", "CUDA_", "NVIDIA_",
)  # fmt: skip


def _startup(environment: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in environment.items() if k.startswith(_STARTUP_VARIABLES)}


def _server_for(environment: dict[str, str], *, start: bool) -> ForkServer | None:
    """The fork server for this environment, started if `start`; a stale one is ended."""
    global _server
    with _server_lock:
        if _server is not None and (
            not _server.alive() or _startup(_server.environment) != _startup(environment)
        ):
            _server.close()
            _server = None
        if _server is None and start and forked.supported():
            _server = ForkServer(environment)
        return _server


def prewarm() -> None:
    """Start the fork server now (it imports torch and waits), so the next run starts at once.

    Call it from the main thread: Linux ends a child when the thread that started it exits.
    """
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("prewarm() must be called from the main thread")
    _server_for(child_environment(), start=True)


def prewarm_if_useful() -> None:
    """`prewarm` where it helps and is allowed: on the main thread, with torch installed."""
    if threading.current_thread() is threading.main_thread() and torch_installed():
        prewarm()


def stop_server() -> None:
    """End and reap the fork server, if there is one (also run at exit)."""
    global _server
    with _server_lock:
        if _server is not None:
            _server.close()
            _server = None


def spawn() -> Child:
    """A child waiting for its request: forked by the fork server, else started fresh.

    Only the main thread starts a server (see `prewarm`); other threads use a running one.
    """
    main = threading.current_thread() is threading.main_thread()
    server = _server_for(child_environment(), start=main)
    run = server.fork() if server is not None else None
    return run if run is not None else start_fresh()


atexit.register(stop_server)


def stop(child: Child) -> None:
    """Terminate, then kill if need be, and reap; close the pipes. Safe to call twice.

    A run the fork server has not forked yet is not waited for: it is killed as it starts,
    and the server reaps it.
    """
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(TERMINATE_GRACE_S)
        except subprocess.TimeoutExpired:
            child.kill()
    if not isinstance(child, ForkedRun) or child.pid is not None:
        child.wait()
    for pipe in (child.stdin, child.stdout, child.stderr):
        if pipe is not None:
            pipe.close()


def run_child(
    request: Request,
    *,
    progress: ProgressFn | None = None,
    cancelled: CancelFn | None = None,
) -> Result:
    """Run `request` in the spare child or a new one; its Result, or its error."""
    child = spawn()
    try:
        return _Relay(child, replace(request, sys_path=list(sys.path)), progress, cancelled).run()
    finally:
        stop(child)


class _Relay:
    """Reads the child's lines, passes progress on, and watches cancel and the clock."""

    def __init__(
        self,
        child: Child,
        request: Request,
        progress: ProgressFn | None,
        cancelled: CancelFn | None,
    ) -> None:
        self.child = child
        self.request = request
        self.progress = progress
        self.cancelled = cancelled
        self.pending = bytearray()
        self.errors = bytearray()
        self.outcome: Result | Failed | None = None
        allowance = STARTUP_ALLOWANCE_S + request.budget_seconds + REPORT_GRACE_S
        self.allowance = allowance
        self.deadline = time.monotonic() + allowance

    def run(self) -> Result:
        """Relay until the child closes its output, then read what it said."""
        assert self.child.stdin is not None and self.child.stdout is not None
        assert self.child.stderr is not None
        _send(self.child.stdin, self.request.encode())
        streams: dict[int, IO[bytes]] = {
            self.child.stdout.fileno(): self.child.stdout,
            self.child.stderr.fileno(): self.child.stderr,
        }
        out = self.child.stdout.fileno()
        while out in streams and self.outcome is None:
            self._check_cancel()
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise LimitExceeded(
                    f"{self.request.name} did not finish within {self.allowance:.0f} s "
                    f"(its {self.request.budget_seconds:.0f} s budget plus start-up) and was "
                    f"stopped; lower its parameters or {RAISE_HINT}"
                )
            ready, _, _ = select.select(list(streams), [], [], min(POLL_S, remaining))
            for fd in ready:
                data = os.read(fd, 1 << 16)
                if not data:
                    del streams[fd]
                elif fd == out:
                    self._take(data)
                else:
                    self.errors = (self.errors + data)[-STDERR_TAIL:]
        try:
            self.child.wait(EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            stop(self.child)
        return self._verdict()

    def _check_cancel(self) -> None:
        if self.cancelled is None or not self.cancelled():
            return
        assert self.child.stdin is not None
        _send(self.child.stdin, CANCEL)  # the run raises Cancelled at its next check
        try:
            self.child.wait(CANCEL_GRACE_S)
        except subprocess.TimeoutExpired:
            stop(self.child)
        raise Cancelled("the experiment was cancelled")

    def _take(self, data: bytes) -> None:
        self.pending += data
        *lines, rest = self.pending.split(b"\n")
        if len(rest) > MAX_LINE:
            raise ExperimentFailed(f"{self.request.name}: the experiment process sent garbage")
        self.pending = bytearray(rest)
        for line in lines:
            self._message(bytes(line))

    def _message(self, line: bytes) -> None:
        name = self.request.name
        try:
            message = decode(line)
        except ValidationError as error:
            if error.errors()[0]["type"] != "json_invalid":
                raise ExperimentFailed(
                    f"{name}: unexpected message {line[:120]!r} ({first_problem(error)})"
                ) from None
            raise ExperimentFailed(
                f"{name}: the experiment process sent an unreadable line: {line[:120]!r}"
            ) from None
        if isinstance(message, Progress):
            fraction, text = message.progress
            if self.progress is not None:
                self.progress(fraction, text)
            self._check_cancel()
        elif isinstance(message, Finished):
            self.outcome = self._result(message)
        else:
            self.outcome = message

    def _result(self, message: Finished) -> Result:
        try:
            return Result.from_json(message.result)
        except ValueError as error:
            why = first_problem(error) if isinstance(error, ValidationError) else str(error)
            raise ExperimentFailed(
                f"{self.request.name}: the experiment process sent a malformed result ({why})"
            ) from None

    def _verdict(self) -> Result:
        if isinstance(self.outcome, Result):
            return self.outcome
        if self.outcome is not None:
            raise error_from(self.outcome.error)
        raise ExperimentFailed(self._death())

    def _death(self) -> str:
        """Why the child ended without a word, in one line."""
        code = self.child.returncode
        name = self.request.name
        if code is not None and code < 0:
            signame = signal.Signals(-code).name
            if -code == signal.SIGKILL:
                return (
                    f"the process running {name} was killed (SIGKILL), perhaps by the system "
                    f"for lack of memory; lower its parameters"
                )
            if -code in _CRASH_SIGNALS:
                return (
                    f"the process running {name} crashed ({signame}); if it ran out of its "
                    f"{describe_bytes(self.request.budget_bytes)} memory budget, lower its "
                    f"parameters or {RAISE_HINT}"
                )
            return f"the process running {name} was stopped by {signame}"
        last = next(
            (line for line in reversed(self.errors.decode(errors="replace").splitlines()) if line),
            "no message",
        )
        return f"the process running {name} exited with status {code}: {last.strip()[:300]}"


def _send(pipe: IO[bytes], data: bytes) -> None:
    """Write to the child; a child that already exited is handled by the exit-status check."""
    try:
        pipe.write(data)
        pipe.flush()
    except (BrokenPipeError, ValueError):
        pass

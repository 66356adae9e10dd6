"""The parent's side of the fork server: start it, ask it for runs, and hold each run's handle.

A `ForkedRun` answers the part of `subprocess.Popen` that `process.py` uses (pipes, poll,
wait, terminate, kill, returncode), so a forked run and a spawned one are relayed alike.
Signals go through a pidfd, which names exactly one process, never a reused pid.
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import BinaryIO, Final

from studykit.experiments.forkserver import FORK, MESSAGE_BYTES

STOP_GRACE_S: Final = 1.0


def supported() -> bool:
    """Whether this system can pass pipes and pidfds (Linux 5.3 and later)."""
    return hasattr(os, "pidfd_open") and hasattr(socket, "send_fds") and sys.platform == "linux"


def _signal(pidfd: int, number: int) -> None:
    """Signal the process behind `pidfd`; one that has just ended is being reaped already."""
    with contextlib.suppress(ProcessLookupError):
        signal.pidfd_send_signal(pidfd, number)


class ForkedRun:
    """One run forked by the server: its pipes, and its pid once the server has said it."""

    def __init__(self, server: ForkServer, stdin: int, stdout: int, stderr: int) -> None:
        self._server = server
        self.stdin: BinaryIO | None = os.fdopen(stdin, "wb")
        self.stdout: BinaryIO | None = os.fdopen(stdout, "rb", buffering=0)
        self.stderr: BinaryIO | None = os.fdopen(stderr, "rb", buffering=0)
        self.pid: int | None = None
        self.pidfd: int | None = None
        self.returncode: int | None = None
        self.pending_signal: int | None = None  # asked for before the pid came

    def poll(self) -> int | None:
        """The exit code once the server has reaped the run, else None."""
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The exit code; `subprocess.TimeoutExpired` after `timeout` seconds."""
        return self._server.wait_for(self, timeout)

    def send_signal(self, number: int) -> None:
        """Signal the run (at once, or as soon as it exists); a run already reaped is left."""
        self._server.signal(self, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class ForkServer:
    """A running fork server, the runs it was asked for, and a thread reading its replies."""

    def __init__(self, environment: dict[str, str]) -> None:
        self.environment = environment
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "studykit.experiments.forkserver",
                    str(os.getpid()),
                    str(theirs.fileno()),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                env=environment,
                start_new_session=True,
            )
        self._socket = ours
        self._changed = threading.Condition()
        self._asked: collections.deque[ForkedRun] = collections.deque()
        self._running: dict[int, ForkedRun] = {}
        self.closed = False
        threading.Thread(target=self._read, name="fork-server", daemon=True).start()

    def alive(self) -> bool:
        return not self.closed and self.process.poll() is None

    def fork(self) -> ForkedRun | None:
        """A new run on fresh pipes, or None if the server is gone."""
        in_read, in_write = os.pipe()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        run = ForkedRun(self, in_write, out_read, err_read)
        theirs = [in_read, out_write, err_write]
        try:
            with self._changed:
                if self.closed:
                    raise OSError("the fork server is gone")
                socket.send_fds(self._socket, [FORK], theirs)
                self._asked.append(run)
        except OSError:
            for pipe in (run.stdin, run.stdout, run.stderr):
                assert pipe is not None
                pipe.close()
            return None
        finally:
            for fd in theirs:
                os.close(fd)
        return run

    def signal(self, run: ForkedRun, number: int) -> None:
        with self._changed:
            if run.returncode is not None:
                return
            if run.pidfd is None:
                run.pending_signal = number
                return
            _signal(run.pidfd, number)

    def wait_for(self, run: ForkedRun, timeout: float | None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while run.returncode is None:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise subprocess.TimeoutExpired("experiment run", timeout or 0.0)
                self._changed.wait(left)
            return run.returncode

    def close(self) -> None:
        """End the server (its runs die with it) and reap it."""
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        self._reap()
        self._socket.close()

    def _read(self) -> None:
        """Match replies to runs until the server's end closes; then no run is waited for."""
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self._socket, MESSAGE_BYTES, 1)
            except OSError:
                message, fds = b"", []
            if not message:
                break
            with self._changed:
                self._take(message.decode().split(), fds)
                self._changed.notify_all()
        with self._changed:
            self.closed = True
            for run in [*self._asked, *self._running.values()]:
                self._ended(run, -signal.SIGKILL)  # they die with the server
            self._asked.clear()
            self._running.clear()
            self._changed.notify_all()
        self._reap()

    def _reap(self) -> None:
        """Reap the server, which has closed its end: it is exiting, or stuck and killed."""
        try:
            self.process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _take(self, words: list[str], fds: list[int]) -> None:
        if words[0] == "forked":
            run = self._asked.popleft()
            run.pid, run.pidfd = int(words[1]), fds[0]
            self._running[run.pid] = run
            if run.pending_signal is not None:
                _signal(run.pidfd, run.pending_signal)
        elif words[0] == "failed":
            self._ended(self._asked.popleft(), 1)
        elif words[0] == "exited":
            run = self._running.pop(int(words[1]))
            self._ended(run, int(words[2]))

    @staticmethod
    def _ended(run: ForkedRun, code: int) -> None:
        if run.returncode is None:
            run.returncode = code
        if run.pidfd is not None:
            os.close(run.pidfd)
            run.pidfd = None

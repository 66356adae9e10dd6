"""The fork server: `python -m studykit.experiments.forkserver PARENT_PID SOCKET_FD`.

It imports torch once, then forks one process per run, so a run starts in milliseconds
instead of paying `import torch` (1.5-2 s of CPU) each time. Each forked process is a run
child exactly as `child.py` describes, on the pipes the parent sent with its request.

On the socket (SOCK_SEQPACKET, one message each way per event):
- parent -> server: `fork`, carrying the run's stdin, stdout and stderr;
- server -> parent: `forked PID` carrying a pidfd, `failed` (why went to the run's stderr),
  and `exited PID CODE` once the server has reaped it (CODE as `Popen.returncode`).
The server ends when the parent closes the socket or dies; its runs die with it.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import sys
import traceback
from typing import Final

from studykit.experiments import fences
from studykit.experiments.child import preload, serve_stdio

FORK: Final = b"fork"
MESSAGE_BYTES: Final = 128


def _run_forked(server: socket.socket, running: dict[int, int], pipes: list[int]) -> None:
    """In the new process: become a run child on the parent's pipes; never returns."""
    code = 1
    try:
        server.close()
        for pidfd in running:
            os.close(pidfd)
        for number, fd in enumerate(pipes):
            os.dup2(fd, number)
            os.close(fd)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        code = serve_stdio(os.getppid())
        sys.stderr.flush()
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _fork(server: socket.socket, running: dict[int, int], pipes: list[int]) -> None:
    """Start one run on `pipes` and tell the parent its pid, or why it could not start."""
    try:
        pid = os.fork()
    except OSError as error:
        os.write(pipes[2], f"the run could not start: {error}\n".encode())
        server.send(b"failed")
        pid = -1
    if pid == 0:
        _run_forked(server, running, pipes)
    for fd in pipes:
        os.close(fd)
    if pid > 0:
        pidfd = os.pidfd_open(pid)  # before any reaping, so it names this very process
        running[pidfd] = pid
        socket.send_fds(server, [f"forked {pid}".encode()], [pidfd])


def _reap(server: socket.socket, running: dict[int, int], pidfd: int) -> None:
    pid = running.pop(pidfd)
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    server.send(f"exited {pid} {os.waitstatus_to_exitcode(status)}".encode())


def serve(server: socket.socket) -> int:
    """Fork on each request and report each exit, until the parent closes the socket."""
    running: dict[int, int] = {}  # pidfd -> pid
    while True:
        ready, _, _ = select.select([server.fileno(), *running], [], [])
        for fd in ready:
            if fd != server.fileno():
                _reap(server, running, fd)
                continue
            message, pipes, _, _ = socket.recv_fds(server, MESSAGE_BYTES, 3)
            if not message:
                return 0
            if message == FORK and len(pipes) == 3:
                _fork(server, running, pipes)
            else:
                for stray in pipes:
                    os.close(stray)


def main(argv: list[str]) -> int:
    """Import torch and the runner, then serve the parent named on the command line."""
    fences.die_with_parent(int(argv[1]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when runs end
    server = socket.socket(fileno=int(argv[2]))
    preload()
    try:
        return serve(server)
    except OSError:
        return 1  # the parent is gone mid-message; our runs die with us


if __name__ == "__main__":
    os._exit(main(sys.argv))

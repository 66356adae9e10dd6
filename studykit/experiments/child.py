"""The child process of one run: `python -m studykit.experiments.child PARENT_PID`.

Reads one Request line on stdin, then `cancel` lines; writes JSON lines (progress, then a
result or an error) on the stdout it was given. A closed stdin means the parent is gone.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import traceback
from dataclasses import replace
from typing import Any, BinaryIO, Final

from studykit.experiments import fences
from studykit.experiments.base import ExperimentError, ExperimentFailed, Result, RunFn
from studykit.experiments.budget import RAISE_HINT, LimitExceeded, describe_bytes
from studykit.experiments.protocol import (
    CANCEL,
    MAX_LINE,
    Failed,
    Finished,
    Progress,
    Request,
    encode,
    error_message,
)

EXIT_ERROR: Final = 1
EXIT_ORPHANED: Final = 3
EXIT_TIME: Final = 4
EXIT_MEMORY: Final = 5
# How running out of address space shows up: torch's allocator, C++, CUDA, threads, dlopen.
_MEMORY_WORDS: Final = (
    "allocate memory",
    "bad_alloc",
    "out of memory",
    "can't start new thread",
    "failed to map segment",
)


class Channel:
    """The protocol pipe: whole lines, one writer at a time (the wall clock writes too)."""

    def __init__(self, fd: int) -> None:
        self._file: BinaryIO = os.fdopen(fd, "wb", buffering=0)
        self._lock = threading.Lock()

    def send(self, message: Progress | Finished | Failed) -> None:
        """Write one JSON line."""
        data = encode(message)
        with self._lock:
            self._file.write(data)


def resolve(target: str) -> RunFn:
    """The run function named `module:qualname`."""
    module_name, _, qualname = target.partition(":")
    found: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        found = getattr(found, part)
    if not callable(found):
        raise ExperimentFailed(f"{target} is not a function")
    run: RunFn = found
    return run


def _watch_parent(cancel: threading.Event) -> None:
    """`cancel` lines set the event; end of input means the parent is gone, so exit now."""
    for line in sys.stdin.buffer:
        if line == CANCEL:
            cancel.set()
    os._exit(EXIT_ORPHANED)


def _memory_error(error: BaseException) -> bool:
    cause = error.__cause__ or error
    return isinstance(cause, MemoryError) or any(w in str(cause) for w in _MEMORY_WORDS)


def serve(request: Request, channel: Channel, cancel: threading.Event) -> Result:
    """Load torch and the run function, set the limits, run, and return the Result."""
    from studykit.experiments.device import load_torch, resolve_device
    from studykit.experiments.runner import execute

    sys.path[:0] = [p for p in request.sys_path if p not in sys.path]
    torch = load_torch()
    run = resolve(request.target)
    device = resolve_device(request.device, torch)

    def out_of_time() -> None:
        message = (
            f"{request.name} ran past its time budget of {request.budget_seconds:.0f} s and "
            f"was stopped; lower its parameters or {RAISE_HINT}"
        )
        channel.send(error_message(LimitExceeded(message)))
        os._exit(EXIT_TIME)

    fences.start_wall_clock(request.budget_seconds, out_of_time)  # a thread: before the limit
    budget = describe_bytes(request.budget_bytes)
    if device == "cpu":
        _watch_memory(request, channel)
        limit = fences.limit_memory(request.budget_bytes, torch)
        where = f"{budget} (the whole process; address space {describe_bytes(limit)})"
    else:
        fences.cap_gpu_memory(request.budget_bytes, torch)
        where = f"{budget} of GPU memory"
    try:
        result = execute(
            request.name,
            run,
            request.params,
            device=device,
            seed=request.seed,
            progress=lambda fraction, text: channel.send(Progress(progress=(fraction, text))),
            cancelled=cancel.is_set,
        )
    except Exception as error:
        if not _memory_error(error):
            raise
        raise LimitExceeded(
            f"{request.name} ran out of its memory budget of {where} and was stopped; "
            f"lower its parameters or {RAISE_HINT}"
        ) from error
    return replace(result, peak_bytes=fences.peak_resident_bytes())


def _watch_memory(request: Request, channel: Channel) -> None:
    """Stop the run once the whole process is resident beyond its budget (torch included)."""
    budget = describe_bytes(request.budget_bytes)
    before = fences.resident_bytes()
    if before > request.budget_bytes:
        raise LimitExceeded(
            f"{request.name} cannot start within a memory budget of {budget}: the process "
            f"holds {describe_bytes(before)} (Python and torch) before the run begins; "
            f"{RAISE_HINT}"
        )

    def over(resident: int) -> None:
        message = (
            f"{request.name} ran out of its memory budget of {budget} (the whole process, "
            f"torch's own {describe_bytes(before)} included; it reached "
            f"{describe_bytes(resident)}) and was stopped; lower its parameters or {RAISE_HINT}"
        )
        channel.send(error_message(LimitExceeded(message)))
        os._exit(EXIT_MEMORY)

    fences.watch_memory(request.budget_bytes, over)


def preload() -> None:
    """Import torch and the runner before the request comes, so a spare child is ready."""
    try:
        importlib.import_module("torch")
        importlib.import_module("studykit.experiments.runner")
    except ImportError:
        pass  # `serve` reports it, once there is someone to tell


def main(argv: list[str]) -> int:
    """Serve one request; the exit status is 0 after a result, non-zero after an error."""
    return serve_stdio(int(argv[1]))


def serve_stdio(parent_pid: int) -> int:
    """Serve one request on stdin and stdout, dying with `parent_pid` (forked runs start here)."""
    fences.die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when this run ends
    channel = Channel(os.dup(1))
    os.dup2(2, 1)  # stray prints from torch or a run go to stderr, not into the protocol
    preload()
    line = sys.stdin.buffer.readline(MAX_LINE)
    if not line:
        return EXIT_ORPHANED
    cancel = threading.Event()
    threading.Thread(target=_watch_parent, args=(cancel,), daemon=True).start()
    try:
        result = serve(Request.decode(line), channel, cancel)
        channel.send(Finished(result=result.to_json()))
    except ExperimentError as error:
        channel.send(error_message(error))
        return EXIT_ERROR
    except Exception as error:  # a bug in a run function: one line to the parent, all to stderr
        traceback.print_exc()
        failed = ExperimentFailed(f"the run raised {type(error).__name__}: {error}")
        channel.send(error_message(failed))
        return EXIT_ERROR
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stderr.flush()
    os._exit(code)  # no interpreter teardown: torch's takes a second and the answer is sent

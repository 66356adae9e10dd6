"""One serialized worker per screen: flow calls run in order off the UI thread."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from textual.dom import DOMNode
from textual.message import Message

from studykit.study.flow import FlowResult
from studykit.tui.messages import FlowDone, WorkerFailed

FLOW_WORKER = "study-flow"
T = TypeVar("T")


class SerialRunner(Generic[T]):
    """Queue calls; one thread worker runs them in order and posts `done(result)` for each."""

    def __init__(self, node: DOMNode, done: Callable[[T], Message]) -> None:
        self._node = node
        self._done = done
        self._lock = threading.Lock()
        self._pending: deque[tuple[str, Callable[[], T]]] = deque()
        self._running = False

    @property
    def busy(self) -> bool:
        """True while a call is queued or running."""
        with self._lock:
            return self._running

    def submit(self, title: str, call: Callable[[], T]) -> None:
        """Run `call` after those before it: `done` with its result, or WorkerFailed(title)."""
        with self._lock:
            self._pending.append((title, call))
            if self._running:
                return
            self._running = True
        self._node.run_worker(
            self._drain, thread=True, group="flow", name=FLOW_WORKER, exit_on_error=False
        )

    def _drain(self) -> None:
        """Run queued calls until none is left (in the worker thread)."""
        while True:
            with self._lock:
                if not self._pending:
                    self._running = False
                    return
                title, call = self._pending.popleft()
            try:
                result = call()
            except Exception as error:  # every failure is shown; the next call still runs
                self._node.post_message(WorkerFailed(title, error))
            else:
                self._node.post_message(self._done(result))


class FlowRunner(SerialRunner[FlowResult | None]):
    """A SerialRunner of study-flow calls, posting FlowDone."""

    def __init__(self, node: DOMNode) -> None:
        super().__init__(node, FlowDone)

"""One serialized worker per screen: flow calls run in order off the UI thread."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.dom import DOMNode

from studykit.tui.messages import FlowDone, WorkerFailed

if TYPE_CHECKING:
    from studykit.flow import FlowResult

FLOW_WORKER = "study-flow"
Call = Callable[[], "FlowResult | None"]


class FlowRunner:
    """Queue flow calls; one thread worker runs them in order and posts typed messages."""

    def __init__(self, node: DOMNode) -> None:
        self._node = node
        self._lock = threading.Lock()
        self._pending: deque[tuple[str, Call]] = deque()
        self._running = False

    @property
    def busy(self) -> bool:
        """True while a call is queued or running."""
        with self._lock:
            return self._running

    def submit(self, title: str, call: Call) -> None:
        """Run `call` after those before it: FlowDone with its result, or WorkerFailed(title)."""
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
                self._node.post_message(FlowDone(result))

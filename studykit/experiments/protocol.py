"""What the parent and the child of a run say to each other: one JSON object per line."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any, Final

from studykit.experiments.base import (
    Cancelled,
    DeviceUnavailable,
    Experiment,
    ExperimentError,
    ExperimentFailed,
    ParamError,
    Params,
    TorchMissing,
)
from studykit.experiments.budget import LimitExceeded

CANCEL: Final = b"cancel\n"
MAX_LINE: Final = 64 << 20  # a result with plot series is well under this; more is garbage


@dataclass(frozen=True)
class Request:
    """One run for the child: which function, with what, and within which limits."""

    name: str
    target: str  # "module:qualname" of the experiment's run function
    params: Params
    device: str
    seed: int
    budget_bytes: int
    budget_seconds: float
    sys_path: list[str] = field(default_factory=list)

    def encode(self) -> bytes:
        """One line of JSON."""
        return (json.dumps(self.__dict__) + "\n").encode()

    @classmethod
    def decode(cls, line: bytes) -> Request:
        """The inverse of `encode`."""
        return cls(**json.loads(line))


def target_of(experiment: Experiment) -> str | None:
    """`module:qualname` of the run function when a fresh Python can import it, else None."""
    run = experiment.run
    module = getattr(run, "__module__", None)
    qualname = getattr(run, "__qualname__", "")
    if not module or module == "__main__" or "<" in qualname:
        return None
    spec = getattr(sys.modules.get(module), "__spec__", None)
    if spec is None or spec.origin is None:
        return None
    return f"{module}:{qualname}"


# Error kinds on the wire, and the exception each becomes in the parent.
_KINDS: Final[dict[str, type[ExperimentError]]] = {
    "cancelled": Cancelled,
    "param": ParamError,
    "device": DeviceUnavailable,
    "limit": LimitExceeded,
    "failed": ExperimentFailed,
}


def error_message(error: ExperimentError) -> dict[str, Any]:
    """The message the child sends for an error it caught."""
    if isinstance(error, TorchMissing):
        kind = "torch"
    else:
        kind = next((k for k, c in _KINDS.items() if isinstance(error, c)), "failed")
    return {"error": {"kind": kind, "message": str(error)}}


def error_from(message: Any) -> ExperimentError:
    """The exception for an error message from the child."""
    if not isinstance(message, dict):
        return ExperimentFailed(f"the experiment process sent a malformed error: {message!r:.200}")
    kind, text = message.get("kind"), str(message.get("message", ""))
    if kind == "torch":
        return TorchMissing()
    return _KINDS.get(str(kind), ExperimentFailed)(text)

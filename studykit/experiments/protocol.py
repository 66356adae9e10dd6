"""What the parent and the child of a run say to each other: one JSON object per line.

The child's lines are a union told apart by their one key: `{"progress": [fraction, text]}`,
`{"result": {...}}` (a Result's JSON) or `{"error": {"kind": ..., "message": ...}}`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Discriminator, Tag, TypeAdapter, ValidationError

from studykit.core.jsontypes import JsonObject
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
        """The inverse of `encode` (a ValidationError names a field of the wrong shape)."""
        return _REQUEST.validate_json(line)


_REQUEST: Final = TypeAdapter(Request)


class Progress(BaseModel):
    """How far the run is (0..1), and what it is doing."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    progress: tuple[float, str]


class Finished(BaseModel):
    """The run's Result as JSON (`Result.to_json`; the parent reads it with `from_json`)."""

    # A plot's x may hold inf: written as `json.dumps` writes it, so the parent reads it back.
    model_config = ConfigDict(frozen=True, extra="forbid", ser_json_inf_nan="constants")
    result: JsonObject


class ErrorBody(BaseModel):
    """An error the child caught: its kind on the wire (see `_KINDS`) and its one line."""

    model_config = ConfigDict(frozen=True)
    kind: str
    message: str = ""


class Failed(BaseModel):
    """The run ended in an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    error: ErrorBody


def _key(message: object) -> str | None:
    if isinstance(message, dict) and len(message) == 1:
        return str(next(iter(message)))
    return None


Message = Annotated[
    Annotated[Progress, Tag("progress")]
    | Annotated[Finished, Tag("result")]
    | Annotated[Failed, Tag("error")],
    Discriminator(_key),
]
_MESSAGE: Final = TypeAdapter[Message](Message)


def encode(message: Progress | Finished | Failed) -> bytes:
    """One line of JSON."""
    return message.model_dump_json().encode() + b"\n"


def decode(line: bytes) -> Progress | Finished | Failed:
    """A line from the child; ValueError (ValidationError for a wrong shape) when it is none."""
    return _MESSAGE.validate_json(line)


def first_problem(error: ValidationError) -> str:
    """The first thing wrong with a message, in one line."""
    problem = error.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in problem["loc"])
    return f"{where}: {problem['msg']}" if where else str(problem["msg"])


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


def error_message(error: ExperimentError) -> Failed:
    """The message the child sends for an error it caught."""
    if isinstance(error, TorchMissing):
        kind = "torch"
    else:
        kind = next((k for k, c in _KINDS.items() if isinstance(error, c)), "failed")
    return Failed(error=ErrorBody(kind=kind, message=str(error)))


def error_from(body: ErrorBody) -> ExperimentError:
    """The exception for an error message from the child (an unknown kind: ExperimentFailed)."""
    if body.kind == "torch":
        return TorchMissing()
    return _KINDS.get(body.kind, ExperimentFailed)(body.message)

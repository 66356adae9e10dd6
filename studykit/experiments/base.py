"""The experiment contract: parameter specs, the run context, and the result."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from studykit.core.jsontypes import JsonObject

# The errors live apart (settings name them without this contract); importable from here too.
from studykit.experiments.errors import Cancelled as Cancelled
from studykit.experiments.errors import DeviceUnavailable as DeviceUnavailable
from studykit.experiments.errors import ExperimentError as ExperimentError
from studykit.experiments.errors import ExperimentFailed as ExperimentFailed
from studykit.experiments.errors import ParamError as ParamError
from studykit.experiments.errors import TorchMissing as TorchMissing
from studykit.experiments.errors import UnknownExperiment as UnknownExperiment

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, TypeAdapter
    from pydantic_core import CoreSchema

ParamKind = Literal["float", "int", "bool", "choice"]
Value = float | int | bool | str
Params = dict[str, Value]
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Param:
    """One parameter: its type, default, valid range or choices, and help text."""

    name: str
    kind: ParamKind
    default: Value
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    unit: str = ""

    def describe_range(self) -> str:
        """The valid values in words, e.g. `0 < gamma < 1` or `one of rnn, lstm`."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        noun = "an integer" if self.kind == "int" else "a number"
        parts = []
        if self.low is not None:
            parts.append(f"{_num(self.low)} {'<' if self.low_open else '≤'} ")
        parts.append(self.name)
        if self.high is not None:
            parts.append(f" {'<' if self.high_open else '≤'} {_num(self.high)}")
        return f"{noun}, {''.join(parts)}" if len(parts) > 1 else noun


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(value)


ProgressFn = Callable[[float, str], None]
CancelFn = Callable[[], bool]


@dataclass
class RunContext:
    """What a run gets besides its parameters: device, seed, progress and a cancel check."""

    device: str
    seed: int
    progress: ProgressFn | None = None
    cancelled: CancelFn | None = None

    def check(self) -> None:
        """Raise Cancelled when the cancel check says so; runs call this inside their loops."""
        if self.cancelled is not None and self.cancelled():
            raise Cancelled("the experiment was cancelled")

    def step(self, fraction: float, message: str = "") -> None:
        """Report progress (0..1) and honour a pending cancel."""
        self.check()
        if self.progress is not None:
            self.progress(min(1.0, max(0.0, fraction)), message)


def _json_number(value: float | int | str) -> float | int | str:
    """JSON has no inf/nan: write them as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _from_json_number(value: object) -> object:
    if value in ("inf", "-inf", "nan"):
        return float(str(value))
    return value


class _InfNanAsText:
    """Pydantic metadata for a number in a result: inf and nan travel as "inf", "-inf", "nan"
    (the JSON of every cached result says so)."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(
            _from_json_number,
            handler(source),
            serialization=core_schema.plain_serializer_function_ser_schema(_json_number),
        )


Number = Annotated[float | int | str, _InfNanAsText]
Measured = Annotated[float, _InfNanAsText]


@dataclass(frozen=True)
class Answer:
    """A named number the experiment measured (with its unit where it has one)."""

    key: str
    label: str
    value: Number
    unit: str = ""

    def text(self) -> str:
        """The value with its unit, for people."""
        return f"{format_value(self.value)}{' ' + self.unit if self.unit else ''}"


def format_value(value: float | int | str) -> str:
    """Numbers in a compact form: integers as is, others with 4 significant digits."""
    if isinstance(value, str | int):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e6):
        return f"{value:.3e}"
    return f"{value:.4g}"


@dataclass(frozen=True)
class Series:
    """One line of a plot."""

    label: str
    x: tuple[float, ...]
    y: tuple[Measured, ...]


@dataclass(frozen=True)
class Plot:
    """Series to draw on one set of axes; `log_y` draws the y axis in powers of ten."""

    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    log_y: bool = False


@dataclass(frozen=True)
class Table:
    """A small table: headers and rows of cells."""

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Outcome:
    """What an experiment's run function returns."""

    answers: tuple[Answer, ...]
    explanation: str
    plot: Plot | None = None
    table: Table | None = None


@dataclass(frozen=True)
class Result:
    """An outcome with the inputs that produced it, how long it took, and on what."""

    name: str
    params: Params
    seed: int
    device: str
    torch_version: str
    elapsed_s: float
    outcome: Outcome
    machine: str = ""
    cached: bool = field(default=False, compare=False)
    # The run's process at its fullest (Python and torch included); 0 where not measured.
    peak_bytes: int = field(default=0, compare=False)

    def answer(self, key: str) -> Answer:
        """One answer by key (KeyError naming the known keys if absent)."""
        for answer in self.outcome.answers:
            if answer.key == key:
                return answer
        known = ", ".join(a.key for a in self.outcome.answers)
        raise KeyError(f"no answer {key!r}; answers: {known}")

    def to_json(self) -> JsonObject:
        """A JSON-ready dict (the cache and `--json` both use it): the outcome's fields at the
        top level, inf and nan as strings, `cached` left out."""
        document: JsonObject = _result_adapter().dump_python(self, mode="json", exclude={"cached"})
        document.update(document.pop("outcome"))
        return document

    @classmethod
    def from_json(cls, data: Mapping[str, object], *, cached: bool = False) -> Result:
        """The inverse of `to_json`; a ValueError (pydantic's ValidationError) names what is
        missing or malformed. Unknown keys are ignored."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a result is a JSON object, not {type(data).__name__}")
        fields = {key: value for key, value in data.items() if key not in _OUTCOME_KEYS}
        outcome = {key: data[key] for key in _OUTCOME_KEYS if key in data}
        return _result_adapter().validate_python({**fields, "outcome": outcome, "cached": cached})


_OUTCOME_KEYS: Final = ("answers", "explanation", "plot", "table")


@functools.cache
def _result_adapter() -> TypeAdapter[Result]:
    # Built on first use: pydantic and the schema stay off the import of this contract.
    from pydantic import TypeAdapter

    return TypeAdapter(Result)


RunFn = Callable[[Params, RunContext], Outcome]


@dataclass(frozen=True)
class Cost:
    """What a run is expected to take, estimated before it starts (no torch needed).

    `peak_bytes` is the run's whole process at its fullest: Python and torch (a few hundred
    MiB), the torch parts the experiment loads, and its tensors. `seconds` is the run's
    wall time on this CPU, erring high. `fixed_bytes` and `fixed_seconds` are the parts no
    parameter can lower; `drivers` names the parameters that drive the rest, largest
    first, so a refusal can say which ones to lower.
    """

    peak_bytes: int
    seconds: float
    drivers: tuple[str, ...] = ()
    fixed_bytes: int = 0
    fixed_seconds: float = 0.0


EstimateFn = Callable[[Params], Cost]


@dataclass(frozen=True)
class ClosedForm:
    """What a named answer should equal: a safe expression over the experiment's parameters.

    `when` limits it to runs whose parameters have these values (e.g. `init` = `zeroed`),
    the set-ups where the measurement really equals the formula.
    """

    answer: str
    expr: str
    rel_tol: float = 1e-9
    abs_tol: float = 0.0
    when: tuple[tuple[str, Value], ...] = ()

    def applies(self, params: Mapping[str, Value]) -> bool:
        """Whether a run with these (validated) parameters should agree with it."""
        return all(params.get(name) == value for name, value in self.when)


@dataclass(frozen=True)
class Experiment:
    """A registered experiment: its name, what it shows, its parameters and its run function."""

    name: str
    title: str
    summary: str
    params: tuple[Param, ...]
    run: RunFn
    closed_forms: tuple[ClosedForm, ...] = ()
    estimate: EstimateFn | None = None

    def param(self, name: str) -> Param | None:
        """The parameter called `name` (or with that alias)."""
        for param in self.params:
            if name == param.name or name in param.aliases:
                return param
        return None

    def defaults(self) -> Params:
        """Every parameter at its default."""
        return {p.name: p.default for p in self.params}

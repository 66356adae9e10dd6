"""A parameter form that checks each value as it is typed and shows the run's estimate."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Select, Static, Switch

from studykit.experiments.base import (
    Cost,
    Experiment,
    ExperimentError,
    Param,
    ParamError,
    Params,
    Value,
)
from studykit.experiments.budget import (
    Budget,
    describe_bytes,
    describe_cost,
    estimate,
    over_budget,
)
from studykit.experiments.params import convert

CUDA_CHECKING: Final = "still checking whether this machine can use CUDA"


def device_choices(cuda: str | None) -> list[tuple[str, str]]:
    """The device options: cuda only when `cuda` (the reason it cannot be used) is None."""
    names = ("auto", "cpu", "cuda") if cuda is None else ("auto", "cpu")
    return [(name, name) for name in names]


def device_help(cuda: str | None) -> str:
    """What `auto` means here, or why cuda is not offered."""
    if cuda is None:
        return "CUDA can be used here; auto picks it"
    if cuda == CUDA_CHECKING:
        return "checking whether CUDA can be used here…"
    return f"no cuda: {cuda}"


def budget_problem(experiment: Experiment, cost: Cost, budget: Budget) -> str | None:
    """Why the estimate does not fit the budget, in the form's words (no command-line flags)."""
    if over_budget(experiment, cost, budget) is None:
        return None
    over = []
    if cost.peak_bytes > budget.bytes:
        over.append(f"memory > {describe_bytes(budget.bytes)}")
    if cost.seconds > budget.seconds:
        over.append(f"time > {budget.seconds:.0f} s")
    lower = ", ".join(cost.drivers) or "the parameters"
    return f"over the budget ({', '.join(over) or 'limit'}); lower {lower} to run it"


class ExperimentForm(Vertical):
    """One row per parameter plus device and seed; `values()` is None while anything is invalid."""

    @dataclass
    class Changed(Message):
        """The form's values changed; `runnable` says whether Run may start them."""

        form: ExperimentForm
        runnable: bool

    def __init__(
        self,
        experiment: Experiment,
        *,
        initial: Mapping[str, Value] | None = None,
        budget: Budget | None = None,
        cuda: str | None = CUDA_CHECKING,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.experiment = experiment
        self.initial = dict(initial or {})
        self.budget = budget or Budget()
        self.cuda = cuda
        self.errors: dict[str, str] = {}
        self.cost: Cost | None = None
        self.problem: str | None = None  # why the estimate does not fit the budget
        self._told = True  # what the last Changed message said

    @property
    def runnable(self) -> bool:
        """Every value is valid and the estimate fits the budget."""
        return not self.errors and self.problem is None

    def _start_value(self, param: Param) -> Value:
        """What the field shows first: the value a note or card linked with, else the default."""
        return self.initial.get(param.name, param.default)

    def compose(self) -> ComposeResult:
        for param in self.experiment.params:
            with Horizontal(classes="param-row"):
                yield Label(param.name, classes="param-name")
                start = self._start_value(param)
                if param.kind == "choice":
                    yield Select(
                        [(c, c) for c in param.choices],
                        value=str(start),
                        allow_blank=False,
                        id=f"param-{param.name}",
                    )
                elif param.kind == "bool":
                    yield Switch(value=bool(start), id=f"param-{param.name}")
                else:
                    yield Input(str(start), id=f"param-{param.name}")
                yield Static(_help(param), classes="param-help", markup=False)
            yield Static("", id=f"error-{param.name}", classes="param-error", markup=False)
        with Horizontal(classes="param-row"):
            yield Label("device", classes="param-name")
            yield Select(
                device_choices(self.cuda), value="auto", allow_blank=False, id="param-device"
            )
            yield Static("where it runs", classes="param-help")
        yield Static(device_help(self.cuda), id="device-help", markup=False)
        with Horizontal(classes="param-row"):
            yield Label("seed", classes="param-name")
            yield Input("0", id="param-seed")
            yield Static("an integer", classes="param-help")
        yield Static("", id="error-seed", classes="param-error", markup=False)
        yield Static("", id="experiment-estimate", markup=False)

    def on_mount(self) -> None:
        self._refresh_estimate(always=True)

    def set_cuda(self, reason: str | None) -> None:
        """Offer cuda (reason None) or say why not; the chosen device stays where it can."""
        self.cuda = reason
        select: Select[str] = self.query_one("#param-device", Select)
        chosen = select.value
        options = device_choices(reason)
        select.set_options(options)
        if any(chosen == value for _, value in options):
            select.value = str(chosen)
        self.query_one("#device-help", Static).update(device_help(reason))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        # The field's value now, not the event's: keys typed fast change it again before
        # this runs, and the estimate below reads the fields as they are now.
        self._check(event.input.id or "", event.input.value)

    def on_switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        self._refresh_estimate()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._refresh_estimate()

    def _check(self, widget_id: str, text: str) -> None:
        name = widget_id.removeprefix("param-")
        message = ""
        if name == "seed":
            message = _seed_problem(text) or ""
        else:
            param = self.experiment.param(name)
            if param is None:
                return
            try:
                convert(param, text)
            except ParamError as error:
                message = str(error)
        if message:
            self.errors[name] = message
        else:
            self.errors.pop(name, None)
        error_line = self.query_one(f"#error-{name}", Static)
        error_line.update(message)
        error_line.set_class(bool(message), "-shown")
        self.query_one(f"#param-{name}").set_class(bool(message), "-invalid")
        self._refresh_estimate()

    def _refresh_estimate(self, *, always: bool = False) -> None:
        """Recompute the estimate for the current values and tell the screen if Run changes."""
        line = self.query_one("#experiment-estimate", Static)
        self.cost, self.problem = None, None
        params = self.params()
        if params is None:
            line.update("estimate: fix the parameters first")
        else:
            try:
                self.cost = estimate(self.experiment, params)
            except (ExperimentError, ValueError, ArithmeticError) as error:
                line.update(f"estimate failed: {error}")
            else:
                if self.cost is None:
                    line.update("estimate: unknown")
                else:
                    self.problem = budget_problem(self.experiment, self.cost, self.budget)
                    suffix = f" — {self.problem}" if self.problem else ""
                    line.update(f"estimate: {describe_cost(self.cost)}{suffix}")
        line.set_class(self.problem is not None, "-over")
        if always or self._told != self.runnable:
            self._told = self.runnable
            self.post_message(self.Changed(self, self.runnable))

    def params(self) -> Params | None:
        """The experiment's parameters when every field holds a valid value now, else None.

        Never raises: a field may have changed since its last check (typing is faster than
        the checks), and then its message comes with the next one.
        """
        if any(name != "seed" for name in self.errors):
            return None
        params: Params = {}
        for param in self.experiment.params:
            widget = self.query_one(f"#param-{param.name}")
            raw = widget.value if isinstance(widget, Input | Select | Switch) else None
            try:
                params[param.name] = convert(param, raw)
            except ParamError:
                return None
        return params

    def values(self) -> tuple[Params, str, int] | None:
        """(params, device, seed) when every field is valid now, else None."""
        params = self.params()
        seed = self.query_one("#param-seed", Input).value
        if params is None or self.errors or _seed_problem(seed) is not None:
            return None
        device = self.query_one("#param-device", Select).value
        return params, str(device), int(seed.strip())


def _seed_problem(text: str) -> str | None:
    """Why `text` is no seed, or None when it is one."""
    if text.strip().lstrip("-").isdigit():
        return None
    return f"seed must be an integer; got {text!r}"


def _help(param: Param) -> str:
    """The help shown beside a field: its range, or for a switch or choice its meaning."""
    if param.kind in ("bool", "choice"):
        return param.help
    return param.describe_range()

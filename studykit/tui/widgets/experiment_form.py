"""A parameter form that checks each value as it is typed."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Select, Static

from studykit.experiments.base import Experiment, Param, ParamError, Value
from studykit.experiments.params import convert


class ExperimentForm(Vertical):
    """One row per parameter plus device and seed; `values()` is None while anything is invalid."""

    class Validity(Message):
        """The form became valid or invalid."""

        def __init__(self, valid: bool) -> None:
            super().__init__()
            self.valid = valid

    def __init__(
        self,
        experiment: Experiment,
        *,
        initial: Mapping[str, Value] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.experiment = experiment
        self.initial = dict(initial or {})
        self.errors: dict[str, str] = {}

    def _start_value(self, param: Param) -> Value:
        """What the field shows first: the value a note or card linked with, else the default."""
        return self.initial.get(param.name, param.default)

    def compose(self) -> ComposeResult:
        for param in self.experiment.params:
            with Horizontal(classes="param-row"):
                yield Label(param.name, classes="param-name")
                if param.kind == "choice":
                    yield Select(
                        [(c, c) for c in param.choices],
                        value=str(self._start_value(param)),
                        allow_blank=False,
                        id=f"param-{param.name}",
                    )
                else:
                    start = str(self._start_value(param))
                    yield Input(
                        start.lower() if param.kind == "bool" else start,
                        id=f"param-{param.name}",
                    )
                yield Static(param.describe_range(), classes="param-help", markup=False)
            yield Static("", id=f"error-{param.name}", classes="param-error", markup=False)
        with Horizontal(classes="param-row"):
            yield Label("device", classes="param-name")
            yield Select(
                [(d, d) for d in ("auto", "cpu", "cuda")],
                value="auto",
                allow_blank=False,
                id="param-device",
            )
            yield Static("auto: cuda when available", classes="param-help")
        with Horizontal(classes="param-row"):
            yield Label("seed", classes="param-name")
            yield Input("0", id="param-seed")
            yield Static("an integer", classes="param-help")
        yield Static("", id="error-seed", classes="param-error", markup=False)

    def _param_for(self, widget_id: str | None) -> Param | None:
        name = (widget_id or "").removeprefix("param-")
        return self.experiment.param(name)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._check(event.input.id or "", event.value)

    def _check(self, widget_id: str, text: str) -> None:
        name = widget_id.removeprefix("param-")
        message = ""
        if name == "seed":
            if not text.strip().lstrip("-").isdigit():
                message = f"seed must be an integer; got {text!r}"
        else:
            param = self._param_for(widget_id)
            if param is None:
                return
            try:
                convert(param, text)
            except ParamError as error:
                message = str(error)
        was_valid = not self.errors
        if message:
            self.errors[name] = message
        else:
            self.errors.pop(name, None)
        error_line = self.query_one(f"#error-{name}", Static)
        error_line.update(message)
        error_line.set_class(bool(message), "-shown")
        self.query_one(f"#param-{name}").set_class(bool(message), "-invalid")
        if was_valid != (not self.errors):
            self.post_message(self.Validity(not self.errors))

    def values(self) -> tuple[dict[str, Value], str, int] | None:
        """(params, device, seed) when every field is valid, else None."""
        if self.errors:
            return None
        params: dict[str, Value] = {}
        for param in self.experiment.params:
            widget = self.query_one(f"#param-{param.name}")
            raw = widget.value if isinstance(widget, Input | Select) else None
            params[param.name] = convert(param, raw)
        device = self.query_one("#param-device", Select).value
        seed = int(self.query_one("#param-seed", Input).value.strip())
        return params, str(device), seed

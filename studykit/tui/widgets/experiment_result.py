"""Shows one experiment result: answers, the plot, a small table and the explanation."""

from __future__ import annotations

from rich.table import Table as RichTable
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from studykit.experiments.base import Result
from studykit.tui.guard import GuardedHandlers
from studykit.tui.widgets.experiment_plot import ExperimentPlot


def answers_table(result: Result) -> RichTable:
    """The named answers as a two-column table."""
    table = RichTable(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    for answer in result.outcome.answers:
        table.add_row(answer.label, answer.text())
    return table


def data_table(result: Result) -> RichTable | str:
    """The result's small table, if it has one."""
    source = result.outcome.table
    if source is None:
        return ""
    table = RichTable(*source.headers, box=None, header_style="bold")
    for row in source.rows:
        table.add_row(*row)
    return table


def provenance(result: Result) -> str:
    """Where and how the numbers were made."""
    where = "from the cache" if result.cached else f"in {result.elapsed_s:.2f} s"
    params = ", ".join(f"{k}={v}" for k, v in result.params.items())
    return (
        f"{params} · seed {result.seed} · {result.device} ({result.machine}) · "
        f"torch {result.torch_version} · {where}"
    )


class ExperimentResultView(GuardedHandlers, Vertical):
    """A result, or nothing until `show` is called."""

    shown: Result | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="experiment-provenance", markup=False)
        yield Static("", id="experiment-answers")
        yield ExperimentPlot(id="experiment-plot")
        yield Static("", id="experiment-table")
        yield Static("", id="experiment-explanation", markup=False)

    def show(self, result: Result | None) -> None:
        """Fill every part from `result` (None clears them)."""
        self.shown = result
        self.display = result is not None
        if result is None:
            return
        self.query_one("#experiment-provenance", Static).update(provenance(result))
        self.query_one("#experiment-answers", Static).update(answers_table(result))
        self.query_one("#experiment-table", Static).update(data_table(result))
        self.query_one("#experiment-explanation", Static).update(result.outcome.explanation)
        self.query_one(ExperimentPlot).show(result.outcome.plot)

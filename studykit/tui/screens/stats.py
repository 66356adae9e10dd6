"""Stats: today's reviews, true retention, a 30-day due forecast and a year of reviews."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState, get_current_worker

from studykit.core.config import Settings
from studykit.core.easydays import describe
from studykit.core.errors import describe_error
from studykit.study.session import Stats, StudySession
from studykit.tui.charts import bar_chart_lines, heatmap_lines
from studykit.tui.guard import GuardedHandlers
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.error import shown_on_screen
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar


def summary_lines(stats: Stats) -> list[tuple[str, str]]:
    """Label/value pairs for the numbers at the top of the screen."""
    retention = "—"  # cram answers in a quiz are never logged, so never counted here
    if stats.retention_30d is not None:
        reviews = stats.retention_reviews
        retention = (
            f"{stats.retention_30d:.1%} ({stats.retention_passed} of {reviews} "
            f"review{'' if reviews == 1 else 's'})"
        )
    return [
        ("Reviews today", str(stats.reviews_today)),
        ("True retention (30 days)", retention),
        ("Cards", str(stats.total_cards)),
        ("New (never studied)", str(stats.new_cards)),
        ("Suspended", str(stats.suspended)),
        ("Leeches", str(stats.leeches)),
    ]


def balance_caption(settings: Settings) -> str:
    """A line on how due days are spread: the load balancer and Easy Days ('' when off)."""
    easy = describe(settings.easy_days)
    if not settings.enable_fuzzing or not (settings.load_balancer or easy):
        return ""  # both choose days inside the fuzz range: without fuzz they do nothing
    parts = ["Load balancer on" if settings.load_balancer else "Load balancer off"]
    if easy:
        parts.append(f"Easy Days: {easy}")
    return "\n" + " · ".join(parts)


MEMORY_WORKER = "memory-panel"
MEMORY_LOADING = "Working out calibration and the workload curve…"


class StatsScreen(SizedScreen, GuardedHandlers, Screen[None]):
    """Numbers and charts from `session.stats()`."""

    CSS_PATH = SCREENS_CSS

    SUB_TITLE = "Statistics"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("r", "refresh", "Refresh"),
    ]

    def __init__(self, session: StudySession, *, today: Callable[[], date]) -> None:
        super().__init__(id="stats")
        self.session = session
        self._today = today

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="stats-body"):
            with Horizontal(id="summary"):
                yield Static("", id="summary-labels")
                yield Static("", id="summary-values")
            yield Static("Due in the next 30 days", classes="chart-title")
            yield Static("", id="forecast", classes="chart", markup=False)
            yield Static("", id="forecast-total")
            yield Static("Reviews in the last year", classes="chart-title")
            yield Static("", id="heatmap", classes="chart", markup=False)
            yield Static("Memory model", classes="chart-title")
            yield Static("", id="memory", classes="chart", markup=False)
        yield StudyFooter()

    def on_mount(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        with shown_on_screen(self, "Could not compute statistics"):
            self._show(self.session.stats())
        self.query_one("#memory", Static).update(MEMORY_LOADING)
        self.describe_memory()

    @dataclass
    class MemoryDescribed(Message):
        """The memory panel's lines, worked out off the UI thread."""

        lines: list[str]

    @work(thread=True, exclusive=True, exit_on_error=False, group="memory", name=MEMORY_WORKER)
    def describe_memory(self) -> None:
        """Replay the review log for calibration and simulate the workload (seconds at most)."""
        from studykit.memory.panel import memory_panel_lines

        lines = memory_panel_lines(self.session)
        if not get_current_worker().is_cancelled:  # a later refresh replaced this one
            self.post_message(self.MemoryDescribed(lines))

    def on_stats_screen_memory_described(self, message: MemoryDescribed) -> None:
        self.query_one("#memory", Static).update("\n".join(message.lines))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        error = event.worker.error
        if event.worker.name == MEMORY_WORKER and event.state == WorkerState.ERROR and error:
            self.query_one("#memory", Static).update(
                f"Could not describe the memory model: {describe_error(error)}"
            )

    def _show(self, stats: Stats) -> None:
        pairs = summary_lines(stats)
        self.query_one("#summary-labels", Static).update("\n".join(k for k, _ in pairs))
        self.query_one("#summary-values", Static).update("\n".join(v for _, v in pairs))
        self.query_one("#forecast", Static).update("\n".join(bar_chart_lines(stats.forecast)))
        week = sum(stats.forecast[1:8])
        self.query_one("#forecast-total", Static).update(
            f"Tomorrow: {stats.forecast[1] if len(stats.forecast) > 1 else 0} · "
            f"next 7 days: {week} · next 30 days: {sum(stats.forecast)}"
            + balance_caption(self.session.settings)
        )
        self.query_one("#heatmap", Static).update(
            "\n".join(heatmap_lines(stats.heatmap, self._today()))
        )

    def action_back(self) -> None:
        self.dismiss()

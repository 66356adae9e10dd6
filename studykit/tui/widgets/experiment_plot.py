"""A terminal plot of an experiment's series (textual-plotext), redrawn from scratch each time."""

from __future__ import annotations

from importlib.util import find_spec

from textual.app import RenderResult
from textual.widgets import Static

from studykit.experiments.base import Plot

HAS_PLOTEXT = find_spec("textual_plotext") is not None  # the `plots` extra is optional

NO_PLOTS = "Install the plots extra for a chart: pip install 'studykit[plots]'"


if HAS_PLOTEXT:
    from textual_plotext import PlotextPlot

    class ExperimentPlot(PlotextPlot):
        """Draws one Plot; the whole figure (log scale included) is set again on every render."""

        def __init__(self, *, id: str | None = None) -> None:
            super().__init__(id=id)
            self.spec: Plot | None = None

        def show(self, plot: Plot | None) -> None:
            """Show `plot` (None: an empty chart)."""
            self.spec = plot
            self.refresh()

        def render(self) -> RenderResult:
            from studykit.experiments.plotting import draw

            plt = self.plt
            if self.spec is None:
                plt.clear_data()
                plt.clear_figure()
            else:
                width, height = max(self.size.width, 10), max(self.size.height, 5)
                draw(plt, self.spec, width=width, height=height)
            return super().render()

else:

    class ExperimentPlot(Static):  # type: ignore[no-redef]
        """Stands in for the chart when textual-plotext is not installed."""

        def __init__(self, *, id: str | None = None) -> None:
            super().__init__(NO_PLOTS, id=id)
            self.spec: Plot | None = None

        def show(self, plot: Plot | None) -> None:
            """Remember `plot`; there is nothing to draw it with."""
            self.spec = plot

"""Drawing a result's Plot with plotext (the CLI) or textual-plotext's `plt` (the app)."""

from __future__ import annotations

import math
from typing import Any

from studykit.experiments.base import Plot

MIN_LOG = 1e-300


def draw(plt: Any, plot: Plot, *, width: int, height: int) -> None:
    """Clear `plt` and draw `plot` on it at the given size.

    Log axes are drawn as log10 of the values on a linear axis with `1e-k` tick labels:
    plotext 5 forgets `yscale("log")` after a clear and cannot place non-positive values, so
    every redraw sets its own scale here instead of relying on plotext's state.
    """
    plt.clear_data()
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.title(plot.title)
    plt.xlabel(plot.x_label)
    plt.ylabel(plot.y_label + (" (log scale)" if plot.log_y else ""))
    plt.yscale("linear")
    lows, highs = [], []
    for series in plot.series:
        xs, ys = list(series.x), list(series.y)
        if plot.log_y:
            pairs = [(x, math.log10(y)) for x, y in zip(xs, ys, strict=True) if y > MIN_LOG]
            xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        if not xs:
            continue
        lows.append(min(ys))
        highs.append(max(ys))
        if len(xs) <= 2 and len(plot.series) == 1:
            plt.bar(xs, ys, label=series.label)
        else:
            plt.plot(xs, ys, label=series.label, marker="braille")
    if plot.log_y and lows:
        low, high = math.floor(min(lows)), math.ceil(max(highs))
        step = max(1, math.ceil((high - low) / 6))
        ticks = list(range(low, high + 1, step))
        plt.yticks(ticks, [f"1e{t}" for t in ticks])


def render_text(plot: Plot, *, width: int = 80, height: int = 20) -> str | None:
    """The plot as terminal text, or None when plotext is not installed."""
    try:
        import plotext
    except ImportError:
        return None
    draw(plotext, plot, width=width, height=height)
    text: str = plotext.build()
    plotext.clear_figure()
    return text

"""A result's Plot as an SVG file with matplotlib (the `plots` extra), for exported cards.

Only `studykit export` imports this module; matplotlib itself is imported inside
`render_svg`, never at start-up. The same Plot always gives the same bytes: the SVG ids are
salted with a constant and the file carries no date, so a re-export packs the same file.
"""

from __future__ import annotations

import hashlib
import io
import json
import math

from studykit.experiments.base import Plot

STYLE = "studykit-plot-3"
"""Bump when the drawing changes, so cached files are drawn again under new names."""

MAX_POINTS = 20_000
"""Points per plot beyond this are thinned (every k-th kept): an SVG grows with each point."""


class PlotsUnavailable(ImportError):
    """matplotlib is not installed: plots are skipped."""


def plots_available() -> bool:
    """Whether matplotlib can be imported (it is imported here, at export time only)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def plot_key(plot: Plot) -> str:
    """A short hash of the plot's data and the drawing style: the packed file's name."""
    data = {
        "style": STYLE,
        "title": plot.title,
        "x": plot.x_label,
        "y": plot.y_label,
        "log_y": plot.log_y,
        "series": [[s.label, list(s.x), [repr(v) for v in s.y]] for s in plot.series],
    }
    text = json.dumps(data, sort_keys=True, ensure_ascii=True, allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _thinned(values: tuple[float, ...], step: int) -> list[float]:
    return list(values[::step]) if step > 1 else list(values)


def _tick(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def render_svg(plot: Plot) -> bytes:
    """The plot drawn as SVG (6×3.6 in); PlotsUnavailable without matplotlib."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as error:
        raise PlotsUnavailable(str(error)) from error

    total = sum(len(s.x) for s in plot.series)
    step = max(1, math.ceil(total / MAX_POINTS))
    # Labels are plain text (`$` is not maths), so no label can fail to parse.
    with matplotlib.rc_context(
        {"svg.hashsalt": STYLE, "svg.fonttype": "path", "font.size": 10, "text.parse_math": False}
    ):
        figure = Figure(figsize=(6.0, 3.6), dpi=100)
        axes = figure.add_subplot()
        for series in plot.series:
            xs, ys = _thinned(series.x, step), _thinned(series.y, step)
            if plot.log_y:
                pairs = [(x, y) for x, y in zip(xs, ys, strict=True) if y > 0 and math.isfinite(y)]
                xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
            if len(xs) <= 2 and len(plot.series) == 1:
                axes.bar([_tick(x) for x in xs], ys, label=series.label)
            else:
                axes.plot(xs, ys, label=series.label, linewidth=1.5)
        if plot.log_y:
            axes.set_yscale("log")
        axes.set_title(plot.title)
        axes.set_xlabel(plot.x_label)
        axes.set_ylabel(plot.y_label)
        axes.grid(True, alpha=0.3)
        if len(plot.series) > 1:
            axes.legend()
        # Fixed margins: tight_layout draws the figure once more, doubling the time.
        figure.subplots_adjust(left=0.13, right=0.97, top=0.9, bottom=0.15)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()

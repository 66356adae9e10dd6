"""The Stats screen's memory-model panel: which model, its calibration, the workload curve."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studykit.memory.metrics import calibration, predict

if TYPE_CHECKING:
    from studykit.study.session import StudySession

__all__ = ["MAX_PANEL_REVIEWS", "memory_panel_lines"]

# Calibration replays the whole log in Python (about 20 µs a review, in a thread worker while
# the panel says it is working); beyond this the panel shows the model line only, so the
# panel never takes more than a few seconds.
MAX_PANEL_REVIEWS = 100_000
_PANEL_RETENTIONS = tuple(round(0.70 + 0.03 * i, 2) for i in range(10))  # .70 ... .97


def _model_line(session: StudySession) -> str:
    model = session.memory_model()
    if model is None:
        return "Memory model: FSRS defaults (fit your own with `studykit optimize --apply`)"
    loss = "—" if model["log_loss"] is None else f"{model['log_loss']:.3f}"
    rmse = "—" if model["rmse"] is None else f"{model['rmse']:.3f}"
    return (
        f"Memory model: fitted on {model['reviews']:,} reviews on "
        f"{model['fitted_at']:%Y-%m-%d} · log loss {loss} · RMSE {rmse}"
    )


def memory_panel_lines(session: StudySession, *, width: int = 30) -> list[str]:
    """Text lines: the model in use, predicted vs actual recall, minutes per card remembered."""
    lines = [_model_line(session), ""]
    rows = session.review_rows()
    if len(rows) > MAX_PANEL_REVIEWS:
        return [*lines, f"(calibration skipped: more than {MAX_PANEL_REVIEWS:,} reviews)"]
    model = session.memory_model()
    predictions = predict(rows, None if model is None else model["parameters"])
    lines.append("Calibration: predicted recall vs actual (reviews a day or more apart)")
    if not predictions:
        lines.append("  no reviews a day or more apart yet")
    for p, y, n in calibration(predictions):
        bar = "█" * round(width * y)
        lines.append(f"  predicted {p:4.0%}  actual {y:4.0%} {bar:<{width}} n={n}")
    lines.append("")
    try:
        import numpy  # noqa: F401
    except ImportError:
        return [*lines, "Workload curve: install the torch extra (pip install 'studykit[torch]')"]
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from studykit.memory.workload import curve, plot_lines, recommend, with_current

    inputs = session.workload_inputs()
    if inputs["new"] + len(inputs["stability"]) == 0:
        return lines
    settings = session.settings
    current = settings.desired_retention
    table = curve(
        list(DEFAULT_PARAMETERS) if model is None else model["parameters"],
        inputs,
        days=180,
        new_per_day=settings.new_per_day,
        reviews_per_day=settings.reviews_per_day,
        retentions=with_current(_PANEL_RETENTIONS, current),
    )
    best = recommend(table)
    lines.append(
        f"Workload over 180 days (best desired retention {best.retention:.2f}, "
        f"yours {current:.2f}):"
    )
    lines += plot_lines(table, best, current=current, width=width)
    return lines

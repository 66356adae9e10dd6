"""The Stats screen's memory-model panel: which model, its calibration, the workload curve.

The fitted model and the recommended retention appear only once the student has enough
reviews of their own (advice.py); before, the panel says how many more it takes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studykit.memory.advice import readiness
from studykit.memory.metrics import calibration, predict

if TYPE_CHECKING:
    from studykit.srs.shapes import MemoryModel
    from studykit.study.session import StudySession

__all__ = ["MAX_PANEL_REVIEWS", "memory_panel_lines"]

# Calibration replays the whole log in Python (about 20 µs a review, in a thread worker while
# the panel says it is working); beyond this the panel shows the model line only, so the
# panel never takes more than a few seconds.
MAX_PANEL_REVIEWS = 100_000
_PANEL_RETENTIONS = tuple(round(0.70 + 0.03 * i, 2) for i in range(10))  # .70 ... .97
_PANEL_DAYS = 180


def _model_line(model: MemoryModel | None) -> str:
    if model is None:
        return "Memory model: FSRS defaults"
    loss, rmse = model["log_loss"], model["rmse"]
    loss_text = "—" if not isinstance(loss, float) else f"{loss:.3f}"
    rmse_text = "—" if not isinstance(rmse, float) else f"{rmse:.3f}"
    return (
        f"Memory model: fitted on {model['reviews']:,} reviews on "
        f"{model['fitted_at']:%Y-%m-%d} · log loss {loss_text} · RMSE {rmse_text}"
    )


def memory_panel_lines(session: StudySession, *, width: int = 30) -> list[str]:
    """Text lines: the model in use, predicted vs actual recall, minutes per card remembered."""
    ready = readiness(session)
    model = session.memory_model() if ready.enough else None
    lines = [_model_line(model)]
    if waiting := ready.waiting():
        lines.append(waiting)
    lines.append("")
    rows = session.review_rows()
    if len(rows) > MAX_PANEL_REVIEWS:
        return [*lines, f"(calibration skipped: more than {MAX_PANEL_REVIEWS:,} reviews)"]
    predictions = predict(rows, None if model is None else model["parameters"])
    lines.append("Calibration: predicted recall vs actual (reviews a day or more apart)")
    if not predictions:
        lines.append("  no reviews a day or more apart yet")
    for p, y, n in calibration(predictions):
        bar = "█" * round(width * y)
        lines.append(f"  predicted {p:4.0%}  actual {y:4.0%} {bar:<{width}} n={n}")
    if model is None:  # no advice without the student's own model
        return lines
    return [*lines, "", *_workload_lines(session, model["parameters"], width=width)]


def _workload_lines(session: StudySession, parameters: list[float], *, width: int) -> list[str]:
    """The workload curve with fsrs-rs's recommended retention marked, or why not."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return ["Workload curve: install the torch extra (pip install 'studykit[torch]')"]
    from studykit.memory.advice import recommend
    from studykit.memory.engine import EngineMissing
    from studykit.memory.workload import curve, plot_lines, with_current

    inputs = session.workload_inputs()
    if inputs["new"] + len(inputs["stability"]) == 0:
        return []
    settings = session.settings
    current = settings.desired_retention
    try:
        best: float | None = recommend(session, parameters)
        heading = f"recommended {best:.2f} (fsrs-rs), yours {current:.2f}"
    except EngineMissing as error:
        best, heading = None, str(error)
    except ValueError:  # no new-card limit: nothing for fsrs-rs to learn
        best, heading = None, f"yours {current:.2f}"
    shown = with_current(_PANEL_RETENTIONS, current)
    table = curve(
        parameters,
        inputs,
        settings,
        days=_PANEL_DAYS,
        retentions=shown if best is None else with_current(shown, best),
    )
    return [
        f"Workload over {_PANEL_DAYS} days ({heading}):",
        *plot_lines(table, best, current=current, width=width),
    ]

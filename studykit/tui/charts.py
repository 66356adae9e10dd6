"""Text charts drawn with Unicode blocks: a due forecast and a year heatmap of reviews."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date, timedelta

EIGHTHS = " ▁▂▃▄▅▆▇█"
SHADES = "░▒▓█"
EMPTY_DAY = "·"
DAY_LABELS = ("Mon", "", "Wed", "", "Fri", "", "Sun")


def bar_chart_lines(values: Sequence[int], *, height: int = 8, gap: int = 1) -> list[str]:
    """Vertical bars, one column per value, scaled so the largest fills `height` rows.

    A left axis shows the largest value and zero; any non-zero value is at least one eighth
    of a row high so a lone card is still visible.
    """
    if not values:
        return []
    top = max(values)
    axis = len(str(top))
    scaled = [0 if top == 0 or v <= 0 else max(1, round(v / top * height * 8)) for v in values]
    lines: list[str] = []
    for row in range(height - 1, -1, -1):
        cells = []
        for eighths in scaled:
            filled = min(8, max(0, eighths - row * 8))
            cells.append(EIGHTHS[filled] + " " * gap)
        label = str(top) if row == height - 1 else ""
        if height >= 4 and row == height // 2 - 1 and top >= 2:
            label = str(top // 2)
        lines.append(f"{label:>{axis}} ┤" + "".join(cells).rstrip())
    lines.append(" " * axis + " └" + "─" * (len(values) * (1 + gap)))
    lines.append(" " * (axis + 2) + _day_ticks(len(values), 1 + gap))
    return lines


def _day_ticks(count: int, step: int) -> str:
    """`today`, `+7d`, `+14d`... placed under their columns."""
    row = [" "] * (count * step + 6)
    for day in range(0, count, 7):
        label = "today" if day == 0 else f"+{day}d"
        start = day * step
        row[start : start + len(label)] = list(label)
    return "".join(row).rstrip()


def heatmap_lines(
    counts: Mapping[date, int], today: date, *, weeks: int = 53, cell: int = 2
) -> list[str]:
    """A GitHub-style year of reviews: one column per week (Monday first), one row per weekday.

    Days without reviews show `·`; others a shade from `░` to `█` scaled to the busiest day.
    """
    first_monday = today - timedelta(days=today.weekday()) - timedelta(weeks=weeks - 1)
    busiest = max((n for d, n in counts.items() if first_monday <= d <= today and n > 0), default=0)
    months = [" "] * (weeks * cell + 4)
    previous_month = 0
    for col in range(weeks):
        monday = first_monday + timedelta(weeks=col)
        if monday.month != previous_month:
            previous_month = monday.month
            start = col * cell
            name = monday.strftime("%b")
            if all(ch == " " for ch in months[max(0, start - 1) : start + len(name)]):
                months[start : start + len(name)] = list(name)
    lines = ["    " + "".join(months).rstrip()]
    for weekday in range(7):
        cells = []
        for col in range(weeks):
            day = first_monday + timedelta(weeks=col, days=weekday)
            if day > today:
                cells.append(" " * cell)
                continue
            n = counts.get(day, 0)
            mark = EMPTY_DAY if n <= 0 else SHADES[min(3, math.ceil(4 * n / busiest) - 1)]
            cells.append(mark + " " * (cell - 1))
        lines.append(f"{DAY_LABELS[weekday]:<4}" + "".join(cells).rstrip())
    lines.append("    less " + " ".join([EMPTY_DAY, *SHADES]) + " more")
    return lines

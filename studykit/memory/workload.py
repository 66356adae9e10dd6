"""The workload curve: daily reviews, minutes and cards remembered per desired retention."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from studykit.core.config import Settings
from studykit.core.easydays import NORMAL_WEEK, WEEKDAYS, describe
from studykit.srs.balance import MAX_BALANCED_DAYS, pick_day, spread
from studykit.srs.scheduler import fuzz_range
from studykit.srs.shapes import WorkloadInputs

__all__ = [
    "MAX_CARDS",
    "MAX_DAYS",
    "RETENTIONS",
    "Costs",
    "Row",
    "curve",
    "normal_days",
    "plot_lines",
    "simulate_workload",
    "week_lines",
    "with_current",
]

MAX_DAYS = 3650
MAX_CARDS = 100_000
_SMOOTH_CARDS = 2000
RETENTIONS: tuple[float, ...] = tuple(round(0.70 + 0.01 * i, 2) for i in range(28))  # .70-.97


@dataclass(frozen=True)
class Costs:
    """Seconds per answer and how the student rates, from the review log or defaults."""

    new: float = 20.0
    recall: float = 8.0
    forget: float = 18.0
    first_rating: tuple[float, float, float, float] = (0.25, 0.1, 0.55, 0.1)
    hard: float = 0.15  # of recalled reviews
    easy: float = 0.05


@dataclass(frozen=True)
class Row:
    """One desired retention: average reviews and minutes per day, cards remembered at the end."""

    retention: float
    reviews_per_day: float
    minutes_per_day: float
    remembered: float
    minutes_per_remembered: float
    daily: tuple[float, ...] = ()  # reviews of studied cards on each simulated day

    def per_weekday(self, first_weekday: int) -> tuple[float, ...]:
        """Mean reviews per weekday, Monday first; day 0 was `first_weekday` (0 = Monday)."""
        sums, counts = [0.0] * 7, [0] * 7
        for day, reviews in enumerate(self.daily):
            weekday = (first_weekday + day) % 7
            sums[weekday] += reviews
            counts[weekday] += 1
        return tuple(total / n if n else 0.0 for total, n in zip(sums, counts, strict=True))


class _Days:
    """Due days as studykit schedules them: the load balancer and Easy Days, or exact."""

    def __init__(
        self,
        horizon: int,
        due: np.ndarray,
        *,
        balance: bool,
        easy_days: Sequence[float],
        weekday: int,
    ) -> None:
        self.load = [0] * horizon  # cards due on each simulated day
        self.even = balance
        self.balance = balance or any(share < 1 for share in easy_days)
        self.easy_days = easy_days
        self.weekday = weekday
        for day in due[due < horizon].tolist():
            self.load[max(0, int(day))] += 1

    def schedule(self, today: int, intervals: np.ndarray) -> np.ndarray:
        """Due days of cards answered `today`; one by one when balancing, each seeing the last."""
        if not self.balance:
            return today + intervals
        out = np.empty(len(intervals))
        for i, interval in enumerate(intervals.tolist()):
            days = int(interval)
            bounds = fuzz_range(days, 36500) if days <= MAX_BALANCED_DAYS else None
            if bounds is not None:
                lower, upper = bounds
                first, last = today + lower, today + upper + 1
                counts = self.load[first:last]
                counts += [0] * (last - first - len(counts))  # days past the horizon: none due
                week = self.easy_days
                shares = [week[(self.weekday + day) % 7] for day in range(first, last)]
                days = pick_day(lower, days, counts, shares, even=self.even)
            out[i] = today + days
            if today + days < len(self.load):
                self.load[today + days] += 1
        return out


class _Model:
    """FSRS-6's memory formulas over arrays of cards (stability S, difficulty D)."""

    def __init__(self, w: Sequence[float]) -> None:
        self.w = np.asarray(w, dtype=float)
        self.decay = -self.w[20]
        self.factor = 0.9 ** (1 / self.decay) - 1

    def recall_probability(self, elapsed: np.ndarray, s: np.ndarray) -> np.ndarray:
        return np.asarray((1 + self.factor * elapsed / s) ** self.decay)

    def interval(self, s: np.ndarray, retention: float) -> np.ndarray:
        days = s / self.factor * (retention ** (1 / self.decay) - 1)
        return np.asarray(np.clip(np.round(days), 1, 36500))

    def initial_difficulty(self, g: np.ndarray | float) -> np.ndarray:
        w = self.w
        return np.asarray(w[4] - np.exp(w[5] * (np.asarray(g) - 1)) + 1)

    def next_difficulty(self, d: np.ndarray, g: np.ndarray) -> np.ndarray:
        w = self.w
        delta = -w[6] * (g - 3)
        damped = d + (10 - d) * delta / 9
        return np.asarray(np.clip(w[7] * self.initial_difficulty(4) + (1 - w[7]) * damped, 1, 10))

    def next_stability(
        self, s: np.ndarray, d: np.ndarray, r: np.ndarray, g: np.ndarray
    ) -> np.ndarray:
        w = self.w
        bonus = np.where(g == 2, w[15], 1.0) * np.where(g == 4, w[16], 1.0)
        grown = s * (
            1 + np.exp(w[8]) * (11 - d) * s ** -w[9] * (np.exp((1 - r) * w[10]) - 1) * bonus
        )
        lapse = np.minimum(
            w[11] * d ** -w[12] * ((s + 1) ** w[13] - 1) * np.exp((1 - r) * w[14]),
            s / np.exp(w[17] * w[18]),
        )
        return np.asarray(np.maximum(np.where(g == 1, lapse, grown), 0.001))


def simulate_workload(
    parameters: Sequence[float],
    *,
    retention: float,
    days: int,
    new_cards: int,
    new_per_day: int,
    reviews_per_day: int,
    costs: Costs = Costs(),
    stability: Sequence[float] = (),
    difficulty: Sequence[float] = (),
    elapsed: Sequence[float] = (),
    seed: int = 0,
    balance: bool = False,
    easy_days: Sequence[float] = NORMAL_WEEK,
    weekday: int = 0,
) -> Row:
    """Simulate `days` days at one desired retention; cards answered before start with S, D.

    With `balance` or Easy Days other than a normal week, due days are chosen one by one as
    the scheduler chooses them (srs/balance.py); day 0 is weekday `weekday` (0 = Monday).
    Intervals are otherwise exact (no fuzz).
    """
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be from 1 to {MAX_DAYS}, got {days}")
    model = _Model(parameters)
    rng = np.random.default_rng(seed)
    # A small collection is simulated as several copies of itself (then divided back), so
    # that the curve shows the model and not the luck of a few dozen draws.
    copies = max(1, -(-_SMOOTH_CARDS // max(1, len(stability) + new_cards)))
    stability = list(stability) * copies
    difficulty = list(difficulty) * copies
    elapsed = list(elapsed) * copies
    new_cards *= copies
    new_per_day *= copies
    reviews_per_day *= copies
    old = len(stability)
    total = old + new_cards
    s = np.ones(total)
    d = np.full(total, 5.0)
    last = np.zeros(total)
    due = np.full(total, np.inf)
    s[:old], d[:old] = stability, difficulty
    last[:old] = -np.asarray(elapsed, dtype=float)
    due[:old] = last[:old] + model.interval(s[:old], retention)
    introduced = old
    answers = seconds = 0.0
    daily = np.zeros(days)
    planner = _Days(days, due[:old], balance=balance, easy_days=easy_days, weekday=weekday)
    first = np.asarray(costs.first_rating) / sum(costs.first_rating)
    for day in range(days):
        # Reviews first (the most overdue first, up to the limit), then new cards.
        waiting = np.flatnonzero(due[:introduced] <= day)
        if len(waiting) > reviews_per_day:
            waiting = waiting[np.argsort(due[waiting], kind="stable")[:reviews_per_day]]
        if len(waiting):
            r = model.recall_probability(day - last[waiting], s[waiting])
            draw = rng.random(len(waiting))
            recalled = draw < r
            pick = rng.random(len(waiting))
            g = np.where(
                ~recalled,
                1,
                np.where(pick < costs.hard, 2, np.where(pick < costs.hard + costs.easy, 4, 3)),
            )
            s[waiting] = model.next_stability(s[waiting], d[waiting], r, g)
            d[waiting] = model.next_difficulty(d[waiting], g)
            last[waiting] = day
            due[waiting] = planner.schedule(day, model.interval(s[waiting], retention))
            daily[day] = len(waiting)
            forgot = int((~recalled).sum())
            answers += len(waiting) + forgot  # a lapse is relearnt the same day
            seconds += recalled.sum() * costs.recall + forgot * (costs.forget + costs.recall)
        fresh = min(new_per_day, total - introduced)
        if fresh:
            part = slice(introduced, introduced + fresh)
            g = rng.choice(4, size=fresh, p=first) + 1
            s[part] = model.w[g - 1]
            d[part] = np.clip(model.initial_difficulty(g), 1, 10)
            last[part] = day
            due[part] = planner.schedule(day, model.interval(s[part], retention))
            introduced += fresh
            answers += fresh
            seconds += fresh * costs.new
    remembered = float(model.recall_probability(days - last[:introduced], s[:introduced]).sum())
    remembered /= copies
    answers /= copies
    minutes = seconds / 60 / copies
    return Row(
        retention=retention,
        reviews_per_day=float(answers) / days,
        minutes_per_day=float(minutes) / days,
        remembered=remembered,
        minutes_per_remembered=float(minutes) / remembered if remembered > 0 else float("inf"),
        daily=tuple(float(x) for x in daily / copies),
    )


def curve(
    parameters: Sequence[float],
    inputs: WorkloadInputs,
    settings: Settings,
    *,
    days: int,
    retentions: Sequence[float] = RETENTIONS,
    balance: bool | None = None,
) -> list[Row]:
    """One row per retention for the cards `StudySession.workload_inputs()` describes.

    Scheduled with the settings' limits, load balancer and Easy Days (`balance=False`: exact
    intervals on a normal week, to compare).
    """
    balanced = settings.load_balancer if balance is None else balance
    return [
        simulate_workload(
            parameters,
            retention=retention,
            days=days,
            new_cards=inputs["new"],
            new_per_day=settings.new_per_day,
            reviews_per_day=settings.reviews_per_day,
            stability=inputs["stability"],
            difficulty=inputs["difficulty"],
            elapsed=inputs["elapsed"],
            balance=balanced,
            easy_days=settings.easy_days if balance is not False else NORMAL_WEEK,
            weekday=inputs.get("weekday", 0),
        )
        for retention in retentions
    ]


def normal_days(row: Row, easy_days: Sequence[float], weekday: int) -> list[float]:
    """The simulated daily reviews of the weekdays Easy Days leave normal, in order."""
    return [n for day, n in enumerate(row.daily) if easy_days[(weekday + day) % 7] == 1]


def week_lines(row: Row, plain: Row, settings: Settings, weekday: int) -> list[str]:
    """Reviews per weekday and the day-to-day change on normal days at one retention, beside
    `plain` (the same without the load balancer and Easy Days)."""
    how = [
        f"load balancer {'on' if settings.load_balancer else 'off'}",
        f"Easy Days {describe(settings.easy_days) or 'none'}",
    ]
    per_day = " · ".join(
        f"{name.capitalize()} {value:.0f}"
        for name, value in zip(WEEKDAYS, row.per_weekday(weekday), strict=True)
    )
    easy = settings.easy_days
    return [
        f"Your days at {row.retention:.2f} ({', '.join(how)}):",
        f"  reviews per weekday  {per_day}",
        f"  day-to-day change    {spread(normal_days(row, easy, weekday)):.1f} reviews on "
        f"normal days ({spread(normal_days(plain, easy, weekday)):.1f} without the load "
        "balancer and Easy Days)",
    ]


def with_current(retentions: Sequence[float], current: float) -> tuple[float, ...]:
    """The retentions plus the one the user schedules with, in order (so its row can be marked)."""
    return tuple(sorted({*retentions, round(current, 3)}))


def plot_lines(
    rows: Sequence[Row], best: float | None, *, current: float | None = None, width: int = 40
) -> list[str]:
    """A terminal bar per retention: minutes per card remembered, the curve to minimise.

    The row of `best`, the recommended retention (None: none yet), is marked, and the row
    of `current`, the retention in use.
    """
    finite = [r.minutes_per_remembered for r in rows if np.isfinite(r.minutes_per_remembered)]
    top = max(finite, default=1.0) or 1.0
    lines = ["minutes per card remembered"]
    for row in rows:
        value = row.minutes_per_remembered
        bar = "█" * max(1, round(width * value / top)) if np.isfinite(value) else "∞"
        marks = [
            *(["recommended"] if best is not None and row.retention == round(best, 3) else []),
            *(["yours"] if current is not None and row.retention == round(current, 3) else []),
        ]
        mark = f"  ◀ {', '.join(marks)}" if marks else ""
        lines.append(f"{row.retention:.2f} {bar} {value:.2f}{mark}")
    return lines

"""Collection statistics for the stats screen, from the due queue and the review log."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from studykit.srs.queue import DeckIndex
from studykit.srs.records import from_us, to_us
from studykit.srs.store import Store
from studykit.srs.studyday import rollover, study_day

__all__ = ["FORECAST_DAYS", "HEATMAP_DAYS", "RETENTION_WINDOW", "Stats", "collect_stats"]

FORECAST_DAYS = 30
HEATMAP_DAYS = 365
RETENTION_WINDOW = timedelta(days=30)


@dataclass(frozen=True)
class Stats:
    """Collection statistics for the stats screen."""

    reviews_today: int
    retention_30d: float | None  # passed / scheduled reviews in the window; None if none
    retention_reviews: int  # scheduled reviews (of review-state cards) in the window
    retention_passed: int  # of which not Again
    forecast: tuple[int, ...]
    heatmap: Mapping[date, int]
    total_cards: int
    new_cards: int
    suspended: int
    leeches: int


def collect_stats(
    store: Store,
    indexes: Collection[DeckIndex],
    *,
    now: datetime,
    reviews_today: int,
    rollover_hour: int,
    tz: tzinfo | None,
) -> Stats:
    """Reviews today, true retention, 30-day forecast, 365-day heatmap, card totals."""
    now_us = to_us(now)
    today = study_day(now, hour=rollover_hour, tz=tz)

    def edges(days: list[date]) -> list[int]:
        return [to_us(rollover(day, hour=rollover_hour, tz=tz)) for day in days]

    total, passed = store.review_outcomes(now - RETENTION_WINDOW)

    forecast = [0] * FORECAST_DAYS
    forecast_edges = edges([today + timedelta(days=k) for k in range(FORECAST_DAYS + 1)])
    for index in indexes:
        for k, due in enumerate(index.due_per_day(forecast_edges, now_us)):
            forecast[k] += due

    first = today - timedelta(days=HEATMAP_DAYS - 1)
    heat_days = [first + timedelta(days=k) for k in range(HEATMAP_DAYS)]
    heat_edges = edges(heat_days)
    heatmap = dict.fromkeys(heat_days, 0)
    for when in store.answer_times(from_us(heat_edges[0])):
        heatmap[heat_days[bisect_right(heat_edges, when) - 1]] += 1

    return Stats(
        reviews_today=reviews_today,
        retention_30d=passed / total if total else None,
        retention_reviews=total,
        retention_passed=passed,
        forecast=tuple(forecast),
        heatmap=heatmap,
        total_cards=sum(index.total for index in indexes),
        new_cards=sum(index.never_answered() for index in indexes),
        suspended=sum(index.suspended for index in indexes),
        leeches=sum(index.leeches for index in indexes),
    )

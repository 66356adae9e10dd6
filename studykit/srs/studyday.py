"""Study days: they begin at the rollover hour, local time, not at midnight."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo

from studykit.srs.scheduler import ensure_utc

__all__ = ["day_bounds", "rollover", "study_day"]

# `tz=None` everywhere means the machine's local zone, looked up at each instant.


def rollover(day: date, *, hour: int, tz: tzinfo | None) -> datetime:
    """The UTC instant at which study day `day` begins."""
    naive = datetime.combine(day, time(hour))
    local = naive.replace(tzinfo=tz) if tz is not None else naive.astimezone()
    return local.astimezone(UTC)


def study_day(moment: datetime, *, hour: int, tz: tzinfo | None) -> date:
    """The study day of an instant."""
    utc = ensure_utc(moment)
    local = utc.astimezone(tz) if tz is not None else utc.astimezone()
    day = local.date()
    return day - timedelta(days=1) if local.hour < hour else day


def day_bounds(moment: datetime, *, hour: int, tz: tzinfo | None) -> tuple[datetime, datetime]:
    """UTC start and end of the study day holding `moment`."""
    day = study_day(moment, hour=hour, tz=tz)
    return rollover(day, hour=hour, tz=tz), rollover(day + timedelta(days=1), hour=hour, tz=tz)

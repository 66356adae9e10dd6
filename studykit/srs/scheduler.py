"""A thin wrapper over `fsrs.Scheduler`: the clock is passed in, datetimes are UTC only."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import fsrs
from fsrs import Rating, State
from fsrs.scheduler import FUZZ_RANGES

__all__ = [
    "DEFAULT_LEARNING_STEPS",
    "DEFAULT_RELEARNING_STEPS",
    "Balance",
    "Rating",
    "Scheduler",
    "State",
    "card_key",
    "ensure_utc",
    "fuzz_range",
    "schedule_key",
    "utc_now",
]

DEFAULT_LEARNING_STEPS: tuple[timedelta, ...] = (timedelta(minutes=1), timedelta(minutes=10))
DEFAULT_RELEARNING_STEPS: tuple[timedelta, ...] = (timedelta(minutes=10),)
_KEY_MASK = (1 << 63) - 1
Balance = Callable[[int, int, int], int | None]  # (days, lower, upper) -> chosen days


def card_key(deck_id: str, card_id: str) -> int:
    """A stable 63-bit integer from deck id + card id (the fsrs card_id and our primary key)."""
    # "/" cannot occur in an id (ID_PATTERN), so ("a", "b-c") and ("a-b", "c") never collide.
    digest = hashlib.blake2b(f"{deck_id}/{card_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") & _KEY_MASK


def fuzz_range(days: int, maximum: int) -> tuple[int, int] | None:
    """The days fsrs's fuzz may give an interval of `days` (None: not fuzzed, under 2.5).

    fsrs.Scheduler._get_fuzz_range's arithmetic (private there), which is Anki's. (fsrs then
    rounds a uniform draw over [lower, upper + 1), so its own fuzz now and then gives upper + 1;
    Anki's floors it, and so does the balancer, which picks inside these bounds.)
    """
    if days < 2.5:
        return None
    delta = 1.0
    for part in FUZZ_RANGES:
        delta += part["factor"] * max(min(float(days), part["end"]) - part["start"], 0.0)
    upper = min(round(days + delta), maximum)
    lower = min(max(2, round(days - delta)), upper)
    return lower, upper


def schedule_key(deck_id: str, card_id: str, ordinal: int = 1) -> int:
    """The key of one schedule: ordinal 1 keeps `card_key`, so states from before ordinals
    stay where they were; ordinal n >= 2 hashes `deck/card#n` ('#' cannot occur in an id)."""
    if ordinal == 1:
        return card_key(deck_id, card_id)
    if ordinal < 1:
        raise ValueError(f"ordinal {ordinal} of {deck_id}/{card_id}: ordinals start at 1")
    digest = hashlib.blake2b(f"{deck_id}/{card_id}#{ordinal}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") & _KEY_MASK


def utc_now() -> datetime:
    """The current time as an aware `timezone.utc` datetime."""
    return datetime.now(UTC)


def ensure_utc(moment: datetime) -> datetime:
    """`moment` as a `timezone.utc` datetime; a naive datetime is a programming error."""
    if moment.tzinfo is UTC:  # the usual case, first: a sync converts thousands of these
        return moment
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment.isoformat()}: pass an aware UTC datetime")
    return moment.astimezone(UTC)


class Scheduler:
    """FSRS with our parameters; every call takes `now` and never changes the card it is given."""

    def __init__(
        self,
        *,
        desired_retention: float = 0.9,
        learning_steps: Sequence[timedelta] = DEFAULT_LEARNING_STEPS,
        relearning_steps: Sequence[timedelta] = DEFAULT_RELEARNING_STEPS,
        enable_fuzzing: bool = True,
        maximum_interval: int = 36500,
        parameters: Sequence[float] | None = None,
    ) -> None:
        if not 0.0 < desired_retention < 1.0:
            raise ValueError(f"desired_retention must be in (0, 1), got {desired_retention}")
        self.desired_retention = desired_retention
        self.learning_steps = tuple(learning_steps)
        self.relearning_steps = tuple(relearning_steps)
        self.enable_fuzzing = enable_fuzzing
        self.maximum_interval = maximum_interval
        # None: fsrs's defaults; otherwise fitted ones (`studykit optimize --apply`).
        self._fitted = None if parameters is None else tuple(float(w) for w in parameters)
        self._engine = self._build(fuzz=enable_fuzzing)
        # Previews show the unfuzzed interval: fuzz is random, so a fuzzed preview would lie.
        self._exact = self._build(fuzz=False)

    def _build(self, *, fuzz: bool) -> fsrs.Scheduler:
        extra = {} if self._fitted is None else {"parameters": self._fitted}
        return fsrs.Scheduler(
            **extra,
            desired_retention=self.desired_retention,
            learning_steps=self.learning_steps,
            relearning_steps=self.relearning_steps,
            maximum_interval=self.maximum_interval,
            enable_fuzzing=fuzz,
        )

    def __repr__(self) -> str:
        return (
            f"Scheduler(desired_retention={self.desired_retention}, "
            f"learning_steps={self.learning_steps}, relearning_steps={self.relearning_steps}, "
            f"enable_fuzzing={self.enable_fuzzing})"
        )

    @property
    def parameters(self) -> tuple[float, ...]:
        """The FSRS parameters (weights) this scheduler uses."""
        return tuple(float(w) for w in self._engine.parameters)

    @staticmethod
    def new_card(card_id: int, *, now: datetime) -> fsrs.Card:
        """A card that has never been reviewed, due `now`."""
        return fsrs.Card(card_id=card_id, state=State.Learning, step=0, due=ensure_utc(now))

    def review(
        self,
        card: fsrs.Card,
        rating: Rating,
        *,
        now: datetime,
        duration_ms: int | None = None,
        balance: Balance | None = None,
    ) -> tuple[fsrs.Card, fsrs.ReviewLog]:
        """The card after answering `rating` at `now`, and fsrs's review log.

        With fuzzing on and a `balance(days, lower, upper)`, a review interval's day within
        the fuzz range is the one `balance` picks (srs/balance.py); where it returns None,
        or without it, fsrs's own fuzz draws it.
        """
        now = ensure_utc(now)
        if balance is not None and self.enable_fuzzing:
            exact, log = self._exact.review_card(
                card, Rating(rating), review_datetime=now, review_duration=duration_ms
            )
            days = (exact.due - now).days
            bounds = fuzz_range(days, self.maximum_interval)
            if exact.state == State.Review and bounds is not None:
                chosen = balance(days, *bounds)
                if chosen is not None:
                    exact.due = now + timedelta(days=chosen)
                    return exact, log
        return self._engine.review_card(
            card, Rating(rating), review_datetime=now, review_duration=duration_ms
        )

    def preview(self, card: fsrs.Card, *, now: datetime) -> dict[Rating, timedelta]:
        """The next interval for each rating (unfuzzed), without changing `card`."""
        now = ensure_utc(now)
        return {
            rating: self._exact.review_card(card, rating, review_datetime=now)[0].due - now
            for rating in Rating
        }

    def retrievability(self, card: fsrs.Card, *, now: datetime) -> float:
        """Predicted probability of recall at `now` (0 for a card never reviewed)."""
        return float(self._exact.get_card_retrievability(card, current_datetime=ensure_utc(now)))

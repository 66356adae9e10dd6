"""A synthetic student who studies through the real StudySession, one answer at a time."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs
import yaml
from fsrs import Rating

from studykit.core.config import Settings
from studykit.core.errors import StudykitError

__all__ = [
    "DEFAULT_LEARNER",
    "MAX_DAYS",
    "DataDirInUse",
    "Learner",
    "LearnerError",
    "SimulationResult",
    "load_learner",
    "simulate",
]

MAX_DAYS = 3650

# A learner who forgets faster than fsrs's default model: lower initial stabilities
# (w0-w3), slower growth of stability after a recall (w8) and a steeper forgetting curve
# (w20). `studykit optimize` on their history should find parameters closer to these.
_DEFAULT_PARAMETERS = (
    0.05, 0.2, 0.5, 1.5,  # initial stability after Again, Hard, Good, Easy (days)
    6.8, 0.83, 3.0, 0.001,
    1.0, 0.3, 0.6, 1.6, 0.07, 0.3, 1.6, 0.55, 1.8,
    0.54, 0.09, 0.07,
    0.25,
)  # fmt: skip


class LearnerError(StudykitError):
    """A learner file that cannot be used; the message says which key and why."""


class DataDirInUse(StudykitError):
    """The data dir already holds reviews: a simulation would mix with a real history."""


@dataclass(frozen=True)
class Learner:
    """A synthetic student: an FSRS memory model plus how they rate and how long they take."""

    parameters: tuple[float, ...] = _DEFAULT_PARAMETERS
    first_rating: tuple[float, float, float, float] = (0.25, 0.1, 0.55, 0.1)  # Again..Easy
    hard: float = 0.15  # of recalled reviews, the share rated Hard
    easy: float = 0.05  # of recalled reviews, the share rated Easy
    seconds: dict[str, float] = field(
        default_factory=lambda: {"new": 20.0, "recall": 8.0, "forget": 18.0}
    )


DEFAULT_LEARNER = Learner()


def _fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise LearnerError(f"`{name}` must be a number from 0 to 1, got {value!r}")
    return float(value)


def load_learner(path: Path) -> Learner:
    """A learner from a YAML or JSON file; keys: parameters, first_rating, hard, easy, seconds."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise LearnerError(f"{path}: cannot read the learner file ({error})") from error
    if not isinstance(data, dict):
        raise LearnerError(f"{path}: a learner file is a mapping of keys to values")
    known = {"parameters", "first_rating", "hard", "easy", "seconds"}
    if unknown := sorted(set(map(str, data)) - known):
        raise LearnerError(f"{path}: unknown key `{unknown[0]}`; known: {', '.join(sorted(known))}")
    learner = DEFAULT_LEARNER
    try:
        params = tuple(float(w) for w in data.get("parameters", learner.parameters))
        fsrs.Scheduler(parameters=params)
    except (TypeError, ValueError) as error:
        first = str(error).strip().splitlines()[-1]
        raise LearnerError(f"{path}: `parameters` must be 21 fsrs parameters ({first})") from error
    first = data.get("first_rating", list(learner.first_rating))
    if not isinstance(first, list) or len(first) != 4:
        raise LearnerError(f"{path}: `first_rating` must list 4 shares (Again, Hard, Good, Easy)")
    shares = tuple(_fraction("first_rating", v) for v in first)
    if abs(sum(shares) - 1) > 1e-6:
        raise LearnerError(f"{path}: `first_rating` shares must add up to 1, got {sum(shares)}")
    hard = _fraction("hard", data.get("hard", learner.hard))
    easy = _fraction("easy", data.get("easy", learner.easy))
    if hard + easy > 1:
        raise LearnerError(f"{path}: `hard` + `easy` must be at most 1")
    seconds = dict(learner.seconds)
    given = data.get("seconds", {})
    if not isinstance(given, dict) or set(given) - set(seconds):
        raise LearnerError(f"{path}: `seconds` maps new, recall, forget to seconds")
    for name, value in given.items():
        ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 600
        if not ok:
            raise LearnerError(f"{path}: `seconds.{name}` must be from 0 to 600, got {value!r}")
        seconds[name] = float(value)
    return Learner(params, (shares[0], shares[1], shares[2], shares[3]), hard, easy, seconds)


@dataclass(frozen=True)
class SimulationResult:
    """What the simulated student did."""

    days: int
    answers: int
    cards: int
    reviews: int  # answers to cards in review state
    recalled: int  # of those, not Again
    minutes: float
    start: datetime
    end: datetime


class _Clock:
    """The simulation's clock (UTC), moved by the loop."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def _respond(
    learner: Learner, model: fsrs.Scheduler, mind: fsrs.Card, now: datetime, rng: random.Random
) -> tuple[Rating, float]:
    """The learner's rating and seconds spent: recall drawn from their model's probability."""
    if mind.last_review is None:  # never seen: the first rating sets the first memory
        first = rng.choices(range(1, 5), weights=learner.first_rating)[0]
        return Rating(first), learner.seconds["new"]
    if rng.random() >= model.get_card_retrievability(mind, current_datetime=now):
        return Rating.Again, learner.seconds["forget"]
    draw = rng.random()
    if draw < learner.hard:
        return Rating.Hard, learner.seconds["recall"]
    if draw < learner.hard + learner.easy:
        return Rating.Easy, learner.seconds["recall"]
    return Rating.Good, learner.seconds["recall"]


def simulate(
    settings: Settings,
    *,
    days: int,
    seed: int,
    learner: Learner = DEFAULT_LEARNER,
    deck_id: str | None = None,
    start: datetime,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Study `days` days from `start` (UTC) through the real session; DataDirInUse if used."""
    from studykit.study.session import StudySession

    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be from 1 to {MAX_DAYS}, got {days}")
    rng = random.Random(seed)
    # fsrs draws its interval fuzz from the `random` module: seeded, a run is reproducible.
    random.seed(seed)
    clock = _Clock(start)
    model = fsrs.Scheduler(parameters=learner.parameters, enable_fuzzing=False)
    memory: dict[int, fsrs.Card] = {}
    answers = reviews = recalled = 0
    seconds_total = 0.0
    session = StudySession.open(settings, clock=clock, tz=UTC)
    try:
        if session.has_reviews():
            raise DataDirInUse(
                f"{settings.data_dir} already holds reviews; simulate into an empty "
                "--data-dir so that simulated history never mixes with a real one"
            )
        session.store.set_durable(False)  # thousands of answers; see Store.set_durable
        if deck_id is not None:
            session.deck_scope(deck_id)  # NotLoadedError for an unknown deck
        cap = 10 * (settings.new_per_day + settings.reviews_per_day) + 100
        for day in range(days):
            clock.now = start + timedelta(days=day)
            with session.store.batch():  # one commit per simulated day
                for _ in range(cap):
                    card = session.next_card(deck_id)
                    if card is None:
                        break
                    now = clock.now
                    mind = memory.get(card.key) or fsrs.Card(card_id=card.key, due=now)
                    rating, spent = _respond(learner, model, mind, now, rng)
                    if card.state == "review":
                        reviews += 1
                        recalled += rating != Rating.Again
                    session.answer(card, rating, duration_ms=int(spent * 1000))
                    memory[card.key], _ = model.review_card(mind, rating, review_datetime=now)
                    answers += 1
                    seconds_total += spent
                    clock.now = now + timedelta(seconds=spent)
            if progress is not None:
                progress(day + 1, days)
    finally:
        session.close()
    return SimulationResult(
        days=days,
        answers=answers,
        cards=len(memory),
        reviews=reviews,
        recalled=recalled,
        minutes=seconds_total / 60,
        start=start,
        end=start + timedelta(days=days),
    )

"""The review log as fsrs-rs items, on small cases worked out by hand from Anki's rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from studykit.memory.items import MAX_SEQ_LEN, Entry, Item, card_history, training_items

# The coming day boundary: 04:00 UTC (the rollover hour, in a UTC+0 zone) on 2026-03-10.
BOUNDARY = datetime(2026, 3, 10, 4, tzinfo=UTC)
NEXT_DAY_AT = int(BOUNDARY.timestamp())
NEW, LEARNING, REVIEW, RELEARNING = None, 1, 2, 3


def at(days_ago: int, *, hour: int = 9, minute: int = 0) -> int:
    """Epoch µs of hour:minute (UTC) on the study day `days_ago` before today's."""
    today = BOUNDARY - timedelta(days=1)  # today's study day began at 04:00 yesterday (UTC)
    day = today - timedelta(days=days_ago)
    moment = day.replace(hour=hour, minute=minute)
    if hour < 4:  # 00:00-03:59 belongs to the study day before the calendar day
        moment += timedelta(days=1)
    return int(moment.timestamp()) * 1_000_000


def reviews(items: list[Item]) -> list[list[tuple[int, int]]]:
    return [list(item.reviews) for item in items]


def test_days_are_counted_between_study_days() -> None:
    # Anki's own case: learnt 15 and 13 days ago, reviewed 10 and 5 days ago.
    log = [
        Entry(1, 3, at(15), NEW),
        Entry(1, 3, at(13), LEARNING),
        Entry(1, 3, at(10), REVIEW),
        Entry(1, 3, at(5), REVIEW),
    ]
    assert reviews(training_items(log, next_day_at=NEXT_DAY_AT)) == [
        [(3, 0), (3, 2)],
        [(3, 0), (3, 2), (3, 3)],
        [(3, 0), (3, 2), (3, 3), (3, 5)],
    ]


def test_the_day_changes_at_the_rollover_hour_not_at_midnight() -> None:
    # 05:00 and 03:00 the next calendar morning: 22 hours apart, the same study day.
    same_day = [Entry(1, 3, at(3, hour=5), NEW), Entry(1, 3, at(3, hour=3), LEARNING)]
    assert training_items(same_day, next_day_at=NEXT_DAY_AT) == []
    # 03:00 then 05:00: two hours apart, across the rollover, so one day apart.
    across = [Entry(2, 3, at(3, hour=3), NEW), Entry(2, 4, at(2, hour=5), LEARNING)]
    assert reviews(training_items(across, next_day_at=NEXT_DAY_AT)) == [[(3, 0), (4, 1)]]


def test_same_day_steps_stay_in_the_history_but_make_no_item() -> None:
    log = [
        Entry(1, 1, at(4), NEW),  # Again on the first showing
        Entry(1, 3, at(4, minute=1), LEARNING),  # the 1-minute step
        Entry(1, 3, at(4, minute=11), LEARNING),  # the 10-minute step
        Entry(1, 3, at(2), REVIEW),
    ]
    assert reviews(training_items(log, next_day_at=NEXT_DAY_AT)) == [
        [(1, 0), (3, 0), (3, 0), (3, 2)]
    ]


def test_first_answers_rules() -> None:
    only_first = [Entry(1, 3, at(9), NEW)]
    assert training_items(only_first, next_day_at=NEXT_DAY_AT) == []  # nothing to predict
    # An imported schedule answered since: no learning answer, so not trained on (as Anki).
    no_learning = [Entry(2, 3, at(9), REVIEW), Entry(2, 3, at(3), REVIEW)]
    assert training_items(no_learning, next_day_at=NEXT_DAY_AT) == []
    # Learnt again without a reset row: history starts at the last run of learning answers.
    relearnt = [
        Entry(3, 3, at(20), NEW),
        Entry(3, 3, at(10), REVIEW),
        Entry(3, 3, at(8), LEARNING),
        Entry(3, 3, at(4), REVIEW),
    ]
    assert reviews(training_items(relearnt, next_day_at=NEXT_DAY_AT)) == [[(3, 0), (3, 4)]]


def test_a_forget_drops_what_came_before() -> None:
    log = [
        Entry(1, 3, at(20), NEW),
        Entry(1, 3, at(15), REVIEW),
        Entry(1, 3, at(10), NEW),  # answered again as a new card after the forget
        Entry(1, 2, at(5), REVIEW),
    ]
    forgets = [(1, at(12))]
    items = training_items(log, next_day_at=NEXT_DAY_AT, forgets=forgets)
    assert reviews(items) == [[(3, 0), (2, 5)]]
    # Forgotten after its last answer: not studied since, nothing to train on.
    assert training_items(log, next_day_at=NEXT_DAY_AT, forgets=[(1, at(1))]) == []
    # After the forget only review answers (an import over the reset card): nothing either.
    imported = [Entry(2, 3, at(20), NEW), Entry(2, 3, at(9), REVIEW), Entry(2, 3, at(2), REVIEW)]
    assert card_history(imported, [at(12)]) is None


def test_a_lapse_and_its_relearning_step() -> None:
    log = [
        Entry(1, 3, at(30), NEW),
        Entry(1, 1, at(20), REVIEW),  # a lapse: Again on a review
        Entry(1, 3, at(20, minute=10), RELEARNING),  # the 10-minute relearning step
        Entry(1, 3, at(15), REVIEW),
    ]
    assert reviews(training_items(log, next_day_at=NEXT_DAY_AT)) == [
        [(3, 0), (1, 10)],
        [(3, 0), (1, 10), (3, 0), (3, 5)],
    ]


def test_each_schedule_key_is_its_own_card_and_items_are_in_time_order() -> None:
    # Anki's alignment case; keys 1 and 2 could be two siblings (ordinals) of one note.
    log = [
        Entry(1, 3, at(10), NEW),
        Entry(2, 3, at(9), NEW),
        Entry(2, 3, at(8), REVIEW),
        Entry(1, 3, at(7), REVIEW),
        Entry(1, 3, at(1), REVIEW),
    ]
    items = training_items(log, next_day_at=NEXT_DAY_AT)
    assert [item.key for item in items] == [2, 1, 1]
    assert [item.length for item in items] == [2, 2, 3]
    assert reviews(items) == [[(3, 0), (3, 1)], [(3, 0), (3, 3)], [(3, 0), (3, 3), (3, 6)]]
    assert [item.at_us for item in items] == [at(8), at(7), at(1)]
    assert (items[-1].rating, items[-1].elapsed) == (3, 6)


def test_items_stop_at_fsrs_rs_max_seq_len() -> None:
    log = [Entry(1, 3, at(400), NEW)] + [Entry(1, 3, at(400 - d), REVIEW) for d in range(1, 300)]
    items = training_items(log, next_day_at=NEXT_DAY_AT)
    assert len(items) == MAX_SEQ_LEN - 1 and items[-1].length == MAX_SEQ_LEN

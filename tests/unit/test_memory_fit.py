"""The batched FSRS fit: its predictions are fsrs.Scheduler's; fitting lowers log loss."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import fsrs
import pytest
from fsrs import Rating
from fsrs.scheduler import DEFAULT_PARAMETERS

from studykit.memory.metrics import log_loss, predict
from studykit.memory.simulate import DEFAULT_LEARNER

torch = pytest.importorskip("torch")

from studykit.memory.fsrs_fit import (  # noqa: E402
    MAX_SEQ_LEN,
    fit_parameters,
    histories,
    recall,
    sample_cards,
)

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
Row = tuple[int, int, int, int]


def _us(moment: datetime) -> int:
    return int((moment - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds()) * 1_000_000


def random_rows(seed: int, cards: int) -> list[Row]:
    """Cards answered at random gaps (minutes to weeks) with every rating, in time order."""
    rng = random.Random(seed)
    rows = []
    for key in range(cards):
        moment = T0 + timedelta(hours=rng.randrange(48))
        for _ in range(rng.randrange(1, 14)):
            rows.append((key, rng.choice([1, 2, 3, 3, 4]), _us(moment), 5000))
            gap = rng.choice([timedelta(minutes=10), timedelta(hours=30), timedelta(days=9)])
            moment += gap * rng.uniform(0.5, 3)
    return sorted(rows, key=lambda row: row[2])


def learner_rows(seed: int, cards: int, days: int) -> list[Row]:
    """Reviews of a student whose memory follows DEFAULT_LEARNER, scheduled by fsrs at 0.9."""
    rng = random.Random(seed)
    truth = fsrs.Scheduler(parameters=DEFAULT_LEARNER.parameters, enable_fuzzing=False)
    schedule = fsrs.Scheduler(enable_fuzzing=False)
    end = T0 + timedelta(days=days)
    rows = []
    for key in range(cards):
        start = T0 + timedelta(days=key * days // (2 * cards))
        card, memory = fsrs.Card(card_id=key, due=start), fsrs.Card(card_id=key, due=start)
        while card.due < end:
            moment = card.due
            p = truth.get_card_retrievability(memory, moment) if memory.last_review else 0.6
            rating = rng.choice([Rating.Hard, Rating.Good, Rating.Good, Rating.Easy])
            rating = rating if rng.random() < p else Rating.Again
            rows.append((key, int(rating), _us(moment), 5000))
            card, _ = schedule.review_card(card, rating, review_datetime=moment)
            memory, _ = truth.review_card(memory, rating, review_datetime=moment)
    return sorted(rows, key=lambda row: row[2])


@pytest.mark.parametrize("parameters", [DEFAULT_PARAMETERS, DEFAULT_LEARNER.parameters])
def test_batched_predictions_are_the_fsrs_schedulers(parameters: tuple[float, ...]) -> None:
    rows = random_rows(3, cards=60)
    p, y = recall(histories(rows), torch.tensor(parameters, dtype=torch.float64))
    ours = sorted(zip(p.tolist(), y.tolist(), strict=True))
    theirs = sorted((pred.p, float(pred.y)) for pred in predict(rows, parameters))
    assert len(ours) == len(theirs) > 100
    for (p1, y1), (p2, y2) in zip(ours, theirs, strict=True):
        assert y1 == y2 and p1 == pytest.approx(p2, abs=1e-9)


def test_a_cards_history_is_cut_at_max_seq_len() -> None:
    rows = [(1, 3, _us(T0 + timedelta(days=2 * i)), 0) for i in range(MAX_SEQ_LEN + 6)]
    rows += [(2, 3, _us(T0), 0), (2, 1, _us(T0 + timedelta(days=1)), 0)]
    rows.sort(key=lambda row: row[2])
    h = histories(rows)
    assert h.lengths == [MAX_SEQ_LEN, 2]
    assert int(h.counted.sum()) == MAX_SEQ_LEN - 1 + 1


def test_fitting_lowers_log_loss_on_other_cards_and_reports_each_batch() -> None:
    rows = learner_rows(5, cards=160, days=120)
    train = [row for row in rows if row[0] % 4]
    held_out = [row for row in rows if row[0] % 4 == 0]
    calls: list[tuple[int, int]] = []
    fitted = fit_parameters(
        histories(train), DEFAULT_PARAMETERS, progress=lambda *call: calls.append(call)
    )
    assert log_loss(predict(held_out, fitted)) < log_loss(predict(held_out, None)) - 0.01
    total = calls[-1][1]
    assert total > 5 and [done for done, _ in calls] == list(range(1, total + 1))


def test_a_large_earlier_part_is_fitted_on_a_sample_of_whole_cards() -> None:
    h = histories(random_rows(4, cards=80))
    assert sample_cards(h, h.reviews) is h
    part = sample_cards(h, h.reviews // 3)
    again = sample_cards(h, h.reviews // 3)
    assert h.reviews // 3 - 13 <= part.reviews <= h.reviews // 3  # whole cards, under budget
    assert part.lengths == again.lengths and torch.equal(part.rating, again.rating)
    whole = {tuple(h.rating[:, j].tolist()) for j in range(h.cards)}
    for j in range(part.cards):  # each sampled column is one card's full history
        column = part.rating[:, j].tolist() + [0] * (h.rating.shape[0] - part.rating.shape[0])
        assert tuple(column) in whole

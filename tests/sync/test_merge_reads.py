"""A sync's merge reads what it needs of all its cards at once (srs/mergewrites.py): each card
gets its own rows, oldest first, whether few or many answers given here wait to go out (the
two ways the answers without an Anki id are read)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from studykit.srs import mergewrites
from studykit.srs.records import to_us
from studykit.srs.scheduler import Rating, State, card_key
from studykit.srs.store import CardState, Store

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _answer(store: Store, state: CardState, at: datetime, rating: Rating) -> tuple[CardState, int]:
    after = CardState(
        state.key,
        state.deck_id,
        state.card_id,
        state=State.Review,
        due=at + timedelta(days=1),
        last_review=at,
        reps=state.reps + 1,
    )
    answer_id = store.record_answer(state, after, rating=rating, reviewed_at=at, duration_ms=1)
    return after, answer_id


@pytest.mark.parametrize("per_card", [0, 10], ids=["many-waiting", "few-waiting"])
def test_merge_reads_each_cards_own_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, per_card: int
) -> None:
    monkeypatch.setattr(mergewrites, "_UNLINKED_PER_CARD", per_card)
    with Store.open(tmp_path / "studykit.sqlite3") as store:
        a, b, c, d = (CardState(card_key("d", name), "d", name) for name in "abcd")
        # Answered out of time order: the later answer has the lower id.
        a, late = _answer(store, a, T0 + timedelta(minutes=2), Rating.Good)
        a, early = _answer(store, a, T0 + timedelta(minutes=1), Rating.Hard)
        a, same = _answer(store, a, T0 + timedelta(minutes=1), Rating.Easy)
        b, sent = _answer(store, b, T0, Rating.Good)
        b, waiting = _answer(store, b, T0 + timedelta(hours=1), Rating.Again)
        store.set_anki_ids([(sent, 1234)])
        forgot = store.forget_card(CardState(b.key, "d", "b"), at=T0 + timedelta(hours=2))
        assert forgot is not None
        d, _ = _answer(store, d, T0, Rating.Good)  # not read: another card
        with store.anki_merge() as tx:
            tx.add_seen(7, c.key, "set-due", at=T0 + timedelta(days=2), due=T0)
            tx.add_seen(5, c.key, "set-due", at=T0 + timedelta(days=1))
            tx.add_seen(6, c.key, "cram", at=T0)
        with store.anki_merge() as tx:
            facts = tx.facts([a.key, b.key, c.key])
            logs = tx.logs([a.key, c.key])
        minute = timedelta(minutes=1)
        assert facts[a.key].unlinked == [
            (early, to_us(T0 + minute), int(Rating.Hard)),
            (same, to_us(T0 + minute), int(Rating.Easy)),
            (late, to_us(T0 + 2 * minute), int(Rating.Good)),
        ]
        assert facts[a.key].state == a and facts[a.key].last_us == to_us(T0 + 2 * minute)
        assert facts[b.key].unlinked == [(waiting, to_us(T0 + timedelta(hours=1)), 1)]
        assert facts[b.key].last_us == to_us(T0 + timedelta(hours=2))  # the forget
        assert facts[c.key] == mergewrites.CardFacts(
            None,
            [],
            [(to_us(T0 + timedelta(days=1)), None), (to_us(T0 + timedelta(days=2)), to_us(T0))],
            None,
        )
        assert [answer.id for answer in logs[a.key].history] == [early, same, late]
        assert logs[c.key] == mergewrites.CardLog([], [])

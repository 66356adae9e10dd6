"""studykit reads and writes only its own notes, cards and notetypes: a collection's other
decks, with their reviews, come through a sync unchanged."""

from __future__ import annotations

from typing import Any

from tests.anki_backend import database
from tests.sync.helpers import Phone, Student


def _foreign(phone: Phone) -> dict[str, list[tuple[Any, ...]]]:
    db = database(phone.col)
    french = phone.col.decks.id_for_name("French")
    cards = db.all("SELECT * FROM cards WHERE did = ? ORDER BY id", french)
    nids = sorted({row[1] for row in cards})
    marks = ",".join(str(n) for n in nids)
    cids = ",".join(str(row[0]) for row in cards)
    return {
        "notes": [
            tuple(r) for r in db.all(f"SELECT * FROM notes WHERE id IN ({marks}) ORDER BY id")
        ],
        "cards": [tuple(r) for r in cards],
        "revlog": [
            tuple(r) for r in db.all(f"SELECT * FROM revlog WHERE cid IN ({cids}) ORDER BY id")
        ],
        "notetype": [tuple(r) for r in db.all("SELECT * FROM notetypes WHERE name = 'Basic'")],
    }


def test_a_foreign_deck_with_its_reviews_is_left_untouched(student: Student, phone: Phone) -> None:
    col = phone.col
    deck = col.decks.id("French")
    basic = col.models.by_name("Basic")
    assert deck is not None and basic is not None
    for word, meaning in (("chat", "cat"), ("chien", "dog"), ("pain", "bread")):
        note = col.new_note(basic)
        note["Front"], note["Back"] = word, meaning
        col.add_note(note, deck)
    col.decks.select(deck)
    for rating in (3, 1, 4):
        card = col.sched.getCard()
        assert card is not None
        col.sched.answerCard(card, rating)
    assert phone.sync() == "upload"  # the phone's collection is on the server first
    before = _foreign(phone)
    assert len(before["revlog"]) == 3
    student.answer("one", 3)
    report = student.sync()
    assert report.full == "download" and report.answers_in == 0 and report.answers_out == 1
    phone.sync()
    assert _foreign(phone) == before  # every column of every row, usn and mod included
    assert [row[1] for row in phone.revlog("one")] == [3]
    card = col.sched.getCard()  # the French deck is still selected
    assert card is not None
    col.sched.answerCard(card, 3)
    phone.sync()
    after = student.sync()
    assert after.answers_in == 0  # a French answer is none of studykit's business

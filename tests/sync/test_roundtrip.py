"""Answers travel both ways through a real sync server, and are never doubled."""

from __future__ import annotations

from tests.sync.helpers import Phone, Student


def test_studykit_answers_reach_the_phone(student: Student, phone: Phone) -> None:
    student.answer("one", 3)
    student.answer("two", 1)
    report = student.sync()
    assert report.full == "upload"
    assert report.answers_out == 2
    assert phone.sync() == "download"
    assert [row[1] for row in phone.revlog("one")] == [3]
    assert [row[1] for row in phone.revlog("two")] == [1]
    card = phone.card("alpha", "one")
    assert card.type != 0 and card.memory_state is not None  # scheduled, with its memory state


def test_phone_answers_come_back_once(student: Student, phone: Phone) -> None:
    student.sync()
    phone.sync()
    phone.answer("one", 3)
    phone.answer("three", 4)
    phone.sync()
    report = student.sync()
    assert report.answers_in == 2
    assert [a.rating for a in student.history("one")] == [3]
    assert student.history("three")[0].source == "anki"
    assert student.state("three").state is not None
    again = student.sync()
    assert again.answers_in == 0
    assert len(student.history("one")) == 1 and len(student.history("three")) == 1

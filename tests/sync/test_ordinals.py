"""Every Anki card of a studykit note is its own schedule: (deck, card, ord + 1)."""

from __future__ import annotations

from tests.sync.helpers import Phone, Student


def test_each_direction_and_deletion_travels_as_its_own_schedule(
    student: Student, phone: Phone
) -> None:
    student.answer("both", 3, ordinal=2)  # the reversed card's back-to-front direction
    student.answer("gap", 4, ordinal=1)  # the cloze's c1
    student.sync()
    phone.sync()
    assert phone.revlog("both", 0) == [] and [r[1] for r in phone.revlog("both", 1)] == [3]
    assert [r[1] for r in phone.revlog("gap", 0)] == [4] and phone.revlog("gap", 1) == []
    assert phone.card("alpha", "both", 1).type != 0 and phone.card("alpha", "both", 0).type == 0
    phone.answer("gap", 1, ord_=1)  # c2 on the phone
    phone.answer("both", 2, ord_=0)  # the front-to-back direction
    phone.col.sched.suspend_cards([phone.card("alpha", "gap", 0).id])  # c1 suspended there
    phone.sync()
    report = student.sync()
    assert report.answers_in == 2 and report.suspended_in == 1
    assert [(a.rating, a.ordinal) for a in student.history("gap", 2)] == [(1, 2)]
    assert [(a.rating, a.ordinal) for a in student.history("both", 1)] == [(2, 1)]
    assert [a.rating for a in student.history("both", 2)] == [3]  # its own, untouched
    assert student.state("gap", 1).suspended and not student.state("gap", 2).suspended

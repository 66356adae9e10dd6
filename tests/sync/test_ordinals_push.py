"""Two schedules of one card answered here go out in the same sync, each on its Anki card."""

from __future__ import annotations

from tests.sync.helpers import Phone, Student


def test_both_directions_answered_here_go_out_together(student: Student, phone: Phone) -> None:
    student.sync()
    phone.sync()
    student.answer("both", 3, ordinal=1)
    student.answer("both", 4, ordinal=2)
    student.answer("gap", 2, ordinal=2)
    report = student.sync()
    assert report.answers_out == 3
    assert student.session().store.unsent_count() == (0, 0)
    phone.sync()
    assert [r[1] for r in phone.revlog("both", 0)] == [3]
    assert [r[1] for r in phone.revlog("both", 1)] == [4]
    assert phone.revlog("gap", 0) == [] and [r[1] for r in phone.revlog("gap", 1)] == [2]
    assert phone.card("alpha", "both", 1).type != 0 and phone.card("alpha", "gap", 1).type != 0

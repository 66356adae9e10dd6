"""What the student changes in Anki: suspensions and burials come over, a forget and a set due
date are no answers, an edit or a deletion is a conflict (YAML is the master copy), and a cram
deck follows the quiz rule."""

from __future__ import annotations

from pathlib import Path

from tests.anki_backend import database
from tests.sync.helpers import DECK_YAML, Phone, Student, write_root


def _synced(student: Student, phone: Phone) -> None:
    student.sync()
    phone.sync()


def test_suspend_unsuspend_and_bury_in_anki_become_the_same_here(
    student: Student, phone: Phone
) -> None:
    _synced(student, phone)
    one, two = phone.card("alpha", "one"), phone.card("alpha", "two")
    phone.col.sched.suspend_cards([one.id])
    phone.col.sched.bury_cards([two.id])
    phone.sync()
    report = student.sync()
    assert (report.suspended_in, report.buried_in) == (1, 1)
    assert student.state("one").suspended
    two_state = student.state("two")
    assert two_state.buried_until is not None
    phone.col.sched.unsuspend_cards([one.id])
    phone.sync()
    report = student.sync()
    assert report.unsuspended_in == 1
    assert not student.state("one").suspended
    again = student.sync()
    assert (again.suspended_in, again.unsuspended_in, again.buried_in) == (0, 0, 0)


def test_a_suspension_here_goes_out_and_is_not_read_back_as_anki_s(
    student: Student, phone: Phone
) -> None:
    _synced(student, phone)
    session = student.session()
    session.suspend(session.study_card("alpha", "three"))
    session.close()
    student.sessions.remove(session)
    report = student.sync()
    assert report.states_out >= 1 and report.suspended_in == 0
    phone.sync()
    assert phone.card("alpha", "three").queue == -1
    assert student.sync().unsuspended_in == 0
    assert student.state("three").suspended


def test_a_forget_and_a_set_due_date_in_anki_are_no_answers(student: Student, phone: Phone) -> None:
    student.answer("one", 3)
    student.answer("two", 4)
    _synced(student, phone)
    one, two = phone.card("alpha", "one"), phone.card("alpha", "two")
    phone.col.sched.schedule_cards_as_new([one.id], restore_position=True, reset_counts=False)
    phone.answer("two", 4)  # into review, so a due date can be set
    phone.col.sched.set_due_date([two.id], "7")
    phone.sync()
    report = student.sync()
    assert report.forgets_in == 1 and report.set_due_in == 1 and report.answers_in == 1
    assert [a.rating for a in student.history("one")] == [3]  # no answer was made of it
    assert student.state("one").state is None  # reset to new here too
    two_state = student.state("two")
    session = student.session()
    days = (session.study_day(two_state.due) - session.study_day(session.now())).days
    assert days == 7  # the due date set in Anki holds here
    again = student.sync()
    assert (again.forgets_in, again.set_due_in, again.answers_in) == (0, 0, 0)


def test_a_note_edited_in_anki_is_a_conflict_until_the_yaml_changes(
    student: Student, phone: Phone
) -> None:
    _synced(student, phone)
    note = phone.card("alpha", "two").note()
    note["Back"] = "Changed on the phone"
    phone.col.update_note(note)
    phone.sync()
    report = student.sync()
    (conflict,) = report.conflicts
    assert conflict.kind == "edited" and conflict.card_id == "two"
    assert conflict.where.endswith("alpha.yaml:7")
    assert "Back" in conflict.detail and "Changed on the phone" in conflict.detail
    assert student.sync().conflicts[0].card_id == "two"  # said at every sync while it lasts
    phone.sync()
    assert phone.card("alpha", "two").note()["Back"] == "Changed on the phone"  # kept in Anki
    write_root(student.settings.root, DECK_YAML.replace("The second.", "The second, revised."))
    report = student.sync()
    assert report.conflicts == []
    assert [c.kind for c in report.ended] == ["replaced"]
    phone.sync()
    assert "revised" in phone.card("alpha", "two").note()["Back"]


def test_a_note_deleted_in_anki_is_reported_and_not_brought_back(
    student: Student, phone: Phone
) -> None:
    student.answer("three", 3)
    _synced(student, phone)
    phone.col.remove_notes([phone.card("alpha", "three").nid])
    phone.sync()
    report = student.sync()
    (conflict,) = report.conflicts
    assert conflict.kind == "deleted" and conflict.card_id == "three"
    assert student.state("three").state is not None  # its schedule stays here
    student.sync()
    phone.sync()
    guid_rows = database(phone.col).scalar("SELECT count(*) FROM notes WHERE flds LIKE '%three%'")
    assert guid_rows == 0  # not silently brought back
    write_root(student.settings.root, DECK_YAML.replace("The third.", "The third, again."))
    report = student.sync()
    assert [c.kind for c in report.ended] == ["brought-back"]
    phone.sync()
    assert "again" in phone.card("alpha", "three").note()["Back"]


def _cram_deck(phone: Phone, *, reschedule: bool) -> None:
    deck = phone.col.sched.get_or_create_filtered_deck(deck_id=0)  # type: ignore[arg-type]
    deck.name = "Cram"
    deck.config.reschedule = reschedule
    deck.config.search_terms[0].search = '"deck:Sync::Alpha"'
    deck.config.search_terms[0].limit = 100
    phone.col.sched.add_or_update_filtered_deck(deck)


def test_answers_from_a_cram_deck_follow_the_quiz_rule(
    student: Student, phone: Phone, tmp_path: Path
) -> None:
    student.answer("one", 4)  # scheduled, not due today
    _synced(student, phone)
    before = student.state("one")
    _cram_deck(phone, reschedule=False)
    phone.answer("one", 1)  # crammed: not due, so its schedule stays as it was
    phone.answer("two", 3)  # a new card crammed: not due either
    phone.sync()
    report = student.sync()
    assert report.cram_left_out == 2 and report.answers_in == 0
    assert student.state("one") == before
    assert len(student.history("one")) == 1
    assert student.sync().cram_left_out == 0  # taken in once


def test_while_a_deck_fails_to_load_answers_sync_but_no_content_goes_out(
    student: Student, phone: Phone
) -> None:
    _synced(student, phone)
    phone.answer("one", 3)
    phone.sync()
    (student.settings.root / "decks" / "alpha.yaml").write_text("id: alpha\ncards: [\n")
    report = student.sync()
    assert report.content_held == 1 and report.answers_in == 1
    assert any("failed to load" in line for line in report.lines())
    phone.sync()
    tags = database(phone.col).list("SELECT tags FROM notes")
    assert tags and not any("removed" in tag for tag in tags)  # nothing went out as removed

"""FSRS is one switch for a whole Anki collection: said at each sync while off, switched on
only when asked. studykit's presets carry its fitted parameters."""

from __future__ import annotations

from studykit.export.presets import preset_id
from studykit.srs.scheduler import Scheduler
from tests.sync.helpers import Phone, Student


def _a_collection_of_the_phones_own(phone: Phone) -> None:
    """The phone's collection, with a deck of its own and FSRS off (Anki's default), goes up
    first: the one studykit syncs with is the user's."""
    col = phone.col
    deck = col.decks.id("French")
    basic = col.models.by_name("Basic")
    assert deck is not None and basic is not None
    note = col.new_note(basic)
    note["Front"], note["Back"] = "chat", "cat"
    col.add_note(note, deck)
    assert not col.get_config("fsrs", False)
    assert phone.sync() == "upload"


def test_fsrs_off_is_said_at_each_sync_and_switched_on_only_when_asked(
    student: Student, phone: Phone
) -> None:
    _a_collection_of_the_phones_own(phone)
    first = student.sync()
    assert first.full == "download"
    assert not first.fsrs and any("FSRS is off" in line for line in first.lines())
    assert not student.sync().fsrs  # said again
    phone.sync()
    assert not phone.col.get_config("fsrs", False)
    switched = student.sync(enable_fsrs=True)
    assert switched.fsrs_enabled
    assert any("FSRS is now on" in line for line in switched.lines())
    phone.sync()
    assert phone.col.get_config("fsrs", False) is True
    assert student.sync().fsrs  # nothing more to say


def test_a_new_collection_studykit_uploads_has_fsrs_on_and_the_question_says_so(
    student: Student, phone: Phone
) -> None:
    asked: list[str] = []

    def confirm(question: str) -> bool:
        asked.append(question)
        return True

    first = student.sync(yes=False, confirm_upload=confirm)
    assert first.full == "upload" and first.fsrs_enabled
    assert asked and asked[0].endswith(
        "(a new Anki collection, with FSRS on as studykit schedules)?"
    )
    assert any("FSRS is now on" in line for line in first.lines())
    assert phone.sync() == "download"
    assert phone.col.get_config("fsrs", False) is True
    student.answer("one", 3)
    assert student.sync().fsrs
    phone.sync()
    assert phone.card("alpha", "one").memory_state is not None


def test_presets_carry_the_fitted_parameters(student: Student, phone: Phone) -> None:
    fitted = [round(w * 1.01, 4) for w in Scheduler().parameters]
    session = student.session()
    session.set_memory_model(None, fitted, reviews=1000, cards=100)
    session.close()
    student.sessions.remove(session)
    report = student.sync()
    assert report.presets_updated >= 1
    phone.sync()
    preset = phone.col.decks.get_config(preset_id("alpha"))  # type: ignore[arg-type]
    assert preset is not None and preset["id"] == preset_id("alpha")
    assert [round(w, 4) for w in preset["fsrsParams6"]] == fitted
    assert preset["desiredRetention"] == 0.9
    alpha = phone.col.decks.id("Sync::Alpha", create=False)
    assert alpha is not None
    assert phone.col.decks.config_dict_for_deck_id(alpha)["id"] == preset_id("alpha")

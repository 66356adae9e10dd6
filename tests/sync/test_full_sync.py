"""When the server asks for a full sync, the mirror downloads and studykit pushes again."""

from __future__ import annotations

from tests.sync.helpers import Phone, Student


def _mark_mirror_schema_changed(student: Student) -> None:
    """What makes Anki ask for a full sync: the collection's schema changed (here, the mirror's)."""
    from anki.collection import Collection

    col = Collection(str(student.paths.collection))
    try:
        col.set_schema_modified()
    finally:
        col.close()


def test_a_full_sync_downloads_so_the_phones_unsynced_answers_survive(
    student: Student, phone: Phone
) -> None:
    student.sync()
    phone.sync()
    phone.answer("one", 3)
    phone.answer("two", 4)  # two answers on the phone, not synced yet
    _mark_mirror_schema_changed(student)
    student.answer("three", 3)
    report = student.sync()
    assert report.full == "download"  # never an upload over the server's collection
    assert report.answers_out == 1
    assert phone.sync() == "normal"  # the server kept its schema: the phone syncs normally
    assert [row[1] for row in phone.revlog("three")] == [3]
    back = student.sync()
    assert back.answers_in == 2
    assert [a.source for a in student.history("one")] == ["anki"]
    assert [a.rating for a in student.history("two")] == [4]


def test_after_the_server_was_replaced_studykit_pushes_its_answers_again(
    student: Student, phone: Phone
) -> None:
    student.sync()
    phone.sync()
    student.answer("one", 3)
    student.sync()  # "one" is on the server now, but not on the phone
    phone.answer("two", 3)
    phone.col.set_schema_modified()
    assert phone.sync(full="upload") == "upload"  # the server is the phone's now: no "one"
    report = student.sync()
    assert report.full == "download"
    assert report.answers_in == 1  # the phone's answer
    phone.sync()
    assert [row[1] for row in phone.revlog("one")] == [3]  # sent again after the download
    assert phone.card("alpha", "one").type != 0  # with its state
    assert len(student.history("one")) == 1
    assert student.sync().answers_in == 0

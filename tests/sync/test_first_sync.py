"""A first sync with an Anki collection that already has studykit's notes, from a package
exported and imported with its progress before sync existed for this student."""

from __future__ import annotations

from pathlib import Path

from tests.sync.helpers import Phone, Student


def test_answers_made_before_the_first_sync_come_in_once(
    student: Student, phone: Phone, tmp_path: Path
) -> None:
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    from studykit.export import export_anki

    student.answer("one", 3)
    session = student.session()
    package = tmp_path / "alpha.apkg"
    export_anki(session.library, package, session=session)
    session.close()
    student.sessions.remove(session)
    options = ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True)
    phone.col.import_anki_package(
        ImportAnkiPackageRequest(package_path=str(package), options=options)
    )
    assert [row[1] for row in phone.revlog("one")] == [3]  # studykit's answer, by the package
    phone.answer("two", 3)
    phone.answer("three", 1)
    assert phone.sync() == "upload"
    report = student.sync()
    assert report.full == "download"
    assert report.answers_in == 2  # the phone's two, placed by the YAML's GUIDs
    assert [a.source for a in student.history("one")] == [None]  # not taken in again
    assert [a.rating for a in student.history("three")] == [1]
    phone.sync()
    assert [row[1] for row in phone.revlog("one")] == [3]  # and not sent again
    assert student.sync().answers_in == 0

"""Answers travel both ways through a real sync server, and are never doubled."""

from __future__ import annotations

import gc
from pathlib import Path

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


def test_the_same_card_answered_on_both_sides_on_one_day_keeps_both(
    student: Student, phone: Phone
) -> None:
    student.sync()
    phone.sync()
    student.answer("one", 3)  # here first (the clock's now) ...
    phone.answer("one", 1)  # ... then on the phone, later the same day
    phone.sync()
    report = student.sync()
    assert report.answers_in == 1 and report.answers_out == 1
    history = student.history("one")
    assert [(a.rating, a.source) for a in history] == [(3, None), (1, "anki")]
    # Replayed in time order: the Again after the Good is a lapse of a learning card.
    assert history[1].before == history[0].after
    final = student.state("one")
    assert final == history[1].after
    phone.sync()
    assert [row[1] for row in phone.revlog("one")] == [3, 1]  # both on the phone too
    card = phone.card("alpha", "one")
    assert card.memory_state is not None
    assert abs(card.memory_state.stability - final.stability) < 0.01


def test_an_empty_server_is_not_uploaded_to_without_asking(student: Student) -> None:
    from studykit.sync.errors import UploadDeclined

    student.answer("one", 3)
    try:
        student.sync(yes=False)
    except UploadDeclined as error:
        assert "--yes" in str(error)
    else:
        raise AssertionError("uploaded without asking")
    asked: list[str] = []
    collecting: list[bool] = []

    def confirm(question: str) -> bool:
        asked.append(question)
        collecting.append(gc.isenabled())
        return True

    report = student.sync(yes=False, confirm_upload=confirm)
    assert asked and "holds no collection" in asked[0]
    # The app's garbage collector runs while the question waits on the user (a sync pauses
    # it only in the steps that build many rows).
    assert collecting == [True]
    assert report.full == "upload" and report.answers_out == 1


def test_an_older_answer_from_anki_is_replayed_before_a_newer_one_here(
    student: Student, phone: Phone
) -> None:
    student.sync()
    phone.sync()
    phone.answer("two", 1)  # on the phone first ...
    phone.sync()
    student.answer("two", 4)  # ... then here, before this sync has seen the phone's
    report = student.sync()
    assert report.answers_in == 1
    history = sorted(student.history("two"), key=lambda a: a.reviewed_at)
    assert [(a.rating, a.source) for a in history] == [(1, "anki"), (4, None)]
    # The Easy here was first computed from a new card; replayed, it builds on the Again.
    assert history[1].before == history[0].after
    assert history[1].before.state is not None
    assert student.state("two") == history[1].after


def test_a_card_image_reaches_the_phone_through_the_media_sync(
    student: Student, phone: Phone
) -> None:
    import base64
    import time

    from tests.sync.helpers import DECK_YAML, write_root

    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
    )
    root = student.settings.root
    (root / "decks" / "dot.png").write_bytes(png)
    write_root(root, DECK_YAML.replace("back: The first.", 'back: "The first. ![a dot](dot.png)"'))
    report = student.sync()
    assert report.media is None  # the media sync went through
    phone.sync()
    phone.col.sync_media(phone.auth)
    deadline = time.monotonic() + 30
    while phone.col.media_sync_status().active and time.monotonic() < deadline:
        time.sleep(0.01)
    files = list((Path(phone.col.media.dir())).iterdir())
    assert [f.read_bytes() for f in files if f.name.startswith("studykit-")] == [png]

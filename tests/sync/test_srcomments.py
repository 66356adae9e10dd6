"""The SR comments are rewritten in place, and nothing else in the note changes."""

from __future__ import annotations

from datetime import date

from studykit.importers.srschedule import Schedule
from studykit.sync.srcomments import CardSpan, rewrite

ONE = Schedule(date(2026, 5, 1), 4, 250)
TWO = Schedule(date(2026, 6, 2), 9, 270)


def test_an_inline_comment_is_replaced_where_it_is() -> None:
    text = "Q::A <!--SR:!2026-01-01,3,250--> tail\r\nnext::line\r\n"
    assert rewrite(text, [(CardSpan(1, 1), [ONE])]) == (
        "Q::A <!--SR:!2026-05-01,4,250--> tail\r\nnext::line\r\n"
    )


def test_a_comment_on_the_line_after_a_card_is_its_own() -> None:
    text = "Question\n?\nAnswer\n<!--SR:!2026-01-01,3,250-->\nQ2::A2\n"
    out = rewrite(text, [(CardSpan(1, 3), [ONE, TWO])])
    assert out == "Question\n?\nAnswer\n<!--SR:!2026-05-01,4,250!2026-06-02,9,270-->\nQ2::A2\n"


def test_the_next_cards_comment_is_never_taken() -> None:
    text = "Q1::A1\nQ2::A2 <!--SR:!2026-01-01,3,250-->\n"
    out = rewrite(text, [(CardSpan(1, 1), [ONE])])
    assert out == "Q1::A1 <!--SR:!2026-05-01,4,250-->\nQ2::A2 <!--SR:!2026-01-01,3,250-->\n"


def test_a_multi_line_card_without_one_gets_a_line_of_its_own_crlf_kept() -> None:
    text = "Question\r\n?\r\nAnswer"
    assert rewrite(text, [(CardSpan(1, 3), [ONE])]) == (
        "Question\r\n?\r\nAnswer\r\n<!--SR:!2026-05-01,4,250-->\r\n"
    )

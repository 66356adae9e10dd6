"""Notes open quickly: the warm-up parses the sections' markdown, and each is drawn once."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest
from rich.console import Console, ConsoleOptions
from rich.markdown import Markdown
from rich.segment import Segment

from studykit.study.session import StudySession
from studykit.tui.app import make_app
from studykit.tui.screens.notes import NotesScreen, SectionView
from studykit.tui.warmup import prepare_notes
from studykit.tui.widgets.drawn_markdown import (
    DRAWINGS_KEPT,
    TEXTS_KEPT,
    DrawnMarkdown,
    prepared_markdown,
)
from tests.conftest import FakeClock, make_library

from .helpers import at_home, settle
from .screens_library import library, with_history

MakeSession = Callable[..., StudySession]
TEXT = """# A heading

A paragraph with *emphasis*, `code` and a long line that has to wrap at the narrower widths
of a terminal, λ and ∂ too.

- one item
- another item, with a long tail that wraps as well when the column is narrow

| a | b |
|---|---|
| 1 | 2 |

```
code block
```
"""


def test_a_drawn_markdown_draws_what_rich_draws_at_every_width() -> None:
    console = Console(width=100, color_system="truecolor", force_terminal=True)  # as the app's

    def drawn(renderable: Any, width: int) -> list[Segment]:
        return list(console.render(renderable, console.options.update_width(width)))

    markdown = DrawnMarkdown(TEXT)
    for width in (60, 24, 100, 60, 24):  # widths again: from what it kept
        assert drawn(markdown, width) == drawn(Markdown(TEXT, hyperlinks=False), width), width


def test_one_text_is_parsed_once() -> None:
    assert prepared_markdown(TEXT + "once") is prepared_markdown(TEXT + "once")


@pytest.fixture
def session(make_session: MakeSession, fixed_clock: FakeClock) -> StudySession:
    """The screens' library, its note long enough to scroll at both sizes."""
    short = library()
    notes = [
        note.model_copy(
            update={
                "sections": tuple(
                    section.model_copy(update={"body": "\n\n".join([section.body] * 4)})
                    for section in note.sections
                )
            }
        )
        for note in short.notes.values()
    ]
    return with_history(make_session(make_library(list(short.decks.values()), notes)), fixed_clock)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_notes_after_the_warm_up_parse_no_markdown_and_draw_each_section_once(
    session: StudySession, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    prepare_notes(session, lambda: False)
    parsed: list[str] = []
    drawings: list[int] = []
    parse, draw = Markdown.__init__, Markdown.__rich_console__

    def counted_parse(markdown: Markdown, text: str, *args: Any, **kwargs: Any) -> None:
        parsed.append(text)
        parse(markdown, text, *args, **kwargs)

    def counted_draw(
        markdown: Markdown, console: Console, options: ConsoleOptions
    ) -> Iterable[Any]:
        drawings.append(options.max_width)
        return draw(markdown, console, options)

    monkeypatch.setattr(Markdown, "__init__", counted_parse)
    monkeypatch.setattr(Markdown, "__rich_console__", counted_draw)
    app = make_app(session.settings, session=session)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, lambda: at_home(app))
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, NotesScreen))
        await pilot.pause()
        sections = list(app.screen.query(SectionView))
        text = app.screen.query_one("#note-text")
        assert text.virtual_size.height > text.size.height  # it scrolls (a scrollbar came)
    assert sections and not parsed, "the warm-up left markdown for Notes to parse"
    assert len(drawings) == len(sections), f"sections drawn at widths {drawings}"


def test_what_a_drawn_markdown_keeps_is_bounded() -> None:
    console = Console(width=120, color_system="truecolor", force_terminal=True)
    markdown = DrawnMarkdown(TEXT)
    for width in range(30, 120, 9):  # a terminal resized again and again
        list(console.render(markdown, console.options.update_width(width)))
    assert len(markdown._drawn) <= DRAWINGS_KEPT
    assert prepared_markdown.cache_info().maxsize == TEXTS_KEPT

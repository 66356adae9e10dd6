"""Notes: a note's sections as markdown, with a section list on the left to jump."""

from __future__ import annotations

from typing import ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from studykit.content.citations import CLAIM_VALUES, uncomputed_claims
from studykit.content.model import Note, Section
from studykit.core.terminal import terminal_safe
from studykit.study.cardtext import cited_markdown
from studykit.tui.guard import GuardedHandlers, LoudWorkers
from studykit.tui.messages import ExperimentRequested
from studykit.tui.screens import SCREENS_CSS
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.widgets.drawn_markdown import TEXTS_KEPT, prepared_markdown
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar

CLAIMS_WORKER = "claim-values"


_FINAL_TEXTS: dict[int, tuple[Section, Note, str]] = {}
"""By the section's id(): its markdown once it waits for no claim (it holds the section, so
that id is not reused while kept)."""


def section_text(section: Section, note: Note) -> tuple[str, set[str]]:
    """A section's markdown (citations rendered, claims not computed yet as `…`) and the
    claims it waits for. Once it waits for none it is final, and kept: the warm-up prepares
    every note's sections, so opening Notes renders none of them again."""
    kept = _FINAL_TEXTS.get(id(section))
    if kept is not None and kept[0] is section and kept[1] is note:
        return kept[2], set()
    markdown = cited_markdown(section.body, note, pending=True)
    waiting = set(uncomputed_claims([section.body], note))
    if not waiting:
        if len(_FINAL_TEXTS) >= TEXTS_KEPT:
            _FINAL_TEXTS.clear()
        _FINAL_TEXTS[id(section)] = (section, note, markdown)
    return markdown, waiting


def section_widget_id(section_id: str) -> str:
    """Widget id of a section (section ids may start with a digit; widget ids may not)."""
    return f"section-{section_id}"


class SectionView(GuardedHandlers, Vertical):
    """A section's title and its body: citations rendered, markdown with maths as Unicode."""

    def __init__(self, number: int, section: Section, note: Note) -> None:
        super().__init__(id=section_widget_id(section.id), classes="section")
        self.number = number
        self.section = section
        self.note = note
        # Claims not computed yet show `…`; the screen computes them off the UI thread. Only
        # the values of those it waits for can change what it shows.
        self.markdown, self.waiting = section_text(section, note)

    def compose(self) -> ComposeResult:
        title = terminal_safe(self.section.title)
        yield Static(f"{self.number}. {title}", classes="section-title", markup=False)
        # Rich's markdown is one renderable: a long note shows at once, where a widget per
        # block (textual's Markdown) takes seconds to lay out. Parsed in the warm-up.
        yield Static(prepared_markdown(self.markdown), classes="section-body")
        ref = self.section.experiment
        if ref is not None:
            params = terminal_safe(", ".join(f"{k}={v}" for k, v in ref.params.items()))
            yield Static(
                f"Experiment: {ref.name}({params}) — press e to run it",
                classes="section-experiment",
                markup=False,
            )

    def refresh_citations(self) -> None:
        """Show the claim values computed since it was drawn (its `…` go)."""
        computed = {expr for expr in self.waiting if CLAIM_VALUES.known(expr)}
        if not computed:
            return  # nothing it waits for came in: the same text (a long note, many sections)
        self.waiting -= computed
        markdown, _ = section_text(self.section, self.note)
        if markdown != self.markdown:
            self.markdown = markdown
            body = self.query_one(".section-body", Static)
            body.update(prepared_markdown(markdown))


class ClaimsComputed(Message):
    """More claim values are in the cache; the sections show them."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ClaimsComputed)  # one redraw for a run of them


class NotesScreen(SizedScreen, GuardedHandlers, LoudWorkers, Screen[None]):
    """Read a note; opened from home (the deck's note) or review (the card's source section)."""

    worker_titles: ClassVar[dict[str, str]] = {CLAIMS_WORKER: "Could not compute the claims"}

    CSS_PATH = SCREENS_CSS

    SUB_TITLE = "Notes"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("tab", "app.focus_next", "Switch pane", show=False),
        Binding("e", "experiment", "Run section's experiment"),
        Binding("t", "toggle_sections", "Sections"),
        # Undo acts where its result shows; here it only says so.
        Binding("u", "undo", "Undo (on Review and Browse)", show=False),
    ]

    def __init__(self, note: Note, *, section_id: str | None = None) -> None:
        super().__init__(id="notes")
        self.sub_title = terminal_safe(note.title)
        self.note = note
        self.section_id = section_id if note.section(section_id or "") else None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="notes-body"):
            yield OptionList(
                *(
                    Option(f"{i}. {terminal_safe(section.title)}", id=section.id)
                    for i, section in enumerate(self.note.sections, start=1)
                ),
                id="sections",
            )
            with VerticalScroll(id="note-text"):
                number = f"{self.note.number} " if self.note.number else ""
                title = terminal_safe(f"{number}{self.note.title}")
                yield Static(title, id="note-title", markup=False)
                if self.note.path:
                    path = terminal_safe(" › ".join(self.note.path))
                    yield Static(path, id="note-path", markup=False)
                for i, section in enumerate(self.note.sections, start=1):
                    yield SectionView(i, section, self.note)
        yield StudyFooter()

    def on_mount(self) -> None:
        sections = self.query_one("#sections", OptionList)
        sections.focus()
        self.call_after_refresh(self._focus_shown)  # breakpoint classes arrive with the size
        if self.section_id is not None:
            sections.highlighted = sections.get_option_index(self.section_id)
            self.call_after_refresh(self.jump_to, self.section_id)
        else:
            self.section_id = self.note.sections[0].id  # stay on the title
            sections.highlighted = 0
        bodies = [section.body for section in self.note.sections]
        todo = uncomputed_claims(bodies, self.note)
        if todo:
            self.compute_claims(todo)

    @work(thread=True, exit_on_error=False, group="claims", name=CLAIMS_WORKER)
    def compute_claims(self, exprs: list[str]) -> None:
        """The claim values the text waits for, in reading order, off the UI thread."""
        worker = get_current_worker()
        for expr in exprs:
            if worker.is_cancelled:  # the screen was left
                return
            CLAIM_VALUES.value(expr)
            self.post_message(ClaimsComputed())

    def on_claims_computed(self, message: ClaimsComputed) -> None:
        for view in self.query(SectionView):
            view.refresh_citations()

    def jump_to(self, section_id: str) -> None:
        """Scroll the text so the section's title is at the top."""
        self.section_id = section_id
        target = self.query_one(f"#{section_widget_id(section_id)}", SectionView)
        self.query_one("#note-text", VerticalScroll).scroll_to_widget(
            target, animate=False, top=True
        )

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None and event.option.id != self.section_id:
            self.jump_to(event.option.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.remove_class("-sections-open")  # a narrow drawer closes on a choice
            self.query_one("#note-text", VerticalScroll).focus()
            self.jump_to(event.option.id)

    def _sections_shown(self) -> bool:
        if self.has_class("-narrow"):
            return self.has_class("-sections-open")
        return not self.has_class("-sections-closed")

    def _focus_shown(self) -> None:
        """Focus the section list when it is shown, else the text (arrows scroll it)."""
        pane = "#sections" if self._sections_shown() else "#note-text"
        self.query_one(pane).focus()

    def action_toggle_sections(self) -> None:
        """Show or hide the section list (hidden by default on narrow terminals)."""
        if self.has_class("-narrow"):
            self.toggle_class("-sections-open")
        else:
            self.toggle_class("-sections-closed")
        self._focus_shown()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._keep_focus_shown)

    def _keep_focus_shown(self) -> None:
        """After a resize, move focus off a section list that the new width hides."""
        focused = self.focused
        if focused is None or (focused.id == "sections" and not self._sections_shown()):
            self._focus_shown()

    def action_back(self) -> None:
        self.dismiss()

    def action_undo(self) -> None:
        """Say where undo works: nothing here shows what it would undo."""
        self.notify(
            "Nothing is undone on Notes: u undoes on Review and in Browse, "
            "where you see what it undid.",
            severity="warning",
        )

    def action_experiment(self) -> None:
        """Run the current section's experiment with its parameters, if it links one."""
        section = self.note.section(self.section_id or "")
        if section is None or section.experiment is None:
            self.notify("This section links no experiment.", severity="warning")
            return
        ref = section.experiment
        self.post_message(ExperimentRequested(ref.name, dict(ref.params), run=True))

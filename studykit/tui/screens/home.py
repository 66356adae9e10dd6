"""Home: the deck tree with today's counts, and the files that failed to load."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static, Tree

from studykit.core.ids import slug
from studykit.core.terminal import terminal_safe
from studykit.study.session import DeckCounts, StudySession
from studykit.tui.decktools import HomeDeckTools
from studykit.tui.guard import GuardedHandlers
from studykit.tui.messages import (
    BrowseRequested,
    NotesRequested,
    QuizRequested,
    ReloadRequested,
    ReviewRequested,
    ReviewScope,
    StatsRequested,
)
from studykit.tui.screens.error import shown_on_screen
from studykit.tui.screens.sizing import SizedScreen
from studykit.tui.syncing import HomeSync
from studykit.tui.widgets.deck_tree import COUNT_WIDTH, DeckGroup, DeckTree, build_deck_groups
from studykit.tui.widgets.footer import StudyFooter
from studykit.tui.widgets.title_bar import TitleBar


def plural(count: int, word: str) -> str:
    """`1 file`, `2 files`."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def deck_filter(name: str, deck_id: str | None) -> str:
    """A search term for a deck and its sub-decks: `deck:"Full::Name"` (`deck:ID` if quoted)."""
    if '"' not in name:
        return f'deck:"{name}"'
    return "" if deck_id is None else f"deck:{deck_id}"


NOTICE_EVERY_S = 5.0
"""How often home looks for another studykit on the same data folder (a few file locks)."""


class HomeScreen(SizedScreen, GuardedHandlers, HomeSync, HomeDeckTools):
    """The deck list; enter starts a review of the highlighted deck (or its sub-decks)."""

    SUB_TITLE = "Decks"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "review", "Review", show=False),
        Binding("n", "notes", "Notes"),
        Binding("s", "stats", "Stats"),
        Binding("z", "quiz", "Quiz"),
        Binding("r", "reload", "Reload"),
        Binding("x", "export", "Export to Anki"),
        Binding("y", "sync", "Sync"),
        Binding("b", "browse", "Browse"),
        # Off the footer (no room at 120 columns); `?` and the palette list them.
        Binding("c", "custom_study", "Custom study", show=False),
        Binding("o", "deck_options", "Options", show=False),
        # The browser on is:suspended.
        Binding("exclamation_mark", "suspended", "Suspended", key_display="!"),
    ]

    @dataclass
    class ExportRequested(Message):
        """Export these decks to an Anki package named `stem`.apkg."""

        title: str
        deck_ids: tuple[str, ...]
        stem: str

    def __init__(self, session: StudySession | None = None) -> None:
        super().__init__(id="home")
        self._session = session
        self._counts: dict[str, DeckCounts] = {}
        self._stale = False  # another screen was on top: reviews there changed the counts

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="home-body"):
            yield Static("", id="home-notice", markup=False)
            yield Static("", id="deck-columns", markup=False)
            yield DeckTree(id="decks")
            yield Static("", id="deck-info", markup=False)
            yield Static("", id="sync-line", markup=False)
            yield Static("", id="no-decks", markup=False)
        with Vertical(id="problems-box"), VerticalScroll(id="problems"):
            yield Static("", id="problems-text", markup=False)
        yield StudyFooter()

    @property
    def session(self) -> StudySession:
        """The session whose decks home shows; home is up before it has opened (`opened`)."""
        if self._session is None:
            raise RuntimeError("home's session has not opened yet")
        return self._session

    @property
    def opened(self) -> bool:
        """Whether the session has opened and home shows its decks."""
        return self._session is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Home's keys wait, dimmed, for the session (the app's own keys answer at once)."""
        return True if self.opened else None

    def on_mount(self) -> None:
        self.refresh_decks()
        self.query_one(DeckTree).focus()
        self.set_interval(NOTICE_EVERY_S, self.update_notice)

    def on_screen_suspend(self) -> None:
        self._stale = True

    def on_screen_resume(self) -> None:
        # Not on the first showing: on_mount has just counted (twice was a whole redraw).
        if self._stale:
            self._stale = False
            self.refresh_decks()

    def on_deck_tree_resized(self, message: DeckTree.Resized) -> None:
        self._align_titles()

    def _align_titles(self) -> None:
        """The column titles over the tree's counts, at the tree's width now."""
        self.query_one("#deck-columns", Static).update(self._aligned_titles())

    def _aligned_titles(self) -> str:
        counts = "".join(f"{title:>{COUNT_WIDTH}}" for title in ("New", "Learn", "Due"))
        return "Deck".ljust(self.query_one(DeckTree).name_width()) + counts

    def show_loading(self, loading: bool) -> None:
        """A loading indicator in place of the deck list (while a session opens), or not."""
        for tree in self.query(DeckTree):  # none before home has composed
            tree.loading = loading

    def set_session(self, session: StudySession) -> None:
        """Show the session's decks: once it has opened, and after each reload."""
        self._session = session
        if self.is_mounted:  # else on_mount shows them
            self.refresh_decks()
            self.refresh_bindings()

    def refresh_decks(self) -> None:
        """Re-read counts and problems from the session."""
        if not self.opened:
            return
        with shown_on_screen(self, "Could not count your cards"):
            counts = self.session.deck_counts()
            self._counts = {c.deck_id: c for c in counts}
            self._show(build_deck_groups(counts, self.session.scope_remaining))

    def _show(self, groups: list[DeckGroup]) -> None:
        tree = self.query_one(DeckTree)
        tree.loading = False
        tree.set_groups(groups)
        self.call_after_refresh(self._update_info)
        self._align_titles()
        self.call_after_refresh(self._align_titles)  # a tree that was loading has its width now
        empty = self.query_one("#no-decks", Static)
        empty.display = not groups
        empty.update(
            f"No decks found under {self.session.settings.root}/decks. "
            "Add a deck YAML file there, then press r to reload."
        )
        problems = self.session.library.problems
        box = self.query_one("#problems", VerticalScroll)
        box.display = bool(problems)
        files = len({p.path for p in problems})
        heading = f"Not loaded — {plural(len(problems), 'problem')} in {plural(files, 'file')}:"
        lines = [heading, *(str(p) for p in problems)]
        self.query_one("#problems-text", Static).update("\n".join(lines))
        self.update_notice()

    def update_notice(self) -> None:
        """Say so while another studykit has this data folder open (it may show the same card)."""
        if not self.opened:
            return
        others = self.session.other_sessions()
        notice = self.query_one("#home-notice", Static)
        notice.display = bool(others)
        if others:
            notice.update(
                f"This data folder is also open in {others}: both may show you the same "
                "card. Every answer is kept; quit one to study in one place."
            )

    def _highlighted(self) -> DeckGroup | None:
        node = self.query_one(DeckTree).cursor_node
        return node.data if node is not None else None

    def _scope(self, group: DeckGroup) -> ReviewScope:
        return ReviewScope(title=group.full_name, deck_ids=group.deck_ids)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[DeckGroup]) -> None:
        self._update_info()

    def _update_info(self) -> None:
        group = self._highlighted()
        self.query_one("#deck-info", Static).update(self._info(group) if group else "")

    def _info(self, group: DeckGroup) -> str:
        """A line about the highlighted deck: description, size, suspended cards."""
        counts = [self._counts[d] for d in group.deck_ids if d in self._counts]
        total = sum(c.total for c in counts)
        suspended = sum(c.suspended for c in counts)
        parts = [plural(total, "card")]
        if len(counts) > 1:
            parts.insert(0, plural(len(counts), "deck"))
        if suspended:
            parts.append(f"{suspended} suspended")
        deck = self.session.outlines.get(group.deck_id or "")
        if deck is not None and deck.description.strip():
            parts.insert(0, terminal_safe(deck.description.strip()))
        return " · ".join(parts)

    def on_tree_node_selected(self, event: Tree.NodeSelected[DeckGroup]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(ReviewRequested(self._scope(event.node.data)))

    def action_review(self) -> None:
        group = self._highlighted()
        if group is None:
            self.post_message(ReviewRequested(ReviewScope(title="All decks")))
        else:
            self.post_message(ReviewRequested(self._scope(group)))

    def action_notes(self) -> None:
        group = self._highlighted()
        library = self.session.library
        for deck_id in group.deck_ids if group else tuple(library.decks):
            note = library.note_for(library.decks[deck_id])
            if note is not None:
                self.post_message(NotesRequested(note.id))
                return
        self.notify("This deck has no note.", severity="warning")

    def action_quiz(self) -> None:
        """A quiz over the highlighted deck (or every deck)."""
        group = self._highlighted()
        scope = self._scope(group) if group is not None else ReviewScope(title="All decks")
        self.post_message(QuizRequested(scope))

    def action_browse(self) -> None:
        """The card browser on every card."""
        self.post_message(BrowseRequested())

    def action_suspended(self) -> None:
        """The card browser on the suspended cards of the highlighted deck (or every deck)."""
        group = self._highlighted()
        deck = ""
        if group is not None:
            loaded = self.session.outlines.get(group.deck_id or "")
            deck = deck_filter(loaded.name if loaded else group.full_name, group.deck_id)
        self.post_message(BrowseRequested(f"{deck} is:suspended".strip()))

    def action_stats(self) -> None:
        self.post_message(StatsRequested())

    def action_reload(self) -> None:
        self.post_message(ReloadRequested())

    def action_export(self) -> None:
        group = self._highlighted()
        if group is None:
            self.post_message(self.ExportRequested("All decks", (), "studykit"))
        else:
            stem = group.deck_id or slug(group.full_name, fallback="decks")
            self.post_message(self.ExportRequested(group.full_name, group.deck_ids, stem))

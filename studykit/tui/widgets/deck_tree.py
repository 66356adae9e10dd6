"""The deck list: deck names split on `::` into a tree, with new / learning / due counts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from studykit.core.terminal import terminal_safe
from studykit.srs.hierarchy import SEPARATOR, deck_path
from studykit.tui.guard import GuardedHandlers

COUNT_WIDTH = 7
Totals = Callable[[Sequence[str]], tuple[int, int, int]]


class HasCounts(Protocol):
    """What the tree needs from a deck's counts (session.DeckCounts fits)."""

    @property
    def deck_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def new(self) -> int: ...
    @property
    def learning(self) -> int: ...
    @property
    def due(self) -> int: ...


@dataclass
class DeckGroup:
    """One node of the deck tree: maybe a deck itself, maybe a parent of sub-decks."""

    name: str
    path: tuple[str, ...]
    deck_id: str | None = None
    new: int = 0
    learning: int = 0
    due: int = 0
    children: list[DeckGroup] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        return SEPARATOR.join(self.path)

    @property
    def deck_ids(self) -> tuple[str, ...]:
        """Every deck at or below this node, in tree order."""
        return tuple(group.deck_id for group in self.walk() if group.deck_id is not None)

    def walk(self) -> Iterator[DeckGroup]:
        yield self
        for child in self.children:
            yield from child.walk()


def build_deck_groups(counts: Iterable[HasCounts], totals: Totals | None = None) -> list[DeckGroup]:
    """Nest decks by their `::`-separated names; a parent's counts are its subtree's sums.

    With `totals`, every node shows `totals(node.deck_ids)` instead: what reviewing it serves
    when parent decks' limits cap their sub-decks (`StudySession.scope_remaining`).
    """
    top: list[DeckGroup] = []
    index: dict[tuple[str, ...], DeckGroup] = {}
    for deck in counts:
        parts = deck_path(terminal_safe(deck.name)) or (deck.deck_id,)
        claimed = index.get(parts)
        if claimed is not None and claimed.deck_id is not None:
            # two decks with one name: keep both, told apart by id
            parts = (*parts[:-1], f"{parts[-1]} ({deck.deck_id})")
        siblings = top
        for depth in range(1, len(parts) + 1):
            path = parts[:depth]
            group = index.get(path)
            if group is None:
                group = DeckGroup(name=parts[depth - 1], path=path)
                index[path] = group
                siblings.append(group)
            group.new += deck.new
            group.learning += deck.learning
            group.due += deck.due
            siblings = group.children
        index[parts].deck_id = deck.deck_id
    if totals is not None:
        for group in index.values():
            group.new, group.learning, group.due = totals(group.deck_ids)
    return top


class DeckTree(GuardedHandlers, Tree[DeckGroup]):
    """Decks as a tree; each row ends in right-aligned new / learning / due columns."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "deck-tree--new",
        "deck-tree--learning",
        "deck-tree--due",
        "deck-tree--zero",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Review"),
    ]

    @dataclass
    class Resized(Message):
        """The tree's rows changed width: titles lined up with its counts follow."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("Decks"), id=id)  # a str label is markup: rich's emoji table
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 3

    def set_groups(self, groups: list[DeckGroup]) -> None:
        """Replace the tree's contents, keeping which nodes were collapsed and the cursor."""
        collapsed = {
            node.data.path
            for node in self._all_nodes()
            if node.data is not None and node.allow_expand and not node.is_expanded
        }
        highlighted = (
            self.cursor_node.data.path if self.cursor_node and self.cursor_node.data else None
        )
        self.clear()

        def add(parent: TreeNode[DeckGroup], group: DeckGroup) -> None:
            if group.children:
                node = parent.add(Text(group.name), data=group, expand=group.path not in collapsed)
                for child in group.children:
                    add(node, child)
            else:
                parent.add_leaf(Text(group.name), data=group)

        for group in groups:
            add(self.root, group)
        self.root.expand()
        if highlighted is None and groups:
            highlighted = groups[0].path
        if highlighted is not None:
            self.call_after_refresh(self._move_to, highlighted)

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())

    def name_width(self, depth: int = 0) -> int:
        """How wide a deck name at `depth` is padded, so its counts end at the row's end."""
        width = self.scrollable_content_region.width or 80
        return max(8, width - depth * self.guide_depth - 3 * COUNT_WIDTH - 1)

    def _move_to(self, path: tuple[str, ...], tries: int = 5) -> None:
        """Put the cursor on the node at `path` (else the first), once lines are laid out."""
        nodes = [n for n in self._all_nodes() if n.data is not None and n.data.path == path]
        target = nodes[0] if nodes else (self.root.children[0] if self.root.children else None)
        if target is None:
            return
        if target.line < 0 and tries > 0:
            self.call_after_refresh(self._move_to, path, tries - 1)
            return
        self.move_cursor(target)

    def _all_nodes(self) -> Iterator[TreeNode[DeckGroup]]:
        stack = list(self.root.children)
        while stack:
            node = stack.pop()
            yield node
            stack.extend(node.children)

    def render_label(self, node: TreeNode[DeckGroup], base_style: Style, style: Style) -> Text:
        group = node.data
        if group is None:
            return super().render_label(node, base_style, style)
        depth = len(group.path) - 1
        icon = ""
        if node.allow_expand:
            icon = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
        name_width = self.name_width(depth)
        name = f"{icon}{group.name}"
        if len(name) > name_width:
            name = name[: name_width - 1] + "…"
        label = Text(name.ljust(name_width), style=style)
        for value, component in (
            (group.new, "deck-tree--new"),
            (group.learning, "deck-tree--learning"),
            (group.due, "deck-tree--due"),
        ):
            shade = component if value else "deck-tree--zero"
            label.append(f"{value:>{COUNT_WIDTH}}", style=self.get_component_rich_style(shade))
        return label

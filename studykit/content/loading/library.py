"""The library: every note and deck under a root, and the problems of the files that failed."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from studykit.content.loading.outline import DeckOutline
from studykit.content.loading.problems import LoadProblem
from studykit.core.files import link_leaves

if TYPE_CHECKING:
    from studykit.content.model import Deck, Note


@dataclass(frozen=True)
class Library:
    """The notes and decks that loaded, and the problems of the files that did not."""

    root: Path
    notes: Mapping[str, Note]
    decks: Mapping[str, Deck]
    problems: tuple[LoadProblem, ...]
    watched: tuple[Path, ...] = ()
    """Files besides the YAML that the load looked at (images): a change to one is a change."""
    outlines: Mapping[str, DeckOutline] | None = field(default=None, compare=False, repr=False)
    """The decks' outlines, when the loader had them without the models (the cache does)."""

    def deck_outlines(self) -> Mapping[str, DeckOutline]:
        """Every deck's outline, in the order of `decks`, without touching a deck model."""
        if self.outlines is not None:
            return self.outlines
        return {deck.id: DeckOutline.of(deck) for deck in self.decks.values()}

    def ready(self) -> None:
        """Build every note and deck model now (a cache hit builds them on first use)."""
        for models in (self.notes, self.decks):
            next(iter(models.values()), None)

    def note_for(self, deck: Deck) -> Note | None:
        """The note the deck's cards cite, if it names one."""
        return self.notes.get(deck.note) if deck.note is not None else None

    @property
    def bad_files(self) -> tuple[str, ...]:
        """Relative paths of the files that failed to load, sorted."""
        return tuple(sorted({problem.path for problem in self.problems}))


def yaml_files(root: Path, folder: str, problems: list[LoadProblem]) -> Iterator[tuple[Path, str]]:
    """`root/folder/**/*.yaml` (and .yml) in path order, skipping hidden files and folders.

    Anything named so is listed, whatever it is: `read` refuses folders, FIFOs and devices
    with a problem at the file, instead of skipping them silently.

    A link (file or folder) that leads outside the root is not read: a problem names it.
    Links to folders are never followed, even inside the root (os.walk's default).
    """
    inside = root.resolve()
    found: list[tuple[str, Path]] = []
    for directory, subdirs, names in os.walk(root / folder):
        subdirs[:] = [name for name in subdirs if not name.startswith(".")]
        # Folders named like YAML are listed too (`read` refuses them, as it does FIFOs).
        for name in subdirs:
            path = Path(directory, name)
            if not _refuse_outside(path, root, inside, problems) and _is_yaml_name(name):
                found.append((path.relative_to(root).as_posix(), path))
        for name in names:
            path = Path(directory, name)
            if _is_yaml_name(name) and not _refuse_outside(path, root, inside, problems):
                found.append((path.relative_to(root).as_posix(), path))
    for rel, path in sorted(found):
        yield path, rel


def _is_yaml_name(name: str) -> bool:
    return name.endswith((".yaml", ".yml")) and not name.startswith(".")


def _refuse_outside(path: Path, root: Path, inside: Path, problems: list[LoadProblem]) -> bool:
    """True (and a problem added) when `path` is a link that resolves outside the root."""
    if not link_leaves(path, inside):
        return False
    rel = path.relative_to(root).as_posix()
    problems.append(
        LoadProblem(
            rel,
            1,
            1,
            "this link leads outside the content root (or nowhere); it was not read",
            "copy the file into the root instead of linking to it",
        )
    )
    return True

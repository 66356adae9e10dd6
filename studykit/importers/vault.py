"""An Obsidian vault folder -> one imported deck per note, with what was skipped and why."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from studykit.core.files import FileRefused, link_leaves, read_regular, special_kind
from studykit.core.ids import Slugs, slug
from studykit.importers.cardsyntax import PluginSettings
from studykit.importers.decks import ObsidianImport
from studykit.importers.notescan import parse_obsidian

MAX_NOTES = 20_000
"""More markdown files than this is refused: a vault of study notes is far smaller."""
MAX_TOTAL_BYTES = 200 * 1024 * 1024
"""All notes together; past it the walk stops and says so (each file is capped as well)."""
LEAVES_VAULT = "a link that leads outside the vault; it was not read"


class VaultTooLarge(ValueError):
    """A folder with more notes (or bytes) than the import reads."""


@dataclass(frozen=True)
class Note:
    """One note's cards, under the deck id and name its path gives."""

    path: Path  # relative to the vault
    deck_id: str
    name: str
    found: ObsidianImport


@dataclass
class Vault:
    """The notes with their cards, and the files not read (path, why)."""

    notes: list[Note] = field(default_factory=list)
    refused: list[tuple[Path, str]] = field(default_factory=list)
    markdown_files: int = 0
    untagged: list[Path] = field(default_factory=list)  # card syntax but no #flashcards tag


def markdown_paths(root: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """`*.md` under `root` (sorted, relative), skipping hidden folders such as `.obsidian/`;
    and the entries that are not regular files, with what they are."""
    found: list[Path] = []
    odd: list[tuple[Path, str]] = []
    inside = root.resolve()
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(folder)
        for name in dirs:  # never followed (os.walk's rule); one that leads out is said
            if link_leaves(base / name, inside):
                odd.append(((base / name).relative_to(root), LEAVES_VAULT))
        for name in sorted(files):
            if not name.lower().endswith(".md") or name.startswith("."):
                continue
            path = base / name
            kind = special_kind(path)
            if kind is not None or not path.exists():
                odd.append((path.relative_to(root), kind or "a broken link"))
                continue
            if link_leaves(path, inside):
                odd.append((path.relative_to(root), LEAVES_VAULT))
                continue
            if not _utf8(path.relative_to(root).as_posix()):  # it names the deck
                odd.append((path.relative_to(root), "its path is not valid UTF-8; rename it"))
                continue
            found.append(path.relative_to(root))
            if len(found) > MAX_NOTES:
                raise VaultTooLarge(f"more than {MAX_NOTES:,} notes; import a smaller folder")
    return found, odd


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def deck_names(paths: list[Path]) -> list[tuple[str, str]]:
    """(deck id, deck name) per note path: `Physics/Waves.md` -> `physics-waves`, `Physics::Waves`.

    Ids come from the path alone, in sorted order, so a second run gives the same ids.
    """
    slugs = Slugs()
    out = []
    for path in paths:
        parts = [*path.parent.parts, path.stem]
        out.append((slugs.take(slug("-".join(parts), fallback="note")), "::".join(parts)))
    return out


def read_vault(
    root: Path, *, settings: PluginSettings | None = None, every_note: bool = False
) -> Vault:
    """Every tagged note's cards, one deck per note; unreadable files go to `refused`.

    As in the plugin, a note without a `#flashcards` tag gives no cards (`key:: value`
    is a Dataview field there, not a card) unless `every_note`, the plugin's "convert
    folders to decks".
    """
    paths, odd = markdown_paths(root)
    vault = Vault(refused=odd, markdown_files=len(paths) + len(odd))
    total = 0
    for path, (deck_id, name) in zip(paths, deck_names(paths), strict=True):
        try:
            data = read_regular(root / path)
        except FileRefused as error:
            vault.refused.append((path, str(error)))
            continue
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            limit = MAX_TOTAL_BYTES // (1024 * 1024)
            raise VaultTooLarge(f"the notes pass {limit} MB together; import a smaller folder")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            vault.refused.append((path, f"not valid UTF-8 (byte {error.start}); save it as UTF-8"))
            continue
        found = parse_obsidian(text, path.stem, settings=settings, one_deck=(deck_id, name))
        if not found.tagged and not every_note:
            if found.cards:
                vault.untagged.append(path)
            continue
        vault.notes.append(Note(path, deck_id, name, found))
    return vault

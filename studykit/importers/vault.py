"""An Obsidian vault folder -> its notes' cards in decks, with what was skipped and why.

The plugin's rule, the same as for a file imported alone: a note's `#flashcards/...` tags
choose its cards' decks, and a deck gathers its cards from every note that tags them. Folders
choose decks only with the plugin's "convert folders to decks" (`every_note`): then each note's
cards go to the deck of its folder (a note at the top: the vault's), their tags becoming card tags.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from studykit.core.files import FileRefused, link_leaves, read_regular, special_kind
from studykit.core.ids import slug
from studykit.importers.cardids import Assigned, NoteDecks, assign_ids
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
    """One note's cards, in the decks its tags (or its folder) give."""

    path: Path  # relative to the vault
    found: ObsidianImport
    data: bytes = b""  # as read
    one_deck: tuple[str, str] | None = None  # its folder's deck (id, name), when folders decide


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


def folder_deck(path: Path, vault_name: str) -> tuple[str, str]:
    """(deck id, deck name) of a note's folder: `Physics/Waves.md` -> `physics`, `Physics`."""
    parts = list(path.parent.parts) or [vault_name]
    return slug("-".join(parts), fallback="notes"), "::".join(parts)


def vault_decks(vault: Vault) -> Assigned:
    """The vault's decks, each gathered from every note that feeds it, cards with their ids."""
    return assign_ids([NoteDecks(note.path.as_posix(), note.found.decks) for note in vault.notes])


def read_vault(
    root: Path, *, settings: PluginSettings | None = None, every_note: bool = False
) -> Vault:
    """Every tagged note's cards, in their tags' decks; unreadable files go to `refused`.

    As in the plugin, a note without a `#flashcards` tag gives no cards (`key:: value`
    is a Dataview field there, not a card) unless `every_note`, the plugin's "convert
    folders to decks", which puts each note's cards in its folder's deck.
    """
    paths, odd = markdown_paths(root)
    vault = Vault(refused=odd, markdown_files=len(paths) + len(odd))
    total = 0
    vault_name = root.resolve().name or "vault"
    for path in paths:
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
        folder = folder_deck(path, vault_name) if every_note else None
        found = parse_obsidian(text, path.stem, settings=settings, one_deck=folder)
        if not found.tagged and not every_note:
            if found.cards:
                vault.untagged.append(path)
            continue
        vault.notes.append(Note(path, found, data, folder))
    return vault

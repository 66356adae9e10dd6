"""Card ids written into their notes as Obsidian block ids (`^id`), and nothing else.

A card without a block id gets ` ^ID` at the end of its last line (after an SR comment there,
where Obsidian and the plugin still read it), so a later import knows the card however its
question is edited. The rules of `sync obsidian`'s write-back hold: only those characters
change (line endings and a byte-order mark stay); the note is read again just before the
write and left alone if it changed since the import read it; each changed note is kept as
`NOTE.md.bak` first (never over an older backup); nothing outside the vault is written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from studykit.core.files import FileRefused, read_regular, replace_atomically
from studykit.importers.deckfiles import WriteRefused, backup_copy
from studykit.importers.decks import ObsidianImport

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class NoteRead:
    """A note as the import read it: where, its bytes, and the vault it must stay inside."""

    path: Path
    data: bytes
    vault: Path


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def ends_in_comment(line: str) -> bool:
    """Whether a comment is still open at the end of `line` (a block id there would be in it)."""
    html = line.rfind("<!--")
    if html >= 0 and line.find("-->", html + 4) < 0:
        return True
    return line.count("%%") % 2 == 1


def with_block_ids(text: str, ids: Sequence[tuple[int, str]]) -> str:
    """`text` with ` ^ID` at the end of each line number given (1-based)."""
    lines = text.splitlines(keepends=True)
    for number, card_id in ids:
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        space = "" if body.endswith(" ") else " "
        lines[number - 1] = f"{body}{space}^{card_id}{_ending(line)}"
    return "".join(lines)


def write_note(read: NoteRead, text: str) -> Path:
    """Replace the note with `text`, keeping a backup; the backup's path.

    Raises WriteRefused (with the reason) for a note outside the vault or changed since read.
    """
    real = read.path.resolve()
    if not real.is_relative_to(read.vault.resolve()):
        raise WriteRefused(f"{read.path} leads outside {read.vault}; it was not changed")
    try:
        now = read_regular(read.path)
    except FileRefused as error:
        raise WriteRefused(f"{read.path}: {error}") from error
    if now != read.data:
        raise WriteRefused(f"{read.path} changed since it was read; import again to write its ids")
    if now.startswith(_BOM):
        text = "\ufeff" + text  # the byte-order mark stays, as every other byte
    try:
        backup = backup_copy(real)
        replace_atomically(real, text)
    except OSError as error:
        raise WriteRefused(f"{read.path} was not changed: {error.strerror or error}") from error
    return backup


def planned_text(
    text: str, ids: Sequence[tuple[int, str]], parse: Callable[[str], ObsidianImport]
) -> tuple[str, list[tuple[int, str]]]:
    """The note with the ids written, and (line, why) for each id it cannot take.

    A line that ends inside a comment takes none; the new text is read back, and written only
    if every id written is the block id of the card on its line.
    """
    lines = text.splitlines()
    shut = {n for n, _ in ids if n <= len(lines) and not ends_in_comment(lines[n - 1])}
    refused = [(n, "its last line ends inside a comment") for n, _ in ids if n not in shut]
    fine = [(n, card_id) for n, card_id in ids if n in shut]
    if not fine:
        return text, refused
    new = with_block_ids(text, fine)
    blocks = {card.end or card.line: card.block for deck in parse(new).decks for card in deck.cards}
    if any(blocks.get(n) != card_id for n, card_id in fine):
        return text, refused + [(n, "its id would not read back as its block id") for n, _ in fine]
    return new, refused

"""`studykit import obsidian`: Obsidian Spaced Repetition notes -> deck YAML."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from studykit.commands.support import (
    EXIT_PROBLEM,
    EXIT_USAGE,
    GlobalOptions,
    fail,
    settings_from,
)
from studykit.core.terminal import one_line

MAX_IMPORT_CARDS = 50_000
"""Cards one `studykit import obsidian` writes; a 5 MB note of one-line cards holds ~700,000."""

if TYPE_CHECKING:
    from studykit.importers.blockids import NoteRead
    from studykit.importers.cardids import BlockIdWrite
    from studykit.importers.cardsyntax import PluginSettings
    from studykit.importers.decks import ObsidianImport
    from studykit.importers.imported import ImportedDeck
    from studykit.importers.srschedule import ScheduleCount


@click.group(name="import")
def import_group() -> None:
    """Import cards written for other tools."""


@import_group.command("obsidian")
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    "output_text",
    type=click.Path(),
    help="Deck file to write (decks/NAME.yaml), or a folder (ending in /) for several decks.",
)
@click.option(
    "--anki-cloze",
    is_flag=True,
    help="Read `{{c1::…}}` as a cloze (the plugin's Anki-style setting); else it is reported.",
)
@click.option(
    "--bold-cloze",
    is_flag=True,
    help="Read `**bold**` as a cloze too (the plugin's bold-text setting).",
)
@click.option(
    "--folders-as-decks",
    is_flag=True,
    help="VAULT/: read notes without a #flashcards tag too (the plugin's folder decks).",
)
@click.option(
    "--no-schedules",
    is_flag=True,
    help="Leave the plugin's <!--SR:...--> schedules out of the study database.",
)
@click.option(
    "--no-block-ids",
    is_flag=True,
    help="Leave the notes as they are: ids then come from the fronts (an edited question is a "
    "new card).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace deck files this import did not write (or that were edited), keeping a .bak.",
)
@click.pass_context
def obsidian(
    ctx: click.Context,
    source: Path,
    output_text: str | None,
    anki_cloze: bool,
    bold_cloze: bool,
    folders_as_decks: bool,
    no_schedules: bool,
    no_block_ids: bool,
    force: bool,
) -> None:
    """Turn Obsidian Spaced Repetition notes (FILE.md, or a VAULT/ folder) into deck YAML.

    Understands `Q::A`, `Q:::A` (both ways), multi-line cards split by a `?` line (`??` both
    ways), `==cloze==` and `#flashcards/DECK` tags, as the plugin documents them: tags choose
    the decks, alone or in a vault (a folder: needs -o FOLDER/; `.obsidian/` is skipped).
    With -o, a card's id is written into its note as a block id (`^id`) so that editing its
    question keeps its history, and each `<!--SR:!date,interval,ease-->` becomes its card's
    starting state in the study database, once. Without -o the YAML goes to stdout and the
    report to stderr.

    It writes only inside the working folder (or --root), and replaces only deck files it
    wrote itself and nobody edited since (its first line says so); --force replaces any
    other, keeping it as NAME.bak first.
    """
    from studykit.core.files import FileRefused, read_regular, special_kind
    from studykit.importers.cardsyntax import PluginSettings
    from studykit.importers.notescan import parse_obsidian
    from studykit.importers.vault import VaultTooLarge, read_vault

    plugin = PluginSettings(bold_cloze=bold_cloze, anki_cloze=anki_cloze)
    if source.is_dir():
        folder_out = output_text is not None and (
            Path(output_text).is_dir() or output_text.endswith(("/", os.sep))
        )
        if output_text is None or not folder_out:
            fail(f"{source} is a folder: give -o FOLDER/ for its deck files", EXIT_USAGE)
        try:
            vault = read_vault(source, settings=plugin, every_note=folders_as_decks)
        except VaultTooLarge as error:
            fail(f"{source}: {error}", EXIT_USAGE)
        for path, why in vault.refused:
            click.echo(one_line(f"{source / path}: skipped: {why}"))
        for path in vault.untagged:
            why = "card syntax but no #flashcards tag (see --folders-as-decks)"
            click.echo(one_line(f"{source / path}: skipped: {why}"))
        found = [
            _Found(
                note.path.as_posix(),
                note.found,
                _read(source, note.path, note.data),
                partial(_parse, stem=note.path.stem, plugin=plugin, one_deck=note.one_deck),
            )
            for note in vault.notes
        ]
        into = _Writing(
            Path(output_text), folder=True, force=force, areas=_areas(ctx), notes=not no_block_ids
        )
        _finish(ctx, found, into, schedules=not no_schedules, not_read=len(vault.refused))
        return
    kind = special_kind(source)
    if kind is not None:
        fail(f"{source}: this is {kind}, not a regular file; it was not read", EXIT_USAGE)
    try:
        data = read_regular(source)
        text = data.decode("utf-8-sig")
    except FileRefused as error:
        fail(f"{source}: {error}", EXIT_USAGE)
    except UnicodeDecodeError as error:
        fail(f"{source} is not valid UTF-8 (byte {error.start}); save it as UTF-8", EXIT_USAGE)
    one = parse_obsidian(text, source.stem, settings=plugin)
    output = Path(output_text) if output_text is not None else None
    to_folder = output_text is not None and (
        Path(output_text).is_dir() or output_text.endswith(("/", os.sep))
    )
    if output is not None and len(one.decks) > 1 and not to_folder:
        ids = ", ".join(deck.id for deck in one.decks)
        fail(f"{source} has cards in {len(one.decks)} decks ({ids}); give -o a folder", EXIT_USAGE)
    writing: _Writing | None = None
    if output is not None:
        writing = _Writing(
            output, folder=to_folder, force=force, areas=_areas(ctx), notes=not no_block_ids
        )
    note = _Found(
        source.name,
        one,
        _read(source.parent, Path(source.name), data),
        partial(_parse, stem=source.stem, plugin=plugin, one_deck=None),
    )
    _finish(ctx, [note], writing, schedules=not no_schedules, not_read=0)


@dataclass(frozen=True)
class _Writing:
    """Where the decks go (-o), what may be replaced there, and whether notes get block ids."""

    output: Path
    folder: bool
    force: bool
    areas: list[Path]
    notes: bool = True


@dataclass(frozen=True)
class _Found:
    """One note's cards as parsed, the note as read, and how to parse it again."""

    name: str
    one: ObsidianImport
    read: NoteRead
    parse: Callable[[str], ObsidianImport]


def _read(vault: Path, relative: Path, data: bytes) -> NoteRead:
    from studykit.importers.blockids import NoteRead

    return NoteRead(vault / relative, data, vault)


def _parse(
    text: str, *, stem: str, plugin: PluginSettings, one_deck: tuple[str, str] | None
) -> ObsidianImport:
    from studykit.importers.notescan import parse_obsidian

    return parse_obsidian(text, stem, settings=plugin, one_deck=one_deck)


def _areas(ctx: click.Context) -> list[Path]:
    """The folders the decks may be written to: the working folder and the --root given."""
    from studykit.core.config import ENV_ROOT

    options = ctx.find_object(GlobalOptions)
    root = options.root if options is not None else None
    env_root = os.environ.get(ENV_ROOT, "").strip()
    if root is None and env_root:
        root = Path(env_root).expanduser()
    areas = [Path.cwd().resolve()]
    if root is not None:
        areas.append(root.resolve())
    return areas


def _finish(
    ctx: click.Context,
    found: list[_Found],
    writing: _Writing | None,
    *,
    schedules: bool,
    not_read: int,
) -> None:
    """Check and write the decks and the notes' block ids, import the schedules, and report.

    A note whose decks do not load is reported and skipped, as were the `not_read` notes
    the vault walk refused; either (or a note that could not take its ids) makes the exit
    status 1.
    """
    from dataclasses import replace

    from studykit.importers.cardids import NoteDecks, assign_ids
    from studykit.importers.deckyaml import ImportProblem, deck_yaml, validate

    to_stderr = writing is None
    total = sum(note.one.cards for note in found)
    if total > MAX_IMPORT_CARDS:  # writing and checking cost ~0.5 ms a card: refuse first
        fail(
            f"{total:,} cards is over the {MAX_IMPORT_CARDS:,} one import takes; "
            "import fewer notes at a time",
            EXIT_USAGE,
        )
    kept: list[_Found] = []
    for note in found:
        try:
            for deck in note.one.decks:
                validate(deck_yaml(replace(deck, sources=[note.name])), f"{deck.id}.yaml")
        except ImportProblem as error:
            click.echo(one_line(f"{note.read.path}: skipped: {error}"), err=to_stderr)
            not_read += 1
            continue
        kept.append(note)
    assigned = assign_ids([NoteDecks(note.name, note.one.decks) for note in kept])
    extra = {note.name: [line for name, line in assigned.report if name == note.name]}
    for note in kept:
        lines = sorted([*note.one.skipped, *extra.get(note.name, [])], key=lambda r: r.line)
        for line in lines:
            click.echo(one_line(f"{note.read.path}:{line}"), err=to_stderr)
    documents = {deck.id: (deck.sources, deck_yaml(deck)) for deck in assigned.decks}
    cards = sum(note.one.cards for note in kept)
    skipped = sum(len(note.one.skipped) for note in kept) + len(assigned.report)
    scheduled = sum(note.one.schedules for note in kept)
    written = marked = unmarked = 0
    if writing is None:
        click.echo("---\n".join(text for _, text in documents.values()), nl=False)
    else:
        written = _write_decks(writing, documents)
        if writing.notes:
            marked, unmarked = _write_block_ids(kept, assigned.writes)
    summary = f"{cards} card(s) in {len(documents)} deck(s)"
    if writing is not None:
        summary += f", {written} deck file(s) written, {len(documents) - written} unchanged"
    if marked:
        summary += f", {marked} note(s) given their cards' block ids"
    summary += f"; {skipped} skipped line(s) that look like cards"
    if not_read:
        summary += f"; {not_read} note(s) not imported"
    if unmarked:
        summary += f"; {unmarked} note(s) not given their block ids"
    imported = 0
    if scheduled and writing is not None and schedules:
        count = _import_schedules(ctx, assigned.decks)
        imported = count.imported
        summary += f"; {count.imported} schedule(s) imported, {count.already} already here"
        if count.dropped:
            summary += f", {len(count.dropped)} card(s) with more SR entries than siblings"
            for why in count.dropped:
                click.echo(one_line(f"studykit: {why}"), err=to_stderr)
    elif scheduled:
        why = "give -o to import them" if writing is None else "--no-schedules"
        summary += f"; {scheduled} schedule(s) not imported ({why})"
    if writing is not None and not written and not marked and not imported and cards:
        summary = "Nothing changed: " + summary
    click.echo(summary + ".", err=to_stderr)
    if not cards or not_read or unmarked:
        raise SystemExit(EXIT_PROBLEM)


def _write_block_ids(notes: list[_Found], writes: list[BlockIdWrite]) -> tuple[int, int]:
    """Each card's id into its note as a block id; (notes written, notes refused or partly)."""
    from studykit.importers.blockids import planned_text, write_note
    from studykit.importers.deckfiles import WriteRefused

    by_note: dict[str, list[tuple[int, str]]] = {}
    for write in writes:
        by_note.setdefault(write.note, []).append((write.line, write.id))
    written = refused = 0
    for note in notes:
        ids = by_note.get(note.name)
        if not ids:
            continue
        text = note.read.data.decode("utf-8-sig")
        new, cannot = planned_text(text, ids, note.parse)
        for line, why in cannot:
            click.echo(one_line(f"{note.read.path}:{line}: no block id written: {why}"))
        refused += bool(cannot)
        if new == text:
            continue
        try:
            backup = write_note(note.read, new)
        except WriteRefused as error:
            click.echo(one_line(f"studykit: {error}"))
            refused += not cannot
            continue
        written += 1
        click.echo(one_line(f"Wrote block ids into {note.read.path} (kept as {backup.name})"))
    return written, refused


def _write_decks(writing: _Writing, documents: dict[str, tuple[list[str], str]]) -> int:
    """Write the deck files that changed; refuse (exit 2, nothing written) what is not ours."""
    from studykit.importers.deckfiles import WriteRefused, check_deck_name, plan, write

    targets = []
    try:
        if not writing.folder:
            check_deck_name(writing.output)
        for deck_id, (sources, text) in documents.items():
            path = writing.output / f"{deck_id}.yaml" if writing.folder else writing.output
            targets.append(plan(path, text, sources, writing.areas))
    except WriteRefused as error:
        fail(str(error), EXIT_USAGE)
    foreign = [target for target in targets if target.state == "foreign"]
    if foreign and not writing.force:
        if not writing.folder:
            fail(
                f"{foreign[0].path} {foreign[0].why}; give -o another path, "
                "or --force to replace it (keeping a .bak copy)",
                EXIT_USAGE,
            )
        for target in foreign:
            click.echo(one_line(f"{target.path}: not replaced: it {target.why}"))
        fail(
            f"{len(foreign)} deck file(s) were not written by this import (or were edited "
            "since); give -o another folder, or --force to replace them (keeping .bak copies)",
            EXIT_USAGE,
        )
    written = 0
    for target in targets:
        if target.state == "same":
            continue
        try:
            backup = write(target)
        except WriteRefused as error:
            fail(str(error), EXIT_PROBLEM)
        except OSError as error:
            fail(f"{target.path} was not written: {error.strerror or error}", EXIT_PROBLEM)
        if backup is not None:
            click.echo(one_line(f"Kept the old {target.path} as {backup.name}"))
        written += 1
        click.echo(one_line(f"Wrote {target.path}"))
    return written


def _import_schedules(ctx: click.Context, decks: list[ImportedDeck]) -> ScheduleCount:
    from studykit.importers.srschedule import import_schedules
    from studykit.srs.store import Store, StoreError

    settings = settings_from(ctx)
    cards = [
        (deck.id, card.id, card.ordinals, card.schedules) for deck in decks for card in deck.cards
    ]
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        with Store.open(settings.database_path, backups_kept=settings.backups_kept) as store:
            return import_schedules(store, cards, rollover_hour=settings.rollover_hour, tz=None)
    except (StoreError, OSError) as error:
        fail(f"the schedules were not imported: {error}", EXIT_PROBLEM)

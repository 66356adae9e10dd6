"""`studykit import obsidian`: Obsidian Spaced Repetition notes -> deck YAML."""

from __future__ import annotations

import os
from dataclasses import dataclass
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
    from studykit.importers.decks import ObsidianImport
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
    force: bool,
) -> None:
    """Turn Obsidian Spaced Repetition notes (FILE.md, or a VAULT/ folder) into deck YAML.

    Understands `Q::A`, `Q:::A` (both ways), multi-line cards split by a `?` line (`??` both
    ways), `==cloze==` and `#flashcards/DECK` tags, as the plugin documents them. A folder
    gives one deck per note (ids from the note's path; `.obsidian/` is skipped) and needs
    -o FOLDER/. Card ids come from the fronts, so importing again changes nothing. With -o,
    each `<!--SR:!date,interval,ease-->` becomes its card's starting state in the study
    database, once. Without -o the YAML goes to stdout and the report to stderr.

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
        found = [(source / note.path, note.path.as_posix(), note.found) for note in vault.notes]
        into = _Writing(Path(output_text), folder=True, force=force, areas=_areas(ctx))
        _finish(ctx, found, into, schedules=not no_schedules, not_read=len(vault.refused))
        return
    kind = special_kind(source)
    if kind is not None:
        fail(f"{source}: this is {kind}, not a regular file; it was not read", EXIT_USAGE)
    try:
        text = read_regular(source).decode("utf-8-sig")
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
        writing = _Writing(output, folder=to_folder, force=force, areas=_areas(ctx))
    _finish(ctx, [(source, source.name, one)], writing, schedules=not no_schedules, not_read=0)


@dataclass(frozen=True)
class _Writing:
    """Where the decks go (-o), and what may be replaced there."""

    output: Path
    folder: bool
    force: bool
    areas: list[Path]


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
    found: list[tuple[Path, str, ObsidianImport]],
    writing: _Writing | None,
    *,
    schedules: bool,
    not_read: int,
) -> None:
    """Check and write the decks, import their schedules, and say what happened.

    A note whose decks do not load is reported and skipped, as were the `not_read` notes
    the vault walk refused; either makes the exit status 1.
    """
    from studykit.importers.deckyaml import ImportProblem, deck_yaml, validate

    to_stderr = writing is None
    total = sum(one.cards for _, _, one in found)
    if total > MAX_IMPORT_CARDS:  # writing and checking cost ~0.5 ms a card: refuse first
        fail(
            f"{total:,} cards is over the {MAX_IMPORT_CARDS:,} one import takes; "
            "import fewer notes at a time",
            EXIT_USAGE,
        )
    documents: dict[str, tuple[str, str]] = {}  # deck id -> (source name, file text)
    kept: list[ObsidianImport] = []
    for path, name, one in found:
        texts = {deck.id: deck_yaml(deck, name) for deck in one.decks}
        try:
            for deck_id, text in texts.items():
                validate(text, f"{deck_id}.yaml")
        except ImportProblem as error:
            click.echo(one_line(f"{path}: skipped: {error}"), err=to_stderr)
            not_read += 1
            continue
        for deck_id, text in texts.items():
            if deck_id in documents:
                fail(f"{path}: deck id {deck_id!r} comes from two notes", EXIT_PROBLEM)
            documents[deck_id] = (name, text)
        kept.append(one)
        for line in one.skipped:
            click.echo(one_line(f"{path}:{line}"), err=to_stderr)
    cards = sum(one.cards for one in kept)
    skipped = sum(len(one.skipped) for one in kept)
    scheduled = sum(one.schedules for one in kept)
    written = 0
    if writing is None:
        click.echo("---\n".join(text for _, text in documents.values()), nl=False)
    else:
        written = _write_decks(writing, documents)
    summary = f"{cards} card(s) in {len(documents)} deck(s)"
    if writing is not None:
        summary += f", {written} deck file(s) written, {len(documents) - written} unchanged"
    summary += f"; {skipped} skipped line(s) that look like cards"
    if not_read:
        summary += f"; {not_read} note(s) not imported"
    imported = 0
    if scheduled and writing is not None and schedules:
        count = _import_schedules(ctx, kept)
        imported = count.imported
        summary += f"; {count.imported} schedule(s) imported, {count.already} already here"
        if count.dropped:
            summary += f", {len(count.dropped)} card(s) with more SR entries than siblings"
            for why in count.dropped:
                click.echo(one_line(f"studykit: {why}"), err=to_stderr)
    elif scheduled:
        why = "give -o to import them" if writing is None else "--no-schedules"
        summary += f"; {scheduled} schedule(s) not imported ({why})"
    if writing is not None and not written and not imported and cards:
        summary = "Nothing changed: " + summary
    click.echo(summary + ".", err=to_stderr)
    if not cards or not_read:
        raise SystemExit(EXIT_PROBLEM)


def _write_decks(writing: _Writing, documents: dict[str, tuple[str, str]]) -> int:
    """Write the deck files that changed; refuse (exit 2, nothing written) what is not ours."""
    from studykit.importers.deckfiles import WriteRefused, check_deck_name, plan, write

    targets = []
    try:
        if not writing.folder:
            check_deck_name(writing.output)
        for deck_id, (source, text) in documents.items():
            path = writing.output / f"{deck_id}.yaml" if writing.folder else writing.output
            targets.append(plan(path, text, source, writing.areas))
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


def _import_schedules(ctx: click.Context, found: list[ObsidianImport]) -> ScheduleCount:
    from studykit.importers.srschedule import import_schedules
    from studykit.srs.store import Store, StoreError

    settings = settings_from(ctx)
    cards = [
        (deck.id, card.id, card.ordinals, card.schedules)
        for one in found
        for deck in one.decks
        for card in deck.cards
    ]
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        with Store.open(settings.database_path, backups_kept=settings.backups_kept) as store:
            return import_schedules(store, cards, rollover_hour=settings.rollover_hour, tz=None)
    except (StoreError, OSError) as error:
        fail(f"the schedules were not imported: {error}", EXIT_PROBLEM)

"""`studykit import obsidian`: Obsidian Spaced Repetition notes -> deck YAML."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from studykit.commands.support import EXIT_PROBLEM, EXIT_USAGE, fail, settings_from
from studykit.core.terminal import one_line

MAX_IMPORT_CARDS = 50_000
"""Cards one `studykit import obsidian` writes; a 5 MB note of one-line cards holds ~700,000."""

if TYPE_CHECKING:
    from studykit.importers.obsidian import ObsidianImport
    from studykit.importers.srschedule import ScheduleCount


@click.group(name="import")
def import_group() -> None:
    """Import cards written for other tools."""


def _write(path: Path, text: str) -> None:
    """Write through a temporary file and a rename, so a failure leaves no half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


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
@click.pass_context
def obsidian(
    ctx: click.Context,
    source: Path,
    output_text: str | None,
    anki_cloze: bool,
    bold_cloze: bool,
    folders_as_decks: bool,
    no_schedules: bool,
) -> None:
    """Turn Obsidian Spaced Repetition notes (FILE.md, or a VAULT/ folder) into deck YAML.

    Understands `Q::A`, `Q:::A` (both ways), multi-line cards split by a `?` line (`??` both
    ways), `==cloze==` and `#flashcards/DECK` tags, as the plugin documents them. A folder
    gives one deck per note (ids from the note's path; `.obsidian/` is skipped) and needs
    -o FOLDER/. Card ids come from the fronts, so importing again changes nothing. With -o,
    each `<!--SR:!date,interval,ease-->` becomes its card's starting state in the study
    database, once. Without -o the YAML goes to stdout and the report to stderr.
    """
    from studykit.core.files import FileRefused, read_regular, special_kind
    from studykit.importers.obsidian import PluginSettings, parse_obsidian
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
        _finish(ctx, found, Path(output_text), folder=True, schedules=not no_schedules)
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
    _finish(ctx, [(source, source.name, one)], output, folder=to_folder, schedules=not no_schedules)


def _finish(
    ctx: click.Context,
    found: list[tuple[Path, str, ObsidianImport]],
    output: Path | None,
    *,
    folder: bool,
    schedules: bool,
) -> None:
    """Check and write the decks, import their schedules, and say what happened."""
    from studykit.importers.deckyaml import deck_yaml, validate

    to_stderr = output is None
    total = sum(one.cards for _, _, one in found)
    if total > MAX_IMPORT_CARDS:  # writing and checking cost ~0.5 ms a card: refuse first
        fail(
            f"{total:,} cards is over the {MAX_IMPORT_CARDS:,} one import takes; "
            "import fewer notes at a time",
            EXIT_USAGE,
        )
    documents: dict[str, str] = {}
    for path, name, one in found:
        for deck in one.decks:
            if deck.id in documents:
                fail(f"{path}: deck id {deck.id!r} comes from two notes", EXIT_PROBLEM)
            documents[deck.id] = deck_yaml(deck, name)
            validate(documents[deck.id], f"{deck.id}.yaml")
        for line in one.skipped:
            click.echo(one_line(f"{path}:{line}"), err=to_stderr)
    cards = sum(one.cards for _, _, one in found)
    skipped = sum(len(one.skipped) for _, _, one in found)
    scheduled = sum(one.schedules for _, _, one in found)
    written = 0
    if output is None:
        click.echo("---\n".join(documents.values()), nl=False)
    else:
        for deck_id, document in documents.items():
            path = output / f"{deck_id}.yaml" if folder else output
            if path.is_file() and path.read_bytes() == document.encode("utf-8"):
                continue
            _write(path, document)
            written += 1
            click.echo(f"Wrote {path}")
    summary = f"{cards} card(s) in {len(documents)} deck(s)"
    if output is not None:
        summary += f", {written} deck file(s) written, {len(documents) - written} unchanged"
    summary += f"; {skipped} skipped line(s) that look like cards"
    imported = 0
    if scheduled and output is not None and schedules:
        count = _import_schedules(ctx, [one for _, _, one in found])
        imported = count.imported
        summary += f"; {count.imported} schedule(s) imported, {count.already} already here"
    elif scheduled:
        why = "give -o to import them" if output is None else "--no-schedules"
        summary += f"; {scheduled} schedule(s) not imported ({why})"
    if output is not None and not written and not imported and cards:
        summary = "Nothing changed: " + summary
    click.echo(summary + ".", err=to_stderr)
    if not cards:
        raise SystemExit(EXIT_PROBLEM)


def _import_schedules(ctx: click.Context, found: list[ObsidianImport]) -> ScheduleCount:
    from studykit.importers.srschedule import import_schedules
    from studykit.srs.store import Store, StoreError

    settings = settings_from(ctx)
    cards = [
        (deck.id, card.id, card.schedules)
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

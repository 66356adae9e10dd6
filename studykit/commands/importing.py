"""`studykit import obsidian`: Obsidian Spaced Repetition notes -> deck YAML."""

from __future__ import annotations

import os
from pathlib import Path

import click

from studykit.commands.support import EXIT_PROBLEM, EXIT_USAGE, fail


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
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    "output_text",
    type=click.Path(),
    help="Deck file to write (decks/NAME.yaml), or a folder (ending in /) for several decks.",
)
def obsidian(source: Path, output_text: str | None) -> None:
    """Turn an Obsidian Spaced Repetition note (FILE.md) into deck YAML.

    Understands `Q::A`, `Q:::A` (both ways), multi-line cards split by a `?` line (`??` both
    ways), `==cloze==` and `#flashcards/DECK` tags. Card ids come from the fronts, so
    importing the file again gives the same bytes and an edited answer keeps its card's id.
    Without -o the YAML goes to stdout and the report to stderr.
    """
    from studykit.files import FileRefused, read_regular
    from studykit.importers.deckyaml import deck_yaml, validate
    from studykit.importers.obsidian import parse_obsidian
    from studykit.terminal import one_line

    try:
        text = read_regular(source).decode("utf-8-sig")
    except FileRefused as error:
        fail(f"{source}: {error}", EXIT_USAGE)
    except UnicodeDecodeError as error:
        fail(f"{source} is not valid UTF-8 (byte {error.start}); save it as UTF-8", EXIT_USAGE)
    found = parse_obsidian(text, source.stem)
    documents = {deck.id: deck_yaml(deck, source.name) for deck in found.decks}
    for deck_id, document in documents.items():
        validate(document, f"{deck_id}.yaml")
    output = Path(output_text) if output_text is not None else None
    to_folder = output_text is not None and (
        Path(output_text).is_dir() or output_text.endswith(("/", os.sep))
    )
    if output is not None and len(documents) > 1 and not to_folder:
        ids = ", ".join(documents)
        fail(f"{source} has cards in {len(documents)} decks ({ids}); give -o a folder", EXIT_USAGE)

    report_to_stderr = output is None
    for line in found.report:
        click.echo(one_line(f"{source}:{line}"), err=report_to_stderr)
    cards = sum(len(deck.cards) for deck in found.decks)
    skipped = sum(not line.used for line in found.report)
    if output is None:
        click.echo("---\n".join(documents.values()), nl=False)
    else:
        for deck_id, document in documents.items():
            path = output / f"{deck_id}.yaml" if to_folder else output
            _write(path, document)
            click.echo(f"Wrote {path}")
    click.echo(
        f"{cards} card(s) in {len(documents)} deck(s); {skipped} part(s) skipped.",
        err=report_to_stderr,
    )
    if not cards:
        raise SystemExit(EXIT_PROBLEM)

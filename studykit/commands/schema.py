"""`studykit schema`: print the JSON Schema of deck or note files, for editors."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("kind", type=click.Choice(["deck", "note"]), metavar="deck|note")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False, writable=True),
    metavar="FILE",
    help="Write the schema to FILE instead of stdout.",
)
def schema(kind: str, output: Path | None) -> None:
    """Print the JSON Schema of a deck or note file, built from studykit's models.

    Editors with the YAML language server complete fields and flag mistakes as you type when
    a file starts with `# yaml-language-server: $schema=PATH` (the bundled files point at
    the committed `schema/deck.schema.json` and `schema/note.schema.json`; `make schema`
    regenerates them). `studykit check` still has the last word: the schema cannot express
    rules that tie fields together.
    """
    from studykit.content.schemas import render_schema

    text = render_schema("deck" if kind == "deck" else "note")
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")

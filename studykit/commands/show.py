"""`studykit show note|deck ID`: a note or a deck as the terminal shows it (maths as Unicode)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from studykit.commands.support import EXIT_PROBLEM, EXIT_USAGE, fail, settings_from

if TYPE_CHECKING:
    from studykit.content.loading import Library


def _load(ctx: click.Context) -> Library:
    """The library under the settings root; its load problems go to stderr."""
    from studykit.content.loading import load_library

    library = load_library(settings_from(ctx).root)
    for problem in library.problems:
        click.echo(f"studykit: {problem}", err=True)
    return library


class _ShowGroup(click.Group):
    """`show ID` without `note` or `deck`: the error names the command that shows that ID."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if not name or name.startswith("-") or self.get_command(ctx, name) is not None:
            return super().resolve_command(ctx, args)
        from studykit.content.loading import load_library

        library = load_library(settings_from(ctx).root)
        kinds = [
            kind for kind, ids in (("note", library.notes), ("deck", library.decks)) if name in ids
        ]
        if not kinds:
            return super().resolve_command(ctx, args)
        what = " and a ".join(kinds)
        commands = " or ".join(f"`{ctx.command_path} {kind} {name}`" for kind in kinds)
        raise click.UsageError(f"`{name}` is a {what}: {commands}", ctx)


@click.group(cls=_ShowGroup)
def show() -> None:
    """Print a note or a deck with citations rendered and maths as Unicode."""


@show.command("note")
@click.argument("note_id", metavar="ID")
@click.pass_context
def show_note(ctx: click.Context, note_id: str) -> None:
    """Print note ID: its sections, numbers cited from its claims and measurements."""
    from studykit.core.suggest import did_you_mean
    from studykit.core.terminal import terminal_safe
    from studykit.study.cardtext import cited_markdown, plain_text

    library = _load(ctx)
    note = library.notes.get(note_id)
    if note is None:
        hint = did_you_mean(note_id, sorted(library.notes), "the notes are") or "no notes loaded"
        fail(f"no note `{note_id}`; {hint}", EXIT_USAGE)
    number = f"{note.number} " if note.number else ""
    lines = [f"# {number}{note.title}"]  # markdown_to_terminal output is markdown too
    for i, section in enumerate(note.sections, start=1):
        lines += ["", f"## {i}. {section.title}", ""]
        lines.append(cited_markdown(section.body, note).rstrip())
    # Titles and names go in raw; the rendered bodies are escaped already (no harm twice).
    click.echo(plain_text(terminal_safe("\n".join(lines), multiline=True)))
    if library.problems:
        raise SystemExit(EXIT_PROBLEM)


@show.command("deck")
@click.argument("deck_id", metavar="ID")
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of computed cards' variant."
)
@click.pass_context
def show_deck(ctx: click.Context, deck_id: str, seed: int) -> None:
    """Print deck ID: every card's front and back as review shows them.

    A card with several ordinals shows each as review asks it: a cloze one block per
    deletion (that one hidden, the others filled in), a reversed card both directions. A
    computed card shows one variant (drawn with --seed), its answer and worked steps.
    """
    from studykit.content.ordinals import ordinal_label
    from studykit.core.suggest import did_you_mean
    from studykit.core.terminal import terminal_safe
    from studykit.study.cardtext import card_markdown, plain_text

    library = _load(ctx)
    deck = library.decks.get(deck_id)
    if deck is None:
        hint = did_you_mean(deck_id, sorted(library.decks), "the decks are") or "no decks loaded"
        fail(f"no deck `{deck_id}`; {hint}", EXIT_USAGE)
    note = library.note_for(deck)
    lines = [f"# {deck.name} ({len(deck.cards)} cards)"]
    for card in deck.cards:
        several = len(card.ordinals) > 1
        for ordinal in card.ordinals:
            front, back = card_markdown(card, note, seed, ordinal)
            name = f"{card.id}#{ordinal}" if several or ordinal != 1 else card.id
            side = ordinal_label(card.kind, ordinal) if several or card.kind == "cloze" else ""
            kind = f"{card.kind}, {side}" if side else card.kind
            lines += ["", f"## {name} ({kind})", "", front.rstrip(), "", "**Answer:**", ""]
            lines.append(back.rstrip())
    # Titles and names go in raw; the rendered bodies are escaped already (no harm twice).
    click.echo(plain_text(terminal_safe("\n".join(lines), multiline=True)))
    if library.problems:
        raise SystemExit(EXIT_PROBLEM)

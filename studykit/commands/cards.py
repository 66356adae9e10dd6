"""`studykit cards`: list cards with their scheduling, filtered as in the card browser."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from studykit.commands.support import EXIT_PROBLEM, EXIT_USAGE, check_deck, fail, settings_from
from studykit.core.jsontypes import JsonObject
from studykit.core.terminal import json_text

if TYPE_CHECKING:
    from studykit.study.browsing import CardRow

LIMIT = 1000
"""Cards listed unless --limit says otherwise; the rest are counted on stderr."""
MAX_LIMIT = 100_000
_STATE_FLAGS = ("new", "due", "suspended", "leech")


def card_json(row: CardRow) -> JsonObject:
    """One card as `--json` prints it (times in UTC ISO 8601, the interval in days)."""
    card = row.card
    origin = card.card.origin
    return {
        "key": row.name,
        "deck": card.deck.id,
        "card": card.card.id,
        "ordinal": card.ordinal,
        "state": card.state,
        "due": None if row.due is None else row.due.isoformat(),
        "interval": None
        if row.interval is None
        else round(row.interval.total_seconds() / 86400, 4),
        "stability": row.stability,
        "difficulty": row.difficulty,
        "reps": row.reps,
        "lapses": card.lapses,
        "suspended": card.suspended,
        "leech": card.leech,
        "buried": row.buried,
        "file": None if origin is None else origin.path,
        "line": None if origin is None else origin.line,
    }


def _cells(row: CardRow) -> tuple[str, ...]:
    from studykit.study.formatting import format_interval

    card = row.card
    state = ", ".join(part for part in (card.state, row.flags) if part)
    due = "-" if row.due is None else f"{row.due.astimezone():%Y-%m-%d %H:%M}"
    interval = "-" if row.interval is None else format_interval(row.interval)
    return (
        row.name,
        state,
        due,
        interval,
        str(row.reps),
        str(card.lapses),
        row.question(50),
    )


@click.command()
@click.option("--deck", "deck_id", metavar="ID", help="Only this deck and its sub-decks.")
@click.option("--new", "new", is_flag=True, help="Only new cards.")
@click.option("--due", "due", is_flag=True, help="Only cards due today.")
@click.option("--suspended", "suspended", is_flag=True, help="Only suspended cards.")
@click.option("--leech", "leech", is_flag=True, help="Only leeches.")
@click.option(
    "--search",
    "text",
    metavar="TEXT",
    default="",
    help=(
        'Words, "phrases", tag:x, deck:x, card:N (ordinal: a reversed card\'s back is 2, '
        "a cloze's c2 is 2), is:new|learning|review|due|suspended|leech|buried."
    ),
)
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIMIT),
    default=LIMIT,
    show_default=True,
    help="List at most this many cards; the rest are counted on stderr.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list on stdout.")
@click.pass_context
def cards(
    ctx: click.Context,
    deck_id: str | None,
    new: bool,
    due: bool,
    suspended: bool,
    leech: bool,
    text: str,
    limit: int,
    as_json: bool,
) -> None:
    """List cards with state, due date, interval, stability, difficulty and where they are.

    A card with several ordinals (a reversed card's two directions, a cloze's deletions) is
    listed once per ordinal, as `deck/card#2`. The state flags combine (--suspended --leech:
    suspended leeches). Files that fail to load are reported on stderr and make the exit
    status 1.
    """
    from studykit.core.terminal import table_lines
    from studykit.study.search import Query, QueryError, Term, parse_query
    from studykit.study.session import StudySession

    try:
        query = parse_query(text)
    except QueryError as error:
        fail(f"--search: {error}", EXIT_USAGE)
    chosen = dict(zip(_STATE_FLAGS, (new, due, suspended, leech), strict=True))
    states = tuple(Term("is", state) for state, on in chosen.items() if on)
    query = Query(query.terms + states, query.text)
    session = StudySession.open(settings_from(ctx))
    try:
        if deck_id is not None:
            check_deck(session.library, deck_id)
        found = session.browse(query, deck_id=deck_id, limit=limit)
        problems = session.library.problems
    finally:
        session.close()
    if as_json:
        click.echo(json_text([card_json(row) for row in found.rows]))
    elif found.rows:
        headers = ("KEY", "STATE", "DUE", "IVL", "REPS", "LAPSES", "QUESTION")
        click.echo("\n".join(table_lines(headers, map(_cells, found.rows), right={3, 4, 5})))
    else:
        click.echo("No cards match.", err=True)
    if found.more:
        click.echo(f"studykit: {found.more} more cards match; raise --limit to list them", err=True)
    for problem in problems:
        click.echo(f"studykit: {problem}", err=True)
    if problems:
        raise SystemExit(EXIT_PROBLEM)

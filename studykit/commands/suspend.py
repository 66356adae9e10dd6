"""`studykit suspend KEY...` and `studykit unsuspend KEY...`: hide cards or bring them back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from studykit.commands.support import EXIT_USAGE, fail, settings_from

if TYPE_CHECKING:
    from studykit.study.session import StudyCard, StudySession


def _cards(session: StudySession, keys: Sequence[str]) -> list[StudyCard]:
    """The cards named `DECK/CARD`; exit 2 naming the first key that is not loaded."""
    cards = []
    for key in keys:
        deck_id, slash, card_id = key.partition("/")
        deck = session.library.decks.get(deck_id)
        if not slash or deck is None or all(card.id != card_id for card in deck.cards):
            known = ", ".join(sorted(session.library.decks)) or "(none loaded)"
            session.close()
            fail(f"no card {key!r}: write DECK/CARD (deck ids: {known})", EXIT_USAGE)
        cards.append(session.study_card(deck_id, card_id))
    return cards


def _change(ctx: click.Context, keys: Sequence[str], *, suspend: bool) -> None:
    from studykit.study.session import StudySession

    session = StudySession.open(settings_from(ctx))
    try:
        for card in _cards(session, keys):
            name = f"{card.deck.id}/{card.card.id}"
            if card.suspended == suspend:
                click.echo(f"{name}: already {'suspended' if suspend else 'in the queue'}")
                continue
            if suspend:
                session.suspend(card)
                click.echo(f"{name}: suspended")
            else:
                session.unsuspend(card)
                leech = " (still marked a leech)" if card.leech else ""
                click.echo(f"{name}: back in the queue{leech}")
    finally:
        session.close()


@click.command()
@click.argument("keys", nargs=-1, required=True, metavar="DECK/CARD...")
@click.pass_context
def suspend(ctx: click.Context, keys: tuple[str, ...]) -> None:
    """Take cards out of reviews until they are unsuspended."""
    _change(ctx, keys, suspend=True)


@click.command()
@click.argument("keys", nargs=-1, required=True, metavar="DECK/CARD...")
@click.pass_context
def unsuspend(ctx: click.Context, keys: tuple[str, ...]) -> None:
    """Put suspended cards (leeches too) back into reviews."""
    _change(ctx, keys, suspend=False)

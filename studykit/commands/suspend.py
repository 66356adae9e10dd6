"""`studykit suspend KEY...` and `studykit unsuspend KEY...`: hide cards or bring them back.

`deck/card` names every ordinal of a card, `deck/card#2` one of them (`studykit cards`
lists them so).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from studykit.commands.support import EXIT_USAGE, fail, settings_from

if TYPE_CHECKING:
    from studykit.study.session import StudyCard, StudySession


def _schedules(session: StudySession, key: str) -> list[StudyCard]:
    """The schedules `key` names; exit 2 saying what is wrong with it."""
    from studykit.content.ordinals import parse_ordinal
    from studykit.study.session import NotLoadedError

    name, hash_, wanted = key.partition("#")
    deck_id, slash, card_id = name.partition("/")
    deck = session.library.decks.get(deck_id)
    card = None if deck is None else next((c for c in deck.cards if c.id == card_id), None)
    if not slash or card is None:
        known = ", ".join(sorted(session.library.decks)) or "(none loaded)"
        session.close()
        fail(f"no card {key!r}: write DECK/CARD or DECK/CARD#N (deck ids: {known})", EXIT_USAGE)
    if not hash_:
        return session.schedules(deck_id, card_id)
    ordinal = parse_ordinal(wanted)
    try:
        if ordinal is None:
            raise NotLoadedError(f"`#{wanted}` is not an ordinal")
        return [session.study_card(deck_id, card_id, ordinal)]
    except NotLoadedError as error:
        has = ", ".join(f"#{n}" for n in card.ordinals)
        session.close()
        fail(f"no card {key!r}: {error}; {deck_id}/{card_id} has {has}", EXIT_USAGE)


def _change(ctx: click.Context, keys: Sequence[str], *, suspend: bool) -> None:
    from studykit.study.session import StudySession

    session = StudySession.open(settings_from(ctx))
    try:
        chosen = [card for key in keys for card in _schedules(session, key)]
        for card in chosen:
            name = card.name
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
@click.argument("keys", nargs=-1, required=True, metavar="DECK/CARD[#N]...")
@click.pass_context
def suspend(ctx: click.Context, keys: tuple[str, ...]) -> None:
    """Take cards out of reviews until they are unsuspended.

    DECK/CARD names every ordinal of the card; DECK/CARD#2 only its second (a reversed
    card's back, a cloze's c2).
    """
    _change(ctx, keys, suspend=True)


@click.command()
@click.argument("keys", nargs=-1, required=True, metavar="DECK/CARD[#N]...")
@click.pass_context
def unsuspend(ctx: click.Context, keys: tuple[str, ...]) -> None:
    """Put suspended cards (leeches too) back into reviews.

    DECK/CARD names every ordinal of the card; DECK/CARD#2 only that one.
    """
    _change(ctx, keys, suspend=False)

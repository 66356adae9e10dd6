"""`studykit quiz`: open the app on a quiz over one deck or all of them."""

from __future__ import annotations

import click

from studykit.commands.support import check_deck, settings_from
from studykit.core.defaults import QUIZ_QUESTIONS


@click.command()
@click.option("--deck", "deck_id", metavar="ID", help="Quiz on this deck only (default: all).")
@click.option(
    "-n",
    "count",
    type=click.IntRange(1, 500),
    default=QUIZ_QUESTIONS,
    show_default=True,
    help="How many questions.",
)
@click.pass_context
def quiz(ctx: click.Context, deck_id: str | None, count: int) -> None:
    """Open the app on a quiz: computed cards typed and graded, the others self-graded.

    Every answer goes into the schedule, as in review. The end shows the score and the misses.
    """
    settings = settings_from(ctx)
    if deck_id is not None:
        from studykit.content.loading import load_library

        check_deck(load_library(settings.root), deck_id)
    from studykit.tui.app import make_app

    app = make_app(settings, start="quiz", deck_id=deck_id, questions=count)
    app.run()
    if app.return_code:
        raise SystemExit(app.return_code)

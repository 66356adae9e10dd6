"""The session's part for a deck's options: its daily limits and desired retention, read from
its YAML file and written back there (`content/deckfile.py` keeps every other byte).

The session runs on the options it loaded; after a write the app reloads the session, so the
new values take effect everywhere at once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studykit.core.config import Settings
from studykit.core.errors import StudykitError
from studykit.study.decks import LoadedDecks
from studykit.study.locking import synchronized

if TYPE_CHECKING:
    from studykit.content.deckfile import DeckFile

__all__ = [
    "MAX_NEW_PER_DAY",
    "MAX_REVIEWS_PER_DAY",
    "RETENTION_RANGE",
    "DeckOptionsForm",
    "DeckOptionsPart",
    "OptionsError",
    "parse_options",
]

# The bounds of content/model.py's `Deck` fields.
MAX_NEW_PER_DAY = 9999
MAX_REVIEWS_PER_DAY = 99999
RETENTION_RANGE = (0.7, 0.995)
"""Desired retention lies strictly between these."""


class OptionsError(StudykitError, ValueError):
    """A typed option that cannot be used; the message says what to type."""


@dataclass(frozen=True)
class DeckOptionsForm:
    """What the options dialog shows: the file as read and each option's value now."""

    file: DeckFile
    deck_name: str
    new_per_day: int
    reviews_per_day: int
    desired_retention: float
    defaults: tuple[int, int, float]
    """config.toml's new per day, reviews per day and retention: a deck that sets none."""


def _whole(label: str, text: str, most: int) -> int:
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > len(str(most)) or int(text) > most:
        raise OptionsError(f"{label}: type a whole number from 0 to {most}")
    return int(text)


def _retention(text: str) -> float:
    low, high = RETENTION_RANGE
    message = f"Desired retention: type a number above {low} and below {high}, e.g. 0.9"
    text = text.strip()
    whole, dot, decimals = text.partition(".")
    if not (whole in ("", "0") and dot and decimals.isascii() and decimals.isdigit()):
        raise OptionsError(message)
    if len(decimals) > 3:
        raise OptionsError(f"{message} (at most 3 decimals)")
    value = float(f"0.{decimals}")
    if not low < value < high:
        raise OptionsError(message)
    return value


def parse_options(new: str, reviews: str, retention: str) -> tuple[int, int, float]:
    """(new per day, reviews per day, retention) from what was typed, or OptionsError."""
    return (
        _whole("New cards per day", new, MAX_NEW_PER_DAY),
        _whole("Reviews per day", reviews, MAX_REVIEWS_PER_DAY),
        _retention(retention),
    )


class DeckOptionsPart:
    """Reads a loaded deck's options from its file and writes changed ones back."""

    def __init__(self, decks: LoadedDecks, settings: Settings, *, lock: threading.RLock) -> None:
        self._decks = decks
        self._settings = settings
        self._lock = lock

    @synchronized
    def read(self, deck_id: str) -> DeckOptionsForm:
        """The options of a loaded deck as its file has them (StudykitError when the file
        cannot be edited here, or changed since it was loaded)."""
        from studykit.content.deckfile import read_deck_file

        index = self._decks.index(deck_id)
        origin = self._decks.model(index).origin
        if origin is None:
            raise StudykitError(f"deck `{deck_id}` was not loaded from a file here")
        file = read_deck_file(self._decks.library.root, deck_id, origin.path)
        loaded = self._decks.outlines[deck_id]
        options = file.options
        if (options.new_per_day, options.reviews_per_day, options.desired_retention) != (
            loaded.new_per_day,
            loaded.reviews_per_day,
            loaded.desired_retention,
        ):
            raise StudykitError(
                f"{origin.path} changed since it was loaded. Press r to reload, then try again."
            )
        settings = self._settings
        return DeckOptionsForm(
            file,
            loaded.name,
            settings.new_per_day if options.new_per_day is None else options.new_per_day,
            settings.reviews_per_day
            if options.reviews_per_day is None
            else options.reviews_per_day,
            options.desired_retention or settings.desired_retention,
            (settings.new_per_day, settings.reviews_per_day, settings.desired_retention),
        )

    @synchronized
    def write(self, form: DeckOptionsForm, values: tuple[int, int, float]) -> bool:
        """Write the values that differ from the form's into the deck file; False when none
        does. The app reloads the session afterwards: the session keeps the old values."""
        from studykit.content.deckfile import DeckOptions, write_options

        new, reviews, retention = values
        changed = DeckOptions(
            new_per_day=new if new != form.new_per_day else None,
            reviews_per_day=reviews if reviews != form.reviews_per_day else None,
            desired_retention=retention if retention != form.desired_retention else None,
        )
        if not changed.tokens():
            return False
        write_options(form.file, changed)
        return True

"""Deck options as Anki presets: retention, daily limits, learning steps and FSRS parameters.

A preset is the legacy `dconf` JSON of an Anki collection, in the shape Anki's backend itself
writes (new/rev/lapse groups, `desiredRetention`, `fsrsParams6`). Each exported deck gets its
own preset with a stable id, named after the deck, so a re-import updates it in place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from studykit.content.model import Deck
from studykit.core.config import Settings
from studykit.core.jsontypes import JsonObject

FSRS6_PARAMETERS = 21


@dataclass(frozen=True)
class DeckOptions:
    """The scheduling options of one deck, as studykit uses them."""

    desired_retention: float
    new_per_day: int
    reviews_per_day: int
    learning_steps: tuple[timedelta, ...]
    relearning_steps: tuple[timedelta, ...]
    leech_lapses: int
    fsrs_parameters: tuple[float, ...]
    bury_new: bool = True
    bury_review: bool = True


def deck_options(deck: Deck, settings: Settings, parameters: Sequence[float]) -> DeckOptions:
    """A deck's own options where it sets them, else the settings' (config.toml's)."""
    return DeckOptions(
        desired_retention=deck.desired_retention or settings.desired_retention,
        new_per_day=settings.new_per_day if deck.new_per_day is None else deck.new_per_day,
        reviews_per_day=(
            settings.reviews_per_day if deck.reviews_per_day is None else deck.reviews_per_day
        ),
        learning_steps=settings.learning_steps,
        relearning_steps=settings.relearning_steps,
        leech_lapses=settings.leech_lapses,
        fsrs_parameters=tuple(parameters),
        bury_new=(
            settings.bury_new_siblings if deck.bury_new_siblings is None else deck.bury_new_siblings
        ),
        bury_review=(
            settings.bury_review_siblings
            if deck.bury_review_siblings is None
            else deck.bury_review_siblings
        ),
    )


def preset_id(deck_id: str) -> int:
    """A stable Anki preset id for our deck id (never 1, Anki's Default)."""
    digest = hashlib.sha256(f"studykit-preset:{deck_id}".encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:8], "big") % (1 << 30)


def _minutes(steps: Sequence[timedelta]) -> list[float]:
    return [step.total_seconds() / 60 for step in steps]


def preset_json(options: DeckOptions, *, preset: int, name: str, mod: int) -> JsonObject:
    """The legacy `dconf` entry of one preset, FSRS on with our retention and parameters."""
    params = list(options.fsrs_parameters)
    return {
        "id": preset,
        "mod": mod,
        "name": name,
        "usn": -1,
        "maxTaken": 60,
        "autoplay": True,
        "timer": 0,
        "replayq": True,
        "dyn": False,
        "buryInterdayLearning": False,
        "new": {
            "bury": options.bury_new,
            "delays": _minutes(options.learning_steps),
            "initialFactor": 2500,
            "ints": [1, 4, 0],
            "order": 1,
            "perDay": options.new_per_day,
        },
        "rev": {
            "bury": options.bury_review,
            "ease4": 1.3,
            "ivlFct": 1.0,
            "maxIvl": 36500,
            "perDay": options.reviews_per_day,
            "hardFactor": 1.2,
        },
        "lapse": {
            "delays": _minutes(options.relearning_steps),
            "leechAction": 0,  # suspend, as studykit does
            "leechFails": options.leech_lapses,
            "minInt": 1,
            "mult": 0.0,
        },
        "desiredRetention": options.desired_retention,
        "fsrsWeights": [],
        "fsrsParams5": [],
        "fsrsParams6": params if len(params) == FSRS6_PARAMETERS else [],
        "sm2Retention": 0.9,
        "weightSearch": "",
        "ignoreRevlogsBeforeDate": "",
    }

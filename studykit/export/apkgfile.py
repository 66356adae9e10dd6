"""Writing an `.apkg` with genanki: the only module that imports it.

`anki.py` decides what goes out and imports this module only when a package is built, so an
export that copies its kept package never loads genanki. Model ids are fixed constants
(`modelids.py`) and deck ids a hash of our deck ids, so every export names the same notetypes
and decks.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sqlite3
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import genanki

from studykit.export import rows
from studykit.export.collection import write_presets, write_scheduling
from studykit.export.history import ExportSource
from studykit.export.modelids import (
    BASIC_MODEL_ID,
    CLOZE_MODEL_ID,
    COMPUTED_MODEL_ID,
    REVERSED_MODEL_ID,
    TYPE_IN_MODEL_ID,
)
from studykit.export.plan import ExportPlan, ModelKind

CSS = """.card { font-family: sans-serif; font-size: 20px; text-align: left; color: black;
  background-color: white; max-width: 42em; margin: 0 auto; }
.source { margin-top: 1.5em; font-size: 14px; color: #777; }
.cloze { font-weight: bold; color: #0645ad; }
pre { background: #f4f4f4; padding: 0.5em; overflow-x: auto; }
img { max-width: 100%; height: auto; }
.sk-verdict { margin-top: 0.5em; font-weight: bold; }
.sk-right { color: #1a7f37; }
.sk-wrong { color: #c62828; }
.sk-unread { color: #8a6d00; }
.sk-fronts .sk-v-back, .sk-backs .sk-v-front { display: none; }
"""
_SOURCE = "{{#Source}}<div class=source>{{Source}}</div>{{/Source}}"


@lru_cache(maxsize=2)
def template_script(name: str = "typein.js") -> str:
    """One of studykit/export's scripts (typein.js, variants.js), as templates embed it."""
    script = resources.files("studykit.export").joinpath(name).read_text(encoding="utf-8")
    # Anki reads any double brace in a template as a field; the script must have none.
    if "{{" in script or "}}" in script or "</script" in script.lower():
        raise RuntimeError(f"{name} has a double brace or a closing script tag")
    return script


def typein_script() -> str:
    """The type-in check (studykit/export/typein.js), as the back template embeds it."""
    return template_script("typein.js")


def computed_script() -> str:
    """What both templates of a computed card run: the type-in check, then the variants."""
    return f"{template_script('typein.js')}\n{template_script('variants.js')}"


_VARIANTS_FRONT = "<div class=sk-fixed>{{Front}}</div>"
_VARIANTS_FRONT += '<div class="sk-variants sk-fronts" hidden>{{Variants}}</div>'


def _computed_templates() -> tuple[str, str]:
    """(front, back) of the computed notetype: the note's fields, then the variants that the
    script shows one of; the scripts come last, where what they read exists."""
    script = f"<script>\n{computed_script()}</script>"
    front = f"{_VARIANTS_FRONT}<br><br>{{{{type:Answer}}}}{script}"
    back = (
        f"{_VARIANTS_FRONT}<hr id=answer>{{{{type:Answer}}}}<div id=sk-check hidden></div>"
        "<br><br><div class=sk-fixed>{{Back}}</div>"
        '<div class="sk-variants sk-backs" hidden>{{Variants}}</div>'
        f"{_SOURCE}{script}"
    )
    return front, back


def _typein_back() -> str:
    """Anki's text comparison, then the script's verdict and the accepted answer."""
    # The script comes last: where the card is parsed as a page, what it reads exists by then.
    return (
        "{{Front}}<hr id=answer>{{type:Answer}}<div id=sk-check hidden></div>"
        f"<br><br>{{{{Back}}}}{_SOURCE}<script>\n{typein_script()}</script>"
    )


def _model(model_id: int, name: str, fields: list[str], templates: list[dict[str, str]]) -> Any:
    return genanki.Model(
        model_id,
        name,
        fields=[{"name": field} for field in fields],
        templates=templates,
        css=CSS,
    )


def models() -> dict[ModelKind, Any]:
    """studykit's notetypes, as genanki models."""
    basic_back = "{{FrontSide}}<hr id=answer>{{Back}}" + _SOURCE
    cloze = genanki.Model(
        CLOZE_MODEL_ID,
        "studykit cloze",
        fields=[{"name": "Text"}, {"name": "Back Extra"}, {"name": "Source"}],
        templates=[
            {
                "name": "Cloze",
                "qfmt": "{{cloze:Text}}",
                "afmt": "{{cloze:Text}}<br>{{Back Extra}}" + _SOURCE,
            }
        ],
        css=CSS,
        model_type=genanki.Model.CLOZE,
    )
    return {
        "basic": _model(
            BASIC_MODEL_ID,
            "studykit basic",
            ["Front", "Back", "Source"],
            [{"name": "Card 1", "qfmt": "{{Front}}", "afmt": basic_back}],
        ),
        "reversed": _model(
            REVERSED_MODEL_ID,
            "studykit basic and reversed",
            ["Front", "Back", "Source"],
            [
                {"name": "Card 1", "qfmt": "{{Front}}", "afmt": basic_back},
                {
                    "name": "Card 2",
                    "qfmt": "{{Back}}",
                    "afmt": "{{FrontSide}}<hr id=answer>{{Front}}" + _SOURCE,
                },
            ],
        ),
        "cloze": cloze,
        "computed": _model(
            COMPUTED_MODEL_ID,
            "studykit computed",
            # One note and card per computed card; Variants holds the baked variants.
            ["Front", "Answer", "Back", "Source", "Variants"],
            [
                {
                    "name": "Card 1",
                    "qfmt": _computed_templates()[0],
                    "afmt": _computed_templates()[1],
                }
            ],
        ),
        "type-in": _model(
            TYPE_IN_MODEL_ID,
            "studykit type-in",
            # Never add a field: Anki would import the notetype as a copy and skip every
            # update of notes exported before (the type-in check rides in the Back field).
            ["Front", "Answer", "Back", "Source"],
            [
                {
                    "name": "Card 1",
                    "qfmt": "{{Front}}<br><br>{{type:Answer}}",
                    "afmt": _typein_back(),
                }
            ],
        ),
    }


def anki_deck_id(deck_id: str) -> int:
    """A stable Anki deck id for our deck id, in the range genanki recommends."""
    digest = hashlib.sha256(f"studykit-deck:{deck_id}".encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:8], "big") % (1 << 30)


class _Package(genanki.Package):  # type: ignore[misc]
    """A genanki package (collection, notetypes, decks, media) whose notes we write in bulk.

    Presets and scheduling are filled in after the cards, before the package is zipped.
    """

    def __init__(
        self,
        decks: list[Any],
        notes: list[rows.NoteEntry],
        note_types: dict[ModelKind, rows.NoteType],
        plan: ExportPlan,
        guids: list[str],
        source: ExportSource | None,
        media_files: Sequence[Path] = (),
        progress: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__(decks, media_files=[str(path) for path in media_files])
        self.notes, self.note_types = notes, note_types
        self.plan, self.guids, self.source = plan, guids, source
        self.progress = progress
        self.cards = self.revlog = 0

    def write_to_file(self, file: str, timestamp: float) -> None:
        """As genanki's, but the collection is built in memory (genanki leaves its copy in /tmp)."""
        db = sqlite3.connect(":memory:")
        try:
            self.write_to_db(db.cursor(), timestamp, itertools.count(int(timestamp * 1000)))
            db.commit()
            collection = db.serialize()
        finally:
            db.close()
        with zipfile.ZipFile(file, "w") as archive:
            archive.writestr("collection.anki2", collection)
            names = {number: Path(media).name for number, media in enumerate(self.media_files)}
            archive.writestr("media", json.dumps(names))
            for number, media in enumerate(self.media_files):
                archive.write(media, str(number))

    def write_to_db(self, cursor: sqlite3.Cursor, timestamp: float, id_gen: Any) -> None:
        super().write_to_db(cursor, timestamp, id_gen)  # the decks hold no notes
        note_rows, card_rows = rows.note_rows(self.notes, self.note_types, id_gen)
        rows.insert_rows(cursor, note_rows, card_rows)
        self.cards = len(card_rows)
        if self.progress is not None:
            self.progress(len(note_rows))
        if self.source is None:
            return
        mod = int(timestamp)
        ids = {d.id: anki_deck_id(d.id) for d in self.plan.decks}
        write_presets(cursor, self.plan.decks, ids, self.source, mod=mod)
        self.revlog = write_scheduling(cursor, self.plan.notes, self.guids, self.source, mod=mod)


@dataclass(frozen=True)
class Written:
    """A package built now: where, and what it holds beyond its plan."""

    path: Path
    decks: int
    cards: int
    revlog: int


def write_apkg(
    plan: ExportPlan,
    path: Path,
    guids: list[str],
    stamps: dict[str, int],
    now: int,
    source: ExportSource | None,
    progress: Callable[[int], None] | None,
    media_files: Sequence[Path] = (),
) -> Written:
    """Build the package of `plan` at `path` (a temporary file, then a rename)."""
    notetypes = models()
    decks = {
        d.id: genanki.Deck(anki_deck_id(d.id), d.name, description=d.description)
        for d in plan.decks
    }
    groups: dict[str, list[rows.NoteEntry]] = {d.id: [] for d in plan.decks}
    for guid, planned in zip(guids, plan.notes, strict=True):
        deck = decks[planned.deck_id]
        groups[planned.deck_id].append((planned, guid, stamps.get(guid, now), deck.deck_id))
    for deck_id, group in groups.items():
        for kind in dict.fromkeys(entry[0].model for entry in group):
            decks[deck_id].add_model(notetypes[kind])  # as genanki adds those its notes use
    # Deck by deck, as genanki writes them: note and card ids keep the order they had.
    entries = [entry for group in groups.values() for entry in group]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    types = {kind: (model.model_id, len(model.fields)) for kind, model in notetypes.items()}
    package = _Package(
        list(decks.values()), entries, types, plan, guids, source, media_files, progress
    )
    try:
        package.write_to_file(str(partial), timestamp=now)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return Written(path, len(decks), package.cards, package.revlog)

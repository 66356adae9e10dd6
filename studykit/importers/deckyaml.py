"""Imported decks -> deck YAML that our loader accepts, checked by loading it back."""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml

from studykit.core.errors import StudykitError
from studykit.core.jsontypes import JsonObject
from studykit.importers.deckfiles import with_header
from studykit.importers.imported import ImportedDeck


class ImportProblem(StudykitError):
    """Imported cards that our loader would not accept (a bug here, or odd input)."""


class _Dumper(yaml.SafeDumper):
    """Multi-line text as `|` blocks (LaTeX backslashes stay as written); lists indented."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def deck_document(deck: ImportedDeck) -> JsonObject:
    """The deck as plain data, in the field order of our deck files."""
    cards: list[JsonObject] = []
    for card in deck.cards:
        entry: JsonObject = {"id": card.id}
        if card.kind != "basic":
            entry["kind"] = card.kind
        entry["front"] = card.front
        if card.back is not None:
            entry["back"] = card.back
        if card.tags:
            entry["tags"] = list(card.tags)
        cards.append(entry)
    return {
        "id": deck.id,
        "name": deck.name,
        "description": f"Imported from {', '.join(deck.sources)}",
        "cards": cards,
    }


def deck_yaml(deck: ImportedDeck) -> str:
    """The deck file's text: the marking header, then the YAML (the same input, the same bytes)."""
    body = yaml.dump(
        deck_document(deck),
        Dumper=_Dumper,
        allow_unicode=True,
        sort_keys=False,
        width=100_000,
        indent=2,
    )
    return with_header(deck.sources, body)


def validate(text: str, name: str) -> None:
    """Load `text` as a deck through our loader; raise with its problems if it fails."""
    from studykit.content.loading import load_library

    with tempfile.TemporaryDirectory(prefix="studykit-import-") as tmp:
        root = Path(tmp)
        (root / "decks").mkdir()
        (root / "decks" / name).write_text(text, encoding="utf-8")
        library = load_library(root)
    if library.problems or not library.decks:
        problems = "; ".join(str(p) for p in library.problems) or "no deck loaded"
        raise ImportProblem(f"its deck does not load: {problems}")

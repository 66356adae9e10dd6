"""Building the library from the YAML files under a root: read, validate, check across files."""

from __future__ import annotations

import types
from pathlib import Path

from studykit.content.loading.citing import deck_citation_problems
from studykit.content.loading.evidence import evidence_problems
from studykit.content.loading.file import LoadedFile, load_file
from studykit.content.loading.images import image_problems
from studykit.content.loading.library import Library, yaml_files
from studykit.content.loading.positions import problem_along
from studykit.content.loading.problems import LoadProblem
from studykit.content.loading.references import reference_problems
from studykit.content.model import Deck, Note


def build_library(root: Path) -> Library:
    """Every note and deck under `root`, read and checked from the YAML (see `load_library`)."""
    problems: list[LoadProblem] = []
    watched: set[Path] = set()
    notes: dict[str, Note] = {}
    failed_notes: dict[str, str] = {}
    for path, rel in yaml_files(root, "content", problems):
        file = load_file(path, rel, Note)
        note = file.model
        if isinstance(note, Note) and not file.problems and note.id in notes:
            first = notes[note.id].origin
            file.problems.append(
                _id_problem(
                    file,
                    f"note id `{note.id}` is already used by {first}",
                    "give this note its own id",
                )
            )
        if isinstance(note, Note) and not file.problems:
            assert file.root is not None
            file.problems.extend(
                image_problems(rel, file.root, note, path, root, file.lines, watched)
            )
        if isinstance(note, Note) and not file.problems:
            notes[note.id] = note
        else:
            problems.extend(file.problems)
            if file.raw_id is not None:
                failed_notes.setdefault(file.raw_id, rel)

    decks: dict[str, Deck] = {}
    for path, rel in yaml_files(root, "decks", problems):
        file = load_file(path, rel, Deck)
        deck = file.model
        if isinstance(deck, Deck) and not file.problems:
            assert file.root is not None
            if deck.id in decks:
                file.problems.append(
                    _id_problem(
                        file,
                        f"deck id `{deck.id}` is already used by {decks[deck.id].origin}",
                        "give this deck its own id",
                    )
                )
            file.problems.extend(reference_problems(rel, file.root, deck, notes, failed_notes))
            if deck.note is None or deck.note in notes:
                file.problems.extend(evidence_problems(rel, file.root, deck, notes))
            if not file.problems:
                cited = notes.get(deck.note) if deck.note is not None else None
                file.problems.extend(
                    deck_citation_problems(rel, file.root, deck, cited, file.lines)
                )
                file.problems.extend(
                    image_problems(rel, file.root, deck, path, root, file.lines, watched)
                )
        if isinstance(deck, Deck) and not file.problems:
            decks[deck.id] = deck
        else:
            problems.extend(file.problems)

    ordered = sorted(decks.values(), key=lambda d: (d.name.casefold(), d.name, d.id))
    return Library(
        root=root,
        notes=types.MappingProxyType(notes),
        decks=types.MappingProxyType({deck.id: deck for deck in ordered}),
        problems=tuple(sorted(problems, key=lambda p: (p.path, p.line, p.column))),
        watched=tuple(sorted(watched)),
    )


def _id_problem(file: LoadedFile, message: str, hint: str) -> LoadProblem:
    """A problem at the file's top-level `id:`."""
    assert file.root is not None
    return problem_along(file.rel, file.root, ("id",), message, hint)

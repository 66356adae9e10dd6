"""Id checks: ids unique within a file, and `note:` and `source:` naming what loaded."""

from __future__ import annotations

from collections.abc import Mapping

from yaml.nodes import Node

from studykit.content.loading.positions import problem_along
from studykit.content.loading.problems import LoadProblem
from studykit.content.model import Card, Claim, Deck, Fact, Note, Section, Strict
from studykit.core.suggest import did_you_mean


def _line(obj: Strict) -> int:
    return obj.origin.line if obj.origin is not None else 0


def note_problems(rel: str, root: Node, note: Note) -> list[LoadProblem]:
    """Section ids, claim ids across sections, and fact ids must be unique within the note."""
    problems: list[LoadProblem] = []
    sections: dict[str, Section] = {}
    claims: dict[str, Claim] = {}
    for s_index, section in enumerate(note.sections):
        first = sections.setdefault(section.id, section)
        if first is not section:
            problems.append(
                problem_along(
                    rel,
                    root,
                    ("sections", s_index, "id"),
                    f"duplicate section id `{section.id}` in note `{note.id}`: "
                    f"the section on line {_line(first)} already has it",
                    "give each section its own id",
                )
            )
        for c_index, claim in enumerate(section.claims):
            earlier = claims.setdefault(claim.id, claim)
            if earlier is not claim:
                problems.append(
                    problem_along(
                        rel,
                        root,
                        ("sections", s_index, "claims", c_index, "id"),
                        f"duplicate claim id `{claim.id}` in note `{note.id}`: "
                        f"the claim on line {_line(earlier)} already has it",
                        "give each claim in the note its own id",
                    )
                )
    facts: dict[str, Fact] = {}
    for f_index, fact in enumerate(note.facts):
        given = facts.setdefault(fact.id, fact)
        if given is not fact:
            problems.append(
                problem_along(
                    rel,
                    root,
                    ("facts", f_index, "id"),
                    f"duplicate fact id `{fact.id}` in note `{note.id}`: "
                    f"the fact on line {_line(given)} already has it",
                    "give each fact in the note its own id",
                )
            )
    return problems


def deck_problems(rel: str, root: Node, deck: Deck) -> list[LoadProblem]:
    """Card ids must be unique within the deck."""
    problems: list[LoadProblem] = []
    cards: dict[str, Card] = {}
    for index, card in enumerate(deck.cards):
        first = cards.setdefault(card.id, card)
        if first is not card:
            problems.append(
                problem_along(
                    rel,
                    root,
                    ("cards", index, "id"),
                    f"duplicate card id `{card.id}` in deck `{deck.id}`: "
                    f"the card on line {_line(first)} already has it",
                    "give each card its own id (review history hangs on it)",
                )
            )
    return problems


def reference_problems(
    rel: str,
    root: Node,
    deck: Deck,
    notes: Mapping[str, Note],
    failed_notes: Mapping[str, str],
) -> list[LoadProblem]:
    """The deck's `note:` must name a loaded note, and each card `source:` one of its sections."""
    if deck.note is not None and deck.note not in notes:
        if deck.note in failed_notes:
            message = f"deck `{deck.id}` cites note `{deck.note}`, which did not load"
            hint = f"fix the problems in {failed_notes[deck.note]}"
        else:
            message = f"deck `{deck.id}` names note `{deck.note}`, but no note has that id"
            hint = did_you_mean(deck.note, sorted(notes), "the notes are") or (
                "add the note under content/"
            )
        return [problem_along(rel, root, ("note",), message, hint)]
    note = notes.get(deck.note) if deck.note is not None else None
    problems: list[LoadProblem] = []
    for index, card in enumerate(deck.cards):
        if card.source is None:
            continue
        if note is None:
            problems.append(
                problem_along(
                    rel,
                    root,
                    ("cards", index, "source"),
                    f"card `{card.id}` cites section `{card.source}`, "
                    f"but deck `{deck.id}` names no `note:`",
                    "add `note: <note id>` to the deck",
                )
            )
        elif note.section(card.source) is None:
            problems.append(
                problem_along(
                    rel,
                    root,
                    ("cards", index, "source"),
                    f"card `{card.id}` cites section `{card.source}`, "
                    f"which note `{note.id}` does not have",
                    did_you_mean(card.source, [s.id for s in note.sections], "its sections are")
                    or "",
                )
            )
    return problems

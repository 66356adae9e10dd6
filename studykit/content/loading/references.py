"""Id checks: ids unique within a file, and `note:` and `source:` naming what loaded."""

from __future__ import annotations

from collections.abc import Mapping

from yaml.nodes import Node

from studykit.content.loading.positions import problem_along
from studykit.content.loading.problems import LoadProblem
from studykit.content.model import Deck, Note, Strict
from studykit.core.suggest import did_you_mean


def _line(obj: Strict) -> int:
    return obj.origin.line if obj.origin is not None else 0


class _Ids:
    """The ids seen so far of one kind of thing in one file; a repeat is a problem at its id."""

    def __init__(self, rel: str, root: Node, kind: str, where: str, hint: str) -> None:
        self.rel, self.root, self.kind, self.where, self.hint = rel, root, kind, where, hint
        self.seen: dict[str, Strict] = {}
        self.problems: list[LoadProblem] = []

    def add(self, id_: str, item: Strict, loc: tuple[str | int, ...]) -> None:
        first = self.seen.setdefault(id_, item)
        if first is not item:
            self.problems.append(
                problem_along(
                    self.rel,
                    self.root,
                    (*loc, "id"),
                    f"duplicate {self.kind} id `{id_}` in {self.where}: "
                    f"the {self.kind} on line {_line(first)} already has it",
                    self.hint,
                )
            )


def note_problems(rel: str, root: Node, note: Note) -> list[LoadProblem]:
    """Section ids, claim ids across sections, and fact ids must be unique within the note."""
    where = f"note `{note.id}`"
    sections = _Ids(rel, root, "section", where, "give each section its own id")
    claims = _Ids(rel, root, "claim", where, "give each claim in the note its own id")
    facts = _Ids(rel, root, "fact", where, "give each fact in the note its own id")
    for s_index, section in enumerate(note.sections):
        sections.add(section.id, section, ("sections", s_index))
        for c_index, claim in enumerate(section.claims):
            claims.add(claim.id, claim, ("sections", s_index, "claims", c_index))
    for f_index, fact in enumerate(note.facts):
        facts.add(fact.id, fact, ("facts", f_index))
    return [*sections.problems, *claims.problems, *facts.problems]


def deck_problems(rel: str, root: Node, deck: Deck) -> list[LoadProblem]:
    """Card ids must be unique within the deck."""
    hint = "give each card its own id (review history hangs on it)"
    cards = _Ids(rel, root, "card", f"deck `{deck.id}`", hint)
    for index, card in enumerate(deck.cards):
        cards.add(card.id, card, ("cards", index))
    return cards.problems


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

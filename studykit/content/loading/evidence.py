"""Card evidence the schema cannot check: parameter names, and `agrees_with` naming a claim."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from yaml.nodes import Node

from studykit.content.loading.positions import problem_along
from studykit.content.loading.problems import LoadProblem
from studykit.content.model import Card, Claim, Deck, Note, Number
from studykit.core.suggest import did_you_mean


def _claims(note: Note | None) -> dict[str, Claim]:
    if note is None:
        return {}
    return {claim.id: claim for section in note.sections for claim in section.claims}


def _param_problems(
    rel: str, root: Node, card: Card, where: tuple[str | int, ...], given: Mapping[str, Number]
) -> list[LoadProblem]:
    """Numeric cards: a value for every parameter and none for anything else.

    A symbolic card may leave parameters open and name its answer's own symbols (`z`);
    `check` decides whether those fit the answer.
    """
    declared = sorted(card.params)
    listed = ", ".join(f"`{name}`" for name in declared) or "none"
    problems = []
    if card.kind == "numeric":
        for name in given:
            if name not in card.params:
                problems.append(
                    problem_along(
                        rel,
                        root,
                        (*where, "params", name),
                        f"card `{card.id}`: `{name}` is not a parameter of the card "
                        f"(parameters: {listed})",
                        did_you_mean(name, declared, "its parameters are") or "remove it",
                    )
                )
    missing = [name for name in declared if name not in given]
    if missing and card.kind == "numeric" and not problems:
        names = ", ".join(f"`{name}`" for name in missing)
        problems.append(
            problem_along(
                rel,
                root,
                (*where, "params"),
                f"card `{card.id}`: no value for {names}",
                "give every parameter of the card a value",
            )
        )
    return problems


def _agreement_problems(
    rel: str, root: Node, deck: Deck, index: int, claims: Mapping[str, Claim]
) -> list[LoadProblem]:
    card = deck.cards[index]
    problems: list[LoadProblem] = []
    for a_index, agreement in enumerate(card.agrees_with):
        where: Sequence[str | int] = ("cards", index, "agrees_with", a_index, "claim")
        claim = claims.get(agreement.claim)
        if deck.note is None:
            message = f"card `{card.id}` agrees with claim `{agreement.claim}`, but the deck "
            problems.append(
                problem_along(rel, root, where, message + "names no `note:`", "add `note:`")
            )
        elif claim is None:
            problems.append(
                problem_along(
                    rel,
                    root,
                    where,
                    f"card `{card.id}` agrees with claim `{agreement.claim}`, "
                    f"which note `{deck.note}` does not have",
                    did_you_mean(agreement.claim, sorted(claims), "its claims are") or "",
                )
            )
        elif claim.approx is None and claim.equals is None:
            problems.append(
                problem_along(
                    rel,
                    root,
                    where,
                    f"card `{card.id}` agrees with claim `{claim.id}`, an identity; "
                    "`agrees_with` needs a claim with a value (`approx` or `equals`)",
                    "name a claim with a value, or give a symbolic card `defines:`",
                )
            )
        problems += _param_problems(
            rel, root, card, ("cards", index, "agrees_with", a_index), agreement.params
        )
    return problems


def evidence_problems(
    rel: str, root: Node, deck: Deck, notes: Mapping[str, Note]
) -> list[LoadProblem]:
    """Problems with the cards' `examples` and `agrees_with` that the schema cannot see."""
    claims = _claims(notes.get(deck.note) if deck.note is not None else None)
    problems: list[LoadProblem] = []
    for index, card in enumerate(deck.cards):
        for e_index, example in enumerate(card.examples):
            where = ("cards", index, "examples", e_index)
            problems += _param_problems(rel, root, card, where, example.params)
        problems += _agreement_problems(rel, root, deck, index, claims)
    return problems

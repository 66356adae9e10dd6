"""Card search in Anki's syntax: words, "phrases", tag:x, deck:x, is:state, card:N, -negation.

Terms are ANDed; `*` is a wildcard; matching ignores case. The parser is pure: the session
supplies each card's `Facts` and asks `Query.matches`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

from studykit.content.ordinals import MAX_ORDINAL, parse_ordinal
from studykit.core.errors import StudykitError

__all__ = ["MAX_QUERY", "STATES", "Facts", "Query", "QueryError", "Term", "parse_query"]

MAX_QUERY = 200
"""Longest search a user may type (characters)."""

STATES: tuple[str, ...] = ("new", "learning", "review", "due", "suspended", "leech", "buried")
_ALIASES = {"learn": "learning", "susp": "suspended"}
_FIELDS = ("tag", "deck", "is", "card")

Kind = Literal["text", "tag", "deck", "is", "card"]


class QueryError(StudykitError, ValueError):
    """A search that cannot be understood; the message says what to write instead."""


@dataclass(frozen=True, slots=True)
class Facts:
    """What a search can see of one card's content (text and names already lower-cased)."""

    text: str
    tags: frozenset[str]
    deck_id: str
    deck_name: str
    ordinal: int = 1
    """Which of the card's schedules (`card:2`: a reversed card's back, a cloze's c2)."""


@dataclass(frozen=True)
class Term:
    """One condition: `kind` and a lower-cased `value`; `negated` for a leading `-`."""

    kind: Kind
    value: str
    negated: bool = False

    def matches(self, card: Facts, states: frozenset[str]) -> bool:
        """True when the card, in these `states`, meets this term (negation applied)."""
        return self._holds(card, states) != self.negated

    def _holds(self, card: Facts, states: frozenset[str]) -> bool:
        value = self.value
        if self.kind == "is":
            return value in states
        if self.kind == "card":
            return str(card.ordinal) == value
        if self.kind == "tag":
            return any(fnmatchcase(tag, value) for tag in card.tags)
        if self.kind == "deck":
            return (
                fnmatchcase(card.deck_id, value)
                or fnmatchcase(card.deck_name, value)
                or fnmatchcase(card.deck_name, value + "::*")  # a deck takes in its sub-decks
            )
        if "*" in value:
            return fnmatchcase(card.text, f"*{value}*")
        return value in card.text


@dataclass(frozen=True)
class Query:
    """All terms must hold; no terms matches every card."""

    terms: tuple[Term, ...] = ()
    text: str = ""

    def matches(self, card: Facts, states: frozenset[str]) -> bool:
        """True when every term holds for the card in these `states`."""
        return all(term.matches(card, states) for term in self.terms)

    def only(self, *kinds: Kind) -> Query:
        """The terms of these kinds (e.g. the deck terms, checked once per deck)."""
        return Query(tuple(t for t in self.terms if t.kind in kinds), self.text)

    def without(self, *kinds: Kind) -> Query:
        """The terms of the other kinds."""
        return Query(tuple(t for t in self.terms if t.kind not in kinds), self.text)

    @property
    def needs_states(self) -> bool:
        """True when some term asks for a scheduling state (`is:`)."""
        return any(term.kind == "is" for term in self.terms)


def _tokens(text: str) -> Iterator[tuple[str, bool]]:
    """(token, was quoted) pairs; `tag:"a b"` and `-"a b"` are one token each."""
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start = i
        quoted = False
        token: list[str] = []
        while i < n and not text[i].isspace():
            if text[i] == '"':
                end = text.find('"', i + 1)
                if end < 0:
                    raise QueryError(
                        f'the quote at character {i + 1} is not closed: add a closing `"`'
                    )
                token.append(text[i + 1 : end])
                quoted = True
                i = end + 1
            else:
                token.append(text[i])
                i += 1
        if i > start:
            yield "".join(token), quoted


def _term(token: str) -> Term | None:
    negated = token.startswith("-") and len(token) > 1
    body = token[1:] if negated else token
    field, colon, value = body.partition(":")
    if not colon:
        return Term("text", body.casefold(), negated) if body else None
    name = field.casefold()
    if name not in _FIELDS:
        if not field.isalpha():
            return Term("text", body.casefold(), negated)
        raise QueryError(
            f"unknown filter `{field}:` (known: tag:, deck:, is:, card:); "
            f'put text with a colon in quotes: "{body}"'
        )
    value = value.strip().casefold()
    if not value:
        raise QueryError(f"`{field}:` needs a value, e.g. `{field}:{_example(name)}`")
    if name == "is":
        value = _ALIASES.get(value, value)
        if value not in STATES:
            raise QueryError(f"unknown state `is:{value}` (known: {', '.join(STATES)})")
    if name == "card":
        ordinal = parse_ordinal(value.removeprefix("c"))
        if ordinal is None:
            raise QueryError(
                f"`card:{value}` needs an ordinal from 1 to {MAX_ORDINAL}: `card:2` is a "
                "reversed card's back, or a cloze's c2"
            )
        value = str(ordinal)
    return Term(name, value, negated)  # type: ignore[arg-type]


def _example(field: str) -> str:
    return {"tag": "rnn", "deck": "rnn-limitations", "is": "due", "card": "2"}[field]


def parse_query(text: str) -> Query:
    """The query a user typed; QueryError naming the problem for one that cannot be read."""
    if len(text) > MAX_QUERY:
        raise QueryError(f"a search is at most {MAX_QUERY} characters (this one: {len(text)})")
    terms = []
    for token, quoted in _tokens(text):
        if quoted and token.partition(":")[0].casefold() not in _FIELDS:
            negated = token.startswith("-")
            phrase = token[1:] if negated else token
            if phrase:
                terms.append(Term("text", phrase.casefold(), negated))
            continue
        term = _term(token)
        if term is not None:
            terms.append(term)
    return Query(tuple(terms), text)

"""The card search parser: Anki's syntax, its errors, and matching on facts."""

from __future__ import annotations

import pytest

from studykit.search import MAX_QUERY, Facts, QueryError, Term, parse_query


def facts(
    text: str = "why are rnns slow?\nsequential.",
    tags: tuple[str, ...] = ("rnn",),
    deck_id: str = "alpha",
    deck_name: str = "demo::alpha",
    states: tuple[str, ...] = ("new",),
) -> Facts:
    return Facts(text, frozenset(tags), deck_id, deck_name, frozenset(states))


def test_words_filters_and_negation_parse_to_terms() -> None:
    query = parse_query('RNN "long spans" tag:Grad* -deck:beta is:learn -is:suspended')
    assert query.terms == (
        Term("text", "rnn"),
        Term("text", "long spans"),
        Term("tag", "grad*"),
        Term("deck", "beta", negated=True),
        Term("is", "learning"),
        Term("is", "suspended", negated=True),
    )


def test_quoted_filter_values_and_text_with_a_colon() -> None:
    assert parse_query('deck:"Demo::Alpha"').terms == (Term("deck", "demo::alpha"),)
    assert parse_query('"ratio: 3"').terms == (Term("text", "ratio: 3"),)
    assert parse_query('-"a b"').terms == (Term("text", "a b", negated=True),)
    assert parse_query("O(n):").terms == (Term("text", "o(n):"),)  # not a filter name
    assert parse_query("   ").terms == ()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("tga:rnn", "unknown filter `tga:`"),
        ("is:overdue", "unknown state `is:overdue`"),
        ("tag:", "`tag:` needs a value"),
        ('"open', "is not closed"),
        ("x" * (MAX_QUERY + 1), f"at most {MAX_QUERY} characters"),
    ],
)
def test_a_search_that_cannot_be_read_says_why(text: str, says: str) -> None:
    with pytest.raises(QueryError) as raised:
        parse_query(text)
    assert says in str(raised.value)


def test_text_matches_case_insensitively_with_wildcards() -> None:
    assert parse_query("RNNs").matches(facts())
    assert parse_query("why*slow").matches(facts())
    assert not parse_query("transformer").matches(facts())
    assert parse_query("-transformer").matches(facts())
    assert not parse_query("rnns transformer").matches(facts())  # terms are ANDed


def test_tag_deck_and_state_filters_match() -> None:
    card = facts(states=("review", "due", "leech"))
    assert parse_query("tag:rnn").matches(card)
    assert parse_query("tag:r*").matches(card)
    assert not parse_query("tag:rn").matches(card)  # a whole tag, not a piece of one
    assert parse_query("deck:alpha").matches(card)  # by id
    assert parse_query('deck:"Demo::Alpha"').matches(card)  # by name
    assert parse_query("deck:demo").matches(card)  # a parent deck takes in its sub-decks
    assert not parse_query("deck:dem").matches(card)
    assert parse_query("is:due is:leech").matches(card)
    assert not parse_query("is:new").matches(card)
    assert parse_query("-is:suspended").matches(card)

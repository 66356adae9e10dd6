"""The card search parser: Anki's syntax, its errors, and matching on facts."""

from __future__ import annotations

import pytest

from studykit.content.loading import Library
from studykit.study.search import MAX_QUERY, Facts, QueryError, Term, parse_query

CARD = Facts("why are rnns slow?\nsequential.", frozenset({"rnn"}), "alpha", "demo::alpha")


def matches(text: str, states: tuple[str, ...] = ("new",)) -> bool:
    return parse_query(text).matches(CARD, frozenset(states))


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
    assert matches("RNNs")
    assert matches("why*slow")
    assert not matches("transformer")
    assert matches("-transformer")
    assert not matches("rnns transformer")  # terms are ANDed


def test_tag_deck_and_state_filters_match() -> None:
    due = ("review", "due", "leech")
    assert matches("tag:rnn")
    assert matches("tag:r*")
    assert not matches("tag:rn")  # a whole tag, not a piece of one
    assert matches("deck:alpha")  # by id
    assert matches('deck:"Demo::Alpha"')  # by name
    assert matches("deck:demo")  # a parent deck takes in its sub-decks
    assert not matches("deck:dem")
    assert matches("is:due is:leech", due)
    assert not matches("is:new", due)
    assert matches("-is:suspended", due)


def test_deck_terms_split_from_card_terms() -> None:
    query = parse_query("deck:a rnn is:new -deck:b")
    assert [t.kind for t in query.only("deck").terms] == ["deck", "deck"]
    assert [t.kind for t in query.without("deck").terms] == ["text", "is"]
    assert query.needs_states and not query.only("deck").needs_states


def test_computed_cards_are_listed_as_their_template_not_a_parameter_name(
    bundled_library: Library,
) -> None:
    from studykit.quiz.variants import placeholders
    from studykit.study.browsing import as_template, question_line

    library = bundled_library
    computed = [card for deck in library.decks.values() for card in deck.cards if card.params]
    assert computed
    for card in computed:
        line, shown = question_line(card, 500), as_template(card)
        assert not placeholders(shown.front) and not placeholders(shown.back)
        if placeholders(card.front):
            assert "…" in line, line
            assert not any(f"{{{name}}}" in line for name in card.params), line

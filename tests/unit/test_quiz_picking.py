"""Quiz questions: a seeded mix of computed and ordinary cards; suspended cards left out."""

from __future__ import annotations

from collections.abc import Callable

from studykit.content.loading import Library
from studykit.content.model import Card, Deck
from studykit.quiz import draw_variant
from studykit.study.quiz_questions import pick_questions
from studykit.study.session import Rating, StudySession
from tests.conftest import make_library

MakeSession = Callable[..., StudySession]


def deck(computed: int, ordinary: int) -> Deck:
    cards = [
        Card.model_validate(
            {
                "id": f"c{i}",
                "kind": "numeric",
                "front": "{a} squared?",
                "params": {"a": {"min": 1, "max": 9}},
                "answer": "a**2",
            }
        )
        for i in range(computed)
    ]
    cards += [Card(id=f"o{i}", front=f"Q{i}?", back="A.") for i in range(ordinary)]
    return Deck(id="quiz", name="Demo::Quiz", cards=tuple(cards))


def test_questions_mix_computed_and_ordinary_cards(make_session: MakeSession) -> None:
    session = make_session(make_library([deck(6, 6)]))
    questions = pick_questions(session, ["quiz"], count=10, seed=3)
    kinds = [q.card.kind for q in questions]
    assert len(questions) == 10 and kinds.count("numeric") == 5
    assert len({q.card.id for q in questions}) == 10
    assert [q.card.id for q in pick_questions(session, ["quiz"], count=10, seed=3)] == [
        q.card.id for q in questions
    ]


def test_few_computed_cards_are_all_used_and_the_rest_fills_up(make_session: MakeSession) -> None:
    session = make_session(make_library([deck(1, 3)]))
    assert sorted(q.card.id for q in pick_questions(session, count=10)) == ["c0", "o0", "o1", "o2"]
    session2 = make_session(make_library([deck(5, 1)]))
    assert len(pick_questions(session2, count=4, seed=1)) == 4


def test_suspended_cards_are_not_asked(make_session: MakeSession) -> None:
    session = make_session(make_library([deck(0, 3)]))
    session.suspend(session.study_card("quiz", "o1"))
    assert sorted(q.card.id for q in pick_questions(session, count=5)) == ["o0", "o2"]


def test_the_variant_seed_is_kept_in_the_review_log(make_session: MakeSession) -> None:
    session = make_session(make_library([deck(1, 0)]))
    card = session.study_card("quiz", "c0")
    variant = draw_variant(card.card, 123456)
    session.answer(card, Rating.Good, duration_ms=900, variant_seed=variant.seed)
    (logged,) = session.store.history(card.key)
    assert logged.variant_seed == 123456
    assert draw_variant(card.card, logged.variant_seed) == variant  # the variant can be shown again


def test_the_list_of_misses_shows_a_cited_claim_as_its_value(bundled_library: Library) -> None:
    """A card back citing `{claim:decay-295}` reads as the number in the quiz's misses."""
    from studykit.study.shorttext import short_text

    note = bundled_library.notes["rnn-limitations"]
    shown = short_text(
        r"Bound $0.95^{295} \approx {claim:decay-295}$, i.e. {claim:decay-295}.", note=note
    )
    assert "{claim" not in shown
    assert shown.count("2.68") == 2, shown


def test_list_text_reads_maths_code_and_escaped_dollars_as_the_renderers_do() -> None:
    """One line of a card for lists: the shared maths scanner decides what is maths."""
    from studykit.study.shorttext import short_text

    assert short_text(r"`echo $HOME` … and $\alpha$") == "echo $HOME … and α"
    assert short_text(r"Price \$5") == "Price $5"
    # Two escaped dollars around text are no maths either (the old regex took them for it).
    assert short_text(r"Price \$5, or \$10 with $x^2$") == "Price $5, or $10 with x²"
    assert short_text(r"**bold** `a**b` and \*stars\*") == "bold a**b and *stars*"
    assert (
        short_text("Before\n```\ny = $x\n```\nafter $$\\frac{a}{b}$$") == "Before y = $x after a/b"
    )

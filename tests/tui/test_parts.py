"""The UI's pure parts: interval and time formats, charts, card text, deck grouping."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pytest

from studykit.content.model import Card
from studykit.study.cardtext import back_markdown, front_markdown
from studykit.study.formatting import format_interval, format_local, format_until
from studykit.tui.charts import EIGHTHS, SHADES, bar_chart_lines, heatmap_lines
from studykit.tui.screens.finish import next_due_text
from studykit.tui.widgets.deck_tree import build_deck_groups


@pytest.mark.parametrize(
    ("delta", "shown"),
    [
        (timedelta(seconds=30), "<1m"),
        (timedelta(minutes=10), "10m"),
        (timedelta(hours=5), "5h"),
        (timedelta(days=3), "3d"),
        (timedelta(days=63), "2.1mo"),
        (timedelta(days=511), "1.4y"),
    ],
)
def test_format_interval(delta: timedelta, shown: str) -> None:
    assert format_interval(delta) == shown


@pytest.mark.parametrize(
    ("delta", "shown"),
    [
        (timedelta(hours=3, minutes=20, seconds=5), "in 3h 20m"),
        (timedelta(days=2, hours=4, minutes=59), "in 2d 4h"),
        (timedelta(days=1, minutes=5), "in 1d"),
        (timedelta(minutes=45), "in 45m"),
        (timedelta(seconds=20), "in <1m"),
        (timedelta(seconds=-5), "now"),
    ],
)
def test_format_until(delta: timedelta, shown: str) -> None:
    assert format_until(delta) == shown


def test_next_due_text_gives_local_time_and_distance() -> None:
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    due = now + timedelta(hours=3, minutes=20)
    text = next_due_text(due, now)
    assert text == f"The next card is due {format_local(due)} (in 3h 20m)."
    assert format_local(due) == due.astimezone().strftime("%a %d %b %H:%M")
    assert "No cards" in next_due_text(None, now)


def test_bar_chart_scales_to_the_largest_value() -> None:
    lines = bar_chart_lines([0, 4, 8, 1], height=4)
    bars = [line.split("┤", 1)[1] for line in lines[:4]]
    columns = [[row[i * 2] if i * 2 < len(row) else " " for row in bars] for i in range(4)]
    assert columns[0] == [" ", " ", " ", " "]  # zero: no bar at all
    assert columns[2] == ["█", "█", "█", "█"]  # the largest fills every row
    assert columns[1] == [" ", " ", "█", "█"]  # half of it
    assert columns[3][:3] == [" ", " ", " "] and columns[3][3] in EIGHTHS[1:]  # one is visible
    assert lines[0].lstrip().startswith("8 ┤")
    assert "today" in lines[-1] and lines[-2].lstrip().startswith("└")


def test_bar_chart_of_nothing() -> None:
    assert bar_chart_lines([]) == []
    lines = bar_chart_lines([0, 0, 0], height=3)
    assert all(set(line.split("┤", 1)[1]) <= {" "} for line in lines[:3])


def test_heatmap_places_days_by_week_and_weekday() -> None:
    today = date(2026, 3, 4)  # a Wednesday
    counts = {
        today: 10,
        today - timedelta(days=1): 5,
        date(2025, 12, 25): 1,
        today + timedelta(1): 9,
    }
    lines = heatmap_lines(counts, today, weeks=20, cell=2)
    assert len(lines) == 1 + 7 + 1
    rows = {line[:3]: line[4:] for line in lines[1:8] if line[:3].strip()}
    last = 19 * 2  # column of the current week
    assert rows["Wed"][last] == SHADES[-1]  # the busiest day is darkest
    assert lines[2][4 + last] == SHADES[1]  # Tuesday, half as busy
    assert rows["Fri"][last:].strip() == ""  # future days stay blank
    first_monday = date(2026, 3, 2) - timedelta(weeks=19)
    christmas_col = ((date(2025, 12, 25) - first_monday).days // 7) * 2
    assert lines[4][4 + christmas_col] == SHADES[0]  # Thursday row, a light day
    assert rows["Mon"][0] == "·"
    assert "Mar" in lines[0] and "Dec" in lines[0]


def test_cloze_cards_hide_then_fill() -> None:
    card = Card(id="c", kind="cloze", front="RNNs {{c1::vanish}} and {{c2::explode::what else?}}.")
    # One deletion per ordinal, as Anki asks them: that one hidden, the others filled in.
    assert front_markdown(card) == "RNNs **[...]** and explode."
    assert front_markdown(card, None, 2) == "RNNs vanish and **[what else?]**."
    assert back_markdown(card) == "RNNs **vanish** and explode."
    assert back_markdown(card, None, 2) == "RNNs vanish and **explode**."


def test_card_maths_is_converted_for_the_terminal() -> None:
    card = Card(id="b", front="What is $h_{t}$?", back="$$h_t = \\tanh(x)$$")
    assert "$" not in front_markdown(card) and "hₜ" in front_markdown(card)
    assert "$" not in back_markdown(card) and "tanh" in back_markdown(card)


@dataclass(frozen=True)
class Counts:
    deck_id: str
    name: str
    new: int
    learning: int
    due: int


def test_deck_groups_nest_on_double_colons_and_sum() -> None:
    groups = build_deck_groups(
        [
            Counts("a", "AI::RNN", 1, 2, 3),
            Counts("b", "AI::RNN::Extra", 10, 0, 1),
            Counts("c", "AI::Transformers", 0, 1, 0),
            Counts("d", "Maths", 5, 0, 0),
        ]
    )
    assert [g.name for g in groups] == ["AI", "Maths"]
    ai = groups[0]
    assert (ai.new, ai.learning, ai.due) == (11, 3, 4)
    assert ai.deck_id is None and ai.deck_ids == ("a", "b", "c")
    rnn = ai.children[0]
    assert rnn.deck_id == "a" and (rnn.new, rnn.due) == (11, 4)
    assert [c.full_name for c in rnn.children] == ["AI::RNN::Extra"]


def test_two_decks_with_one_name_stay_apart() -> None:
    groups = build_deck_groups([Counts("x", "Same", 1, 0, 0), Counts("y", "Same", 2, 0, 0)])
    assert [(g.name, g.deck_id, g.new) for g in groups] == [("Same", "x", 1), ("Same (y)", "y", 2)]


def test_retention_shows_its_counts() -> None:
    from studykit.study.stats import Stats
    from studykit.tui.screens.stats import summary_lines

    def shown(passed: int, total: int) -> str:
        stats = Stats(
            reviews_today=0,
            retention_30d=passed / total if total else None,
            retention_reviews=total,
            retention_passed=passed,
            forecast=(),
            heatmap={},
            total_cards=0,
            new_cards=0,
            suspended=0,
            leeches=0,
        )
        return dict(summary_lines(stats))["True retention (30 days)"]

    assert shown(2, 3) == "66.7% (2 of 3 reviews)"
    assert shown(1, 1) == "100.0% (1 of 1 review)"
    assert shown(0, 0) == "—"

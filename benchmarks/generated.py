"""Generated content for benchmarks: YAML decks on disk, and card states in a store."""

from __future__ import annotations

import os
import random
import time
from datetime import datetime, timedelta
from pathlib import Path

from studykit.content.loading import Library
from studykit.content.model import Card, Deck
from studykit.srs.scheduler import State, card_key
from studykit.srs.store import CardState, Store

NOTE_YAML = """id: bench-note
title: Benchmark note
sections:
  - id: only
    title: The only section
    body: "Some text with $h_t = \\\\tanh(W h_{t-1})$."
"""


def write_yaml_root(root: Path, *, cards: int, per_file: int = 1000) -> list[Path]:
    """A content root with one note and `cards` cards split into decks of `per_file`."""
    (root / "content").mkdir(parents=True, exist_ok=True)
    (root / "decks").mkdir(parents=True, exist_ok=True)
    (root / "content" / "note.yaml").write_text(NOTE_YAML, encoding="utf-8")
    files = []
    for start in range(0, cards, per_file):
        number = start // per_file
        lines = [
            f"id: deck-{number}",
            f'name: "Bench::Deck {number:04}"',
            "note: bench-note",
            "tags: [bench]",
            "cards:",
        ]
        for i in range(start, min(cards, start + per_file)):
            lines += [
                f"  - id: card-{i}",
                f'    front: "Question {i}: what is $x_{{{i}}}$?"',
                "    back: |",
                f"      Answer {i}, with **markdown** and $\\\\alpha_{{{i}}}$.",
                "    source: only",
                "    tags: [generated]",
            ]
        path = root / "decks" / f"deck-{number:04}.yaml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(path)
    return files


def write_big_deck(root: Path, *, cards: int = 100_000) -> Path:
    """One deck file of `cards` short cards (100k: 4.9 MB, just under the 5 MB file limit)."""
    (root / "decks").mkdir(parents=True, exist_ok=True)
    lines = ["id: big", 'name: "Bench::Big"', "cards:"]
    for i in range(cards):
        lines += [f"- id: c{i}", f"  front: Q{i} is?", f"  back: A{i}."]
    path = root / "decks" / "big.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def settle_files(paths: list[Path], *, age_s: float = 3600) -> None:
    """Date files `age_s` back: the library cache skips files modified in the last seconds."""
    then = time.time() - age_s
    for path in paths:
        os.utime(path, (then, then))


def library_with_states(
    store_path: Path, *, cards: int, decks: int, now: datetime, seed: int = 0
) -> Library:
    """A library of `cards` cards over `decks` decks, each card with a stored state."""
    rng = random.Random(seed)
    per_deck = cards // decks
    library_decks = {}
    states = []
    for d in range(decks):
        deck_id = f"deck-{d}"
        deck_cards = tuple(Card(id=f"c-{i}", front=f"Q{i}?", back="A.") for i in range(per_deck))
        library_decks[deck_id] = Deck(id=deck_id, name=f"Bench::{d:02}", cards=deck_cards)
        for card in deck_cards:
            key, roll = card_key(deck_id, card.id), rng.random()
            if roll < 0.8:
                due = now + timedelta(days=rng.uniform(-30, 120))
                states.append(
                    CardState(
                        key,
                        deck_id,
                        card.id,
                        state=State.Review,
                        stability=5.0,
                        difficulty=5.0,
                        due=due,
                        last_review=due - timedelta(days=5),
                        reps=3,
                        introduced_at=now - timedelta(days=60),
                    )
                )
            elif roll < 0.85:
                due = now + timedelta(minutes=rng.uniform(-30, 600))
                states.append(
                    CardState(
                        key,
                        deck_id,
                        card.id,
                        state=State.Learning,
                        step=1,
                        stability=2.0,
                        difficulty=5.0,
                        due=due,
                        last_review=now - timedelta(minutes=10),
                        reps=1,
                        introduced_at=now,
                    )
                )
            elif roll < 0.9:
                states.append(CardState(key, deck_id, card.id, suspended=True))
    with Store.open(store_path) as store:
        store.put_states(states)
    return Library(root=store_path.parent, notes={}, decks=library_decks, problems=())

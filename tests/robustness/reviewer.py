"""Child process for the crash and concurrency tests: answers cards and acknowledges each.

Usage: python reviewer.py ROOT DATA_DIR DECK COUNT SEED. After each `session.answer()` returns
and the next card has been fetched, prints `shown <n> <review-log id>` (flushed). COUNT 0
answers until killed. Ends with `done <n>`.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from studykit.core.config import Settings
from studykit.study.session import Rating, StudySession


def main(root: str, data_dir: str, deck: str, count: int, seed: int) -> None:
    settings = Settings(
        root=Path(root), data_dir=Path(data_dir), new_per_day=100_000, enable_fuzzing=False
    )
    rng = random.Random(seed)
    session = StudySession.open(settings)
    answered = 0
    card = session.next_card(deck)
    while card is not None and (count == 0 or answered < count):
        # Again and Hard keep a card in learning, so the deck never runs dry.
        session.answer(card, rng.choice([Rating.Again, Rating.Hard]), duration_ms=1000)
        answered += 1
        last = session.store.last_answer()
        assert last is not None
        card = session.next_card(deck)
        print(f"shown {answered} {last.id}", flush=True)
    session.close()
    print(f"done {answered}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))

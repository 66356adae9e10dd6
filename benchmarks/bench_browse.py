"""Card browser search over a large collection: each filter vs a bare substring scan."""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import report, time_call
from generated import library_with_states

from studykit.core.config import Settings
from studykit.srs.store import Store
from studykit.study.search import parse_query
from studykit.study.session import StudySession

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def bench_browse(tmp: Path, cards: int = 100_000) -> None:
    """`StudySession.browse` at 100,000 cards: first search (facts built), then each filter."""
    settings = Settings(root=tmp, data_dir=tmp / f"browse-{cards}", enable_fuzzing=False)
    library = library_with_states(settings.database_path, cards=cards, decks=10, now=NOW)
    store = Store.open(settings.database_path)
    with StudySession(library, store, settings, clock=lambda: NOW, tz=UTC) as session:
        start = time.perf_counter()
        first = session.browse(parse_query("q4242"))
        first_seconds = time.perf_counter() - start
        report("browse, first text search (facts built)", first_seconds, goal="≤ 1 s")
        texts = [
            f"{c.id}\n{c.front}\n{c.back}".casefold()
            for d in library.decks.values()
            for c in d.cards
        ]
        bare = time_call(lambda: [t for t in texts if "q4242" in t])
        for search in ("", "q4242", "is:due", "is:suspended", "deck:bench::03 -is:new", "q*9?"):
            result = session.browse(parse_query(search))

            def browse(s: str = search) -> object:
                return session.browse(parse_query(s))

            seconds = time_call(browse)
            label = f"browse {cards:,} cards: {search or '(all)'!r} -> {result.total:,}"
            report(label, seconds, baseline=bare, goal="≤ 0.5 s")
        assert first.total >= 1


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        bench_browse(Path(tmp))

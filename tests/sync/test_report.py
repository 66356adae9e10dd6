"""What a sync says: counts in words, conflicts with file:line, one JSON object."""

from __future__ import annotations

import json

from studykit.sync.report import FSRS_OFF, ConflictLine, SyncReport


def test_the_report_in_words() -> None:
    report = SyncReport(
        server="http://127.0.0.1:9/",
        seconds=0.25,
        answers_in=3,
        suspended_in=1,
        answers_out=1,
        states_out=2,
        notes_added=4,
        fsrs=False,
        conflicts=[ConflictLine("edited", "alpha", "two", "decks/alpha.yaml:7", 'Back: "x"', True)],
    )
    lines = report.lines()
    assert lines[0] == "Synced with http://127.0.0.1:9/ in 0.2 s."
    assert lines[1] == "In from Anki: 3 answers, 1 card suspended."
    assert lines[2] == "Out to Anki: 1 answer, 2 card states; notes: 4 added."
    assert lines[3] == "Conflicts (1); YAML is the master copy:"
    assert lines[4].startswith('  decks/alpha.yaml:7: alpha/two edited in Anki (Back: "x")')
    assert FSRS_OFF in lines
    assert json.loads(json.dumps(report.as_json()))["conflicts"][0]["where"] == "decks/alpha.yaml:7"

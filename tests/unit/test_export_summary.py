"""summary_lines: one account of an export for the command line and the app's notification."""

from __future__ import annotations

from pathlib import Path

from studykit.export import REUSED, ExportResult
from studykit.export.media import MediaReport, MissingRun
from studykit.export.summary import summary_lines


def _everything_went_wrong(tmp_path: Path) -> ExportResult:
    """An export that reused its package and left out something of every kind."""
    media = MediaReport(images=2, plots=1, drawn=1, skipped_plots=3)
    media.missing[MissingRun("rnn-gradient-decay", (("steps", 20),))] = None
    media.missing[MissingRun("rnn-gradient-decay", (("steps", 40),))] = None
    media.refused["lstm-memory (steps=-1)"] = None
    return ExportResult(
        path=tmp_path / "demo.apkg",
        decks=2,
        notes=5,
        cards=6,
        unbaked=("eff-context",),
        removed=("gone-card",),
        reused=True,
        media=media,
        ledger_damage=("The export ledger was damaged; rebuilt it.",),
    )


def test_the_command_line_says_problems_apart_with_the_commands_that_fix_them(
    tmp_path: Path,
) -> None:
    lines = summary_lines(_everything_went_wrong(tmp_path))
    said = [line.text for line in lines if line.kind == "said"]
    assert said[0] == f"Wrote {tmp_path / 'demo.apkg'}: 5 notes, 6 cards in 2 decks."
    assert REUSED in said and "Without scheduling: every card arrives new." in said
    assert "Media: 2 image(s), 1 plot(s) (1 drawn now)." in said
    kinds = [line.kind for line in lines if line.kind != "said"]
    # unbaked, skipped plots, missing runs and their two commands, refused, ledger damage
    assert kinds == ["problem", "problem", "problem", "command", "command", "problem", "problem"]
    commands = [line.text for line in lines if line.kind == "command"]
    assert commands == [
        "studykit experiment run rnn-gradient-decay --set steps=20 --cache",
        "studykit experiment run rnn-gradient-decay --set steps=40 --cache",
    ]


def test_the_app_tells_every_problem_the_command_line_does_without_its_asides(
    tmp_path: Path,
) -> None:
    result = _everything_went_wrong(tmp_path)
    cli = summary_lines(result)
    app = summary_lines(result, app_title="Demo")
    texts = [line.text for line in app]
    assert texts[:2] == ["Exported Demo: 5 notes, 6 cards.", str(result.path)]
    assert REUSED in texts
    assert not any(t.startswith(("Without scheduling", "Media:")) for t in texts)
    assert [line.kind for line in app if line.kind != "said"] == [
        line.kind for line in cli if line.kind == "problem"
    ]
    assert "no plot for lstm-memory (steps=-1) (see `studykit check`)" in texts
    assert "The export ledger was damaged; rebuilt it." in texts

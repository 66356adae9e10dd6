"""summary_lines: one account of an export for the command line and the app's notification."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from studykit.export import COPIED, REUSED, ExportResult
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
        unchanged=True,
        media=media,
        ledger_damage=("The export ledger was damaged; rebuilt it.",),
    )


def test_the_command_line_says_problems_apart_and_missing_runs_in_one_line(
    tmp_path: Path,
) -> None:
    lines = summary_lines(_everything_went_wrong(tmp_path))
    said = [line.text for line in lines if line.kind == "said"]
    assert said[0] == f"Wrote {tmp_path / 'demo.apkg'}: 5 notes, 6 cards in 2 decks."
    assert REUSED in said and "Without scheduling: every card arrives new." in said
    assert "Media: 2 image(s), 1 plot(s) (1 drawn now)." in said
    problems = [line.text for line in lines if line.kind != "said"]
    # unbaked, skipped plots, the missing runs (one line for both), refused, ledger damage
    assert len(problems) == 5
    [missing] = [text for text in problems if "no cached result" in text]
    assert missing.startswith("2 linked experiment run(s) have no cached result")
    assert "--run-experiments" in missing and "--cache" not in missing


def test_a_package_copied_to_another_path_is_not_called_unchanged(tmp_path: Path) -> None:
    copied = replace(_everything_went_wrong(tmp_path), unchanged=False)
    for lines in (summary_lines(copied), summary_lines(copied, app_title="Demo")):
        texts = [line.text for line in lines]
        assert COPIED in texts and REUSED not in texts


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

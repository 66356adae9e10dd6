"""What an export wrote and what it left out, in lines for the command line and for the app.

One list of facts, in one order, for both: the command line writes the problems on stderr
(and the commands that fix them under them); the app joins the lines into one notification,
which names what it exported, points at its own screens, and leaves out the command line's
asides (the scheduling mode, the media packed, the commands to run).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from studykit.export import REUSED

if TYPE_CHECKING:
    from studykit.export import ExportResult
    from studykit.export.media import MediaReport

LineKind = Literal["said", "problem", "command"]


@dataclass(frozen=True)
class SummaryLine:
    """One fact about an export."""

    text: str
    kind: LineKind = "said"
    """`problem`: something left out or to fix (the command line's stderr, `studykit: …`);
    `command`: a command line that fixes the problem above it (only for the command line)."""


def summary_lines(result: ExportResult, *, app_title: str | None = None) -> list[SummaryLine]:
    """The lines that tell `result`: the command line's, or with `app_title` (what the app
    exported) the app's notification."""
    app = app_title is not None
    lines: list[SummaryLine] = []
    if app_title is not None:
        lines.append(
            SummaryLine(f"Exported {app_title}: {result.notes} notes, {result.cards} cards.")
        )
        lines.append(SummaryLine(str(result.path)))
    else:
        decks = f"{result.decks} deck{'s' if result.decks != 1 else ''}"
        counts = f"{result.notes} notes, {result.cards} cards in {decks}"
        lines.append(SummaryLine(f"Wrote {result.path}: {counts}."))
    if result.reused:
        lines.append(SummaryLine(REUSED))
    if not app:
        lines.append(SummaryLine(_scheduling(result)))
    if result.removed:
        verb = "sent" if app else "exported"
        lines.append(
            SummaryLine(
                f"{len(result.removed)} removed card(s) or variant(s) {verb} once more, tagged "
                f"studykit::removed (in Anki: tag:studykit::removed): {', '.join(result.removed)}"
            )
        )
    if result.unbaked:
        lines.append(
            SummaryLine(
                f"{len(result.unbaked)} computed card(s) exported as type-in cards with the "
                f"answer formula (no drawn values): {', '.join(result.unbaked)}",
                "problem",
            )
        )
    if result.media is not None:
        lines += _media(result.media, app=app)
    lines += [SummaryLine(damage, "problem") for damage in result.ledger_damage]
    return lines


def _scheduling(result: ExportResult) -> str:
    if not result.scheduled:
        return "Without scheduling: every card arrives new."
    return (
        f"With scheduling: {result.revlog} reviews. In Anki's import dialog tick "
        '"Import any learning progress" and "Import any deck presets"; FSRS is one '
        "switch for the whole collection (Deck options > FSRS)."
    )


def _media(media: MediaReport, *, app: bool) -> list[SummaryLine]:
    """What was packed (the command line only), and what was left out and how to get it in."""
    lines: list[SummaryLine] = []
    if not app and (media.images or media.plots):
        drawn = f" ({media.drawn} drawn now)" if media.drawn else ""
        lines.append(SummaryLine(f"Media: {media.images} image(s), {media.plots} plot(s){drawn}."))
    if media.skipped_plots:
        lines.append(
            SummaryLine(
                f"{media.skipped_plots} plot(s) skipped: matplotlib is not installed; install "
                "the plots extra (pip install 'studykit[plots]') and export again",
                "problem",
            )
        )
    if media.missing and app:
        names = ", ".join(sorted({run.experiment for run in media.missing}))
        lines.append(
            SummaryLine(
                f"{len(media.missing)} linked experiment run(s) not run yet, so no plot "
                f"({names}): run them in Experiments, or see `studykit export anki`.",
                "problem",
            )
        )
    elif media.missing:
        lines.append(
            SummaryLine(
                f"{len(media.missing)} linked experiment run(s) have no cached result, so "
                "their cards went out without a plot; run them (here, or in the app's "
                "Experiments screen), then export again:",
                "problem",
            )
        )
        lines += [SummaryLine(run.command(), "command") for run in media.missing]
    lines += [
        SummaryLine(f"no plot for {refused} (see `studykit check`)", "problem")
        for refused in media.refused
    ]
    return lines

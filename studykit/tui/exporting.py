"""The deck list's `x`: an Anki export in a thread worker, and the notification that tells it."""

from __future__ import annotations

from textual import work
from textual.app import App

from studykit.study.session import StudySession
from studykit.tui.messages import Exported
from studykit.tui.screens.home import HomeScreen

EXPORT_WORKER = "export-anki"


class AnkiExports(App[None]):
    """Mixin for the app: export what home asks for to `<data dir>/exports/`."""

    session: StudySession | None

    def on_home_screen_export_requested(self, message: HomeScreen.ExportRequested) -> None:
        if self.session is None:
            return
        self.notify(f"Exporting {message.title} to Anki…", timeout=3)
        self.export_anki(message.title, message.deck_ids, message.stem)

    @work(thread=True, exclusive=True, exit_on_error=False, group="export", name=EXPORT_WORKER)
    def export_anki(self, title: str, deck_ids: tuple[str, ...], stem: str) -> None:
        """Write `<data dir>/exports/<stem>.apkg` off the UI thread; Exported says how it went."""
        from studykit.export import export_anki
        from studykit.export.ledger import ExportLedger

        session = self.session
        assert session is not None
        data_dir = session.settings.data_dir
        result = export_anki(
            session.library,
            data_dir / "exports" / f"{stem}.apkg",
            deck_ids=deck_ids,
            ledger=ExportLedger.in_data_dir(data_dir),
            session=session,
            plot_dir=data_dir / "plots",
        )
        self.post_message(Exported(title, result))

    def on_exported(self, message: Exported) -> None:
        """Say what an export wrote, and what it left out."""
        from studykit.export.summary import summary_lines

        lines = summary_lines(message.result, app_title=message.title)
        text = "\n".join(line.text for line in lines)
        self.notify(text, title="Anki export", timeout=12, markup=False)

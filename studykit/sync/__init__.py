"""`studykit sync`: reviews both ways through Anki's own sync, and the Obsidian plugin's
schedules both ways. Needs the `sync` extra (Anki's `anki` package), imported only here."""

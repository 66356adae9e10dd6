"""The foundation every layer stands on: errors, ids, defaults, safe file reading, terminal-safe
text, "did you mean", and the settings. Imports nothing else of studykit."""

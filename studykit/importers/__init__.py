"""Importers: other tools' flashcard formats -> our deck YAML."""

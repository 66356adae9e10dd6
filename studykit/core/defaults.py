"""Defaults shared by the command line, the app and the core; imports nothing, so it is cheap."""

QUIZ_QUESTIONS = 10  # how many questions a quiz asks unless told otherwise
MAX_ALIAS_EXPANSION = 100_000
"""How many values aliases (`*name`, `<<: *name`) may add to one YAML file; stops alias bombs."""

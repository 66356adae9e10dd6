"""Defaults shared by the command line, the app and the core; imports nothing, so it is cheap."""

QUIZ_QUESTIONS = 10  # how many questions a quiz asks unless told otherwise

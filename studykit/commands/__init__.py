"""Subcommands of the `studykit` command line, one module each.

Each module defines click commands using `studykit.commands.support`, and `studykit.cli`
registers them. Modules here import only click at import time: the heavy parts (textual,
sympy, torch, genanki) are imported inside the command functions.
"""

"""studykit: study technical subjects from YAML notes in the terminal."""

__version__ = "0.1.0"

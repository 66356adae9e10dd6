"""`python -m studykit`."""

from studykit.cli import main

if __name__ == "__main__":
    main()

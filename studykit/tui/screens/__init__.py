"""The app's screens, one module each."""

from pathlib import Path

SCREENS_CSS = Path(__file__).with_name("screens.tcss")
"""Every screen past home names this as its CSS_PATH: start-up parses only studykit.tcss."""

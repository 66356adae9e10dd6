"""The fixed ids of studykit's Anki notetypes (cheap to import: no genanki)."""

from __future__ import annotations

# Chosen once at random; never change them, or Anki sees new notetypes.
BASIC_MODEL_ID = 1140921977
REVERSED_MODEL_ID = 1822279583
CLOZE_MODEL_ID = 1123932333
TYPE_IN_MODEL_ID = 1686521916
COMPUTED_MODEL_ID = 1593127264

MODEL_IDS = (BASIC_MODEL_ID, REVERSED_MODEL_ID, CLOZE_MODEL_ID, TYPE_IN_MODEL_ID, COMPUTED_MODEL_ID)
MODEL_NAME_PREFIX = "studykit "
"""Every studykit notetype's name starts so (`studykit basic`, `studykit cloze`, ...)."""

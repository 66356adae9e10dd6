"""The bounds that keep checking and evaluating an expression finite."""

from __future__ import annotations

from typing import Final

MAX_LENGTH: Final = 2_000
MAX_DEPTH: Final = 50
MAX_LITERAL_DIGITS: Final = 30
MAX_LITERAL_ABS: Final = 1e300
MAX_EXPONENT: Final = 1_000
# An exact number may hold at most this many bits (about 12,000 decimal digits).
MAX_EXACT_BITS: Final = 40_000
MAX_SUM_TERMS: Final = 10_000
# All sums of one evaluation together, so nested sums cannot multiply up.
MAX_TOTAL_TERMS: Final = 100_000
TIME_LIMIT_S: Final = 5.0
# simplify() gets a shorter budget: when it runs out, holds() decides numerically instead.
SIMPLIFY_TIME_LIMIT_S: Final = 3.0
SAMPLE_POINTS: Final = 8
SAMPLE_ATTEMPTS: Final = 60

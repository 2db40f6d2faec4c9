"""What a missing figure is, and how it prints: the one rule and the one text. UI- and torch-free.

A figure is a finite int or float. ``True``/``False`` are not (JSON gives them as bools, Python counts them as
ints), nor are NaN and the infinities (``json.loads`` gives them for ``NaN``/``Infinity``, and a failing run
logs them), nor strings. Anything else is missing, and a missing figure prints ``NA`` ("N/A") wherever it is
printed: the screen, a terminal line, run.log, report.md, a compare table. Both functions run per step and per
sample of long runs: the common float case is tested first, without a call to ``math.isfinite``.
"""

from __future__ import annotations

import math
from typing import Any

NA = "N/A"   # the one text for a missing figure (not "n/a", not "-", not "nan", not "0")


def finite_or_none(value: Any) -> float | int | None:
    """``value`` when it is a finite int or float (not a bool), else None."""
    kind = value.__class__
    if kind is float:
        return value if value - value == 0.0 else None   # inf - inf and nan - nan are nan
    if kind is int:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return value


def is_finite(value: Any) -> bool:
    """Whether ``value`` is a finite int or float (not a bool)."""
    return finite_or_none(value) is not None

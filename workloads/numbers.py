"""Is a value a figure? The one rule, for workloads, the report, compare, the soak and the parsers. UI- and
torch-free.

A figure is a finite int or float. ``True``/``False`` are not (JSON gives them as bools, Python counts them as
ints), nor are NaN and the infinities (``json.loads`` gives them for ``NaN``/``Infinity``, and a failing run
logs them), nor strings. Both functions run per step and per sample of long runs: the common float case is
tested first, without a call to ``math.isfinite``.
"""

from __future__ import annotations

import math
from typing import Any


def finite(value: Any) -> float | int | None:
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
    return finite(value) is not None

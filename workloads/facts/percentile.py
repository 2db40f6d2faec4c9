"""The one percentile: numpy's default (linear interpolation, which vLLM uses too), for a run's step p90 and a
generation's or a server's latency p50/p99 alike. Torch-free: children and the UI share it."""

from __future__ import annotations

import math
from typing import Iterable


def percentile(values: Iterable[float | None], q: float) -> float | None:
    """The q-th percentile (0-100) of the finite values, interpolated linearly; None when there is none.
    Sorted input costs linear time (Timsort finds the one run)."""
    data = sorted(v for v in values if v is not None and math.isfinite(v))
    if not data:
        return None
    pos = (len(data) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (pos - low)

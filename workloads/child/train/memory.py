"""A training run's memory: the device's total (what a step is checked against before anything is allocated),
and its peak read at a bounded rate for the step events."""

from __future__ import annotations

from typing import Any

import psutil

from workloads.child import device as devices

# the peak-memory counters build a dict of every allocator statistic per read: at most once a second
MEMORY_EVERY_S = 1.0


def total_memory(device: Any) -> int | None:
    """All the memory of ``device`` (the host's RAM for the CPU), or None where torch does not say."""
    try:
        if device.type == "cpu":
            return int(psutil.virtual_memory().total)
        total = getattr(devices.properties(device), "total_memory", None)
        return int(total) if total is not None else None
    except Exception:  # noqa: BLE001 - no figure: no check, the allocator still has its say
        return None


class PeakMemory:
    """(peak allocated, peak reserved) bytes of ``device`` as a step event carries them: read again only when
    :data:`MEMORY_EVERY_S` has passed since the last read (or when told to), else the last figures."""

    def __init__(self, device: Any, every_s: float | None = None):
        self.device = device
        self.every_s = MEMORY_EVERY_S if every_s is None else every_s
        self.allocated: int | None = None
        self.reserved: int | None = None
        self.read_at = float("-inf")

    def at(self, now: float, force: bool = False) -> tuple[int | None, int | None]:
        """The figures at clock ``now``: read afresh when due (or ``force``), else the last ones."""
        if force or now - self.read_at >= self.every_s:
            self.allocated, self.reserved = devices.peak_memory(self.device)
            self.read_at = now
        return self.allocated, self.reserved

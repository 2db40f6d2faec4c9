"""How much CPU the host gave to processes that are not cardbench's, over the last tick, in cores (psutil).

cardbench's own work is this process and everything it started (the workload child, its workers, the command it
runs); the rest is another job on the host: another engineer's tests, a second benchmark, another container where
the kernel counts the host's CPUs. A ResNet-50 run read 6.4 images/s beside another job and 55-56 alone on the same
machine, and nothing said so (issue 36 item 2): the host sample carries this figure so the run can say it.

The host's busy time is /proc/stat's (psutil.cpu_times: all but idle and iowait; guest time is inside user); our
own is each process's user and system time plus what it reaped of its children, so a child that ends between two
ticks leaves its time in its parent's count. Other = host busy - own, per second of the tick, never below 0.
"""

from __future__ import annotations

import os
import time
from typing import Any

# the shortest tick over which the clock-tick counts (10 ms) give a figure
MIN_WINDOW_S = 0.2


def _busy_s(times: Any) -> float:
    """CPU seconds the host spent on anything, all cores together, from psutil.cpu_times()."""
    total = sum(times)
    # guest time is counted in user as well; idle and iowait are no work; steal is another VM's, not ours to see
    for spare in ("idle", "iowait", "guest", "guest_nice", "steal"):
        total -= getattr(times, spare, 0.0)
    return total


class OtherCpu:
    """``read()``: cores used by processes other than ``root`` (default this process) and its descendants since the
    previous read; None on the first read, over too short a tick, or where psutil cannot say."""

    def __init__(self, root: int | None = None, psutil: Any = None) -> None:
        if psutil is None:
            import psutil  # as tui.telemetry.host: `import tui.telemetry` stays cheap

        self._ps = psutil
        self._root = root if root is not None else os.getpid()
        self._last: tuple[float, float, float] | None = None   # (monotonic, host busy s, own s)

    def _own_s(self) -> float | None:
        ps = self._ps
        try:
            root = ps.Process(self._root)
            procs = [root, *root.children(recursive=True)]
        except ps.Error:
            return None
        total = 0.0
        for proc in procs:
            try:
                t = proc.cpu_times()
            except ps.Error:   # ended since it was listed: its parent counts it once it is reaped
                continue
            total += t.user + t.system + getattr(t, "children_user", 0.0) + getattr(t, "children_system", 0.0)
        return total

    def read(self) -> float | None:
        try:
            busy = _busy_s(self._ps.cpu_times())
        except (self._ps.Error, OSError):
            return None
        own, now = self._own_s(), time.monotonic()
        last = self._last
        self._last = (now, busy, own) if own is not None else None
        if last is None or own is None or now - last[0] < MIN_WINDOW_S:
            return None
        # a child gone but not yet reaped drops out of our count for a tick: ours never shrinks
        other = (busy - last[1]) - max(0.0, own - last[2])
        return round(max(0.0, other / (now - last[0])), 2)

"""The CPUs this process may run on. Torch-free: the workbench, the run store and the workloads read it."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The cores this process may use: its affinity (a taskset, a container's cpuset), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):   # not on Linux
        return os.cpu_count() or 1

"""A workload child dies with the process that started it, however that process ends.

A `kill -9` of `cardbench run` or of the workbench leaves no one to stop the
child; without this it would train on (holding device memory) until its next
event met a broken pipe, which a silent phase (a compile, a stalled loader, a
hung collective) puts off without bound. Linux only: prctl(PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import os
import signal
import sys

from workloads import exit_codes
from workloads.protocol import PARENT_PID_ENV  # set by the runner: a child started by hand is left alone
_PR_SET_PDEATHSIG = 1


def die_with_parent(expected_parent: int | None = None) -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies; exit now if the parent is already gone.

    ``expected_parent``: the pid the parent had; without it, being re-parented to init
    is taken as the parent being gone. Returns whether the request was made.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    parent = os.getppid()
    if (expected_parent is not None and parent != expected_parent) or (expected_parent is None and parent == 1):
        os._exit(exit_codes.FAILED)
    return True


def die_with_runner() -> bool:
    """`die_with_parent` for a child a cardbench runner started (it said so in the environment)."""
    text = os.environ.get(PARENT_PID_ENV, "")
    if not text.isdigit():
        return False
    return die_with_parent(int(text))

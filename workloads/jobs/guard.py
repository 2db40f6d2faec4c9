"""`python -m workloads.jobs.guard GRACE_S`: leads the job's process group and takes it down when the child goes.

The job runs in its own process group, so neither the runner's stop (it signals the child's group)
nor the kernel's parent-death signal (it reaches only the child) touch it: a child killed with
SIGKILL would leave the user's training holding the device. This guard is started first, in a new
group that the job then joins (so the job never runs unguarded), and reads its stdin, a pipe only the
child holds. When that pipe ends, however the child ended (done, stopped, SIGKILLed with its runner),
the guard sends SIGTERM to every other process of the group, then SIGKILL after the grace period,
and exits. Linux: the group's members are read from /proc. It ignores SIGTERM, SIGINT and SIGHUP, which a stop of
the group sends to it too, so it always outlives the job.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from workloads.jobs.procs import stats

_POLL_S = 0.05


def members(pgid: int, *, but: int) -> list[int]:
    """Live processes of the group (zombies are done), except ``but`` (Linux: /proc)."""
    return [pid for pid, state, _, group in stats() if group == pgid and pid != but and state != b"Z"]


def take_down(pgid: int, grace_s: float) -> None:
    me = os.getpid()
    if not members(pgid, but=me):
        return
    os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not members(pgid, but=me):
            return
        time.sleep(_POLL_S)
    try:
        sys.stderr.write(f"[cardbench] the command's processes outlived SIGTERM by {grace_s:g} s; sending SIGKILL\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # the child that read our stderr is gone: the kill matters, not the line
    os.killpg(pgid, signal.SIGKILL)  # this guard included: it is the last thing it does


def main(argv: list[str]) -> int:
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    pgid, grace_s = os.getpgrp(), float(argv[0])
    while True:
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for clarity of intent
            continue
        except OSError:
            break
    take_down(pgid, grace_s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Processes as Linux's /proc lists them: one reader for the guard (its group's members) and the job (the
descendants it stops). Stdlib only: the guard imports it and must start fast."""

from __future__ import annotations

import os
from typing import Iterator


def stats() -> Iterator[tuple[int, bytes, int, int]]:
    """(pid, state, parent pid, process group) of every process that could be read."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        found = stat(int(name))
        if found is not None:
            yield (int(name), *found)


def stat(pid: int) -> tuple[bytes, int, int] | None:
    """(state, parent pid, process group) of ``pid``, or None when it is gone. The command name, in parentheses,
    may hold spaces and parentheses itself: the fields are read after its last ')'."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return fields[0], int(fields[1]), int(fields[2])
    except (OSError, IndexError, ValueError):
        return None


def alive(pid: int) -> bool:
    found = stat(pid)
    return found is not None and found[0] != b"Z"   # a zombie is done

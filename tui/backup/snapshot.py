"""What both kinds of destination share: snapshot names, and sending a file while hashing what was sent."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Callable, Iterable

from tui.backup.manifest import Entry, copy_hashing
from tui.backup.sources import SourceFile

STAMP = re.compile(r"^\d{8}T\d{6}Z(-\d+)?$")
OnBytes = Callable[[int], None]
Progress = Callable[[str, int, int], None]   # (phase: copying, staging or uploading; bytes done in it; bytes to do)


class Meter:
    """The bytes done in the backup's current phase, handed on to a progress callback as they come."""

    def __init__(self, total: int, progress: Progress | None):
        self.total = total
        self.progress = progress
        self.name = "copying"
        self.done = 0

    def phase(self, name: str) -> None:
        self.name, self.done = name, 0

    def __call__(self, n: int) -> None:
        self.done += n
        if self.progress is not None:
            self.progress(self.name, min(self.done, self.total), self.total)


def new_stamp(t: float, taken: Iterable[str]) -> str:
    """The snapshot's name: its UTC time ('20261203T070000Z'), '-2', '-3'... for a second one in the same second."""
    base = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t))
    taken = set(taken)
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def copy_file(source: SourceFile, target: Path, on_bytes: OnBytes) -> Entry:
    """Copy ``source`` to ``target`` (a new file) and fsync it; its entry holds the sum of the bytes written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(source.path, "rb") as src, open(target, "xb") as dst:
        stat = os.fstat(src.fileno())   # as it was when opened: a later change shows at the next backup
        digest, size = copy_hashing(src, dst, on_bytes)
        dst.flush()
        os.fsync(dst.fileno())
    return Entry(digest, size, stat.st_mtime_ns, str(source.path))


def to_prune(complete: list[str], latest: str, keep: int) -> list[str]:
    """The oldest complete snapshots beyond the ``keep`` newest; never the latest."""
    others = sorted(name for name in complete if name != latest)
    return others[:max(0, len(others) - (keep - 1))]

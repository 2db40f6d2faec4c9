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
    """Copy ``source`` to ``target`` (a new file) with its permission bits, and fsync it; its entry holds the sum
    of the bytes written. A 0600 `.env` stays 0600: a backup must not make a secret world-readable."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(source.path, "rb") as src:
        stat = os.fstat(src.fileno())   # as it was when opened: a later change shows at the next backup
        # created with the source's bits (never wider), set again after the umask; the owner keeps read so the
        # backup can read back what it wrote; set-id bits are not carried
        mode = (stat.st_mode & 0o777) | 0o400
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as dst:
            os.fchmod(fd, mode)
            digest, size = copy_hashing(src, dst, on_bytes)
            dst.flush()
            os.fsync(dst.fileno())
    return Entry(digest, size, stat.st_mtime_ns, str(source.path))


def is_private(files: Iterable[SourceFile]) -> bool:
    """Some source is not world-readable: the backup's own folders are then 0700, so its copy is no easier
    to read than the original."""
    for source in files:
        try:
            if not source.path.stat().st_mode & 0o004:
                return True
        except OSError:
            continue
    return False


def gone(exc: OSError, source: SourceFile) -> bool:
    """The source vanished between listing and copying (live.json, a live run's temporary file)."""
    return isinstance(exc, FileNotFoundError) and exc.filename is not None and Path(exc.filename) == source.path


def to_prune(complete: list[str], latest: str, keep: int) -> list[str]:
    """The oldest complete snapshots beyond the ``keep`` newest; never the latest."""
    others = sorted(name for name in complete if name != latest)
    return others[:max(0, len(others) - (keep - 1))]

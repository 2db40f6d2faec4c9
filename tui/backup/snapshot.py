"""What both kinds of destination share: snapshot names, and sending a file while hashing what was sent."""

from __future__ import annotations

import errno
import os
import re
import stat
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


class LeftOut(Exception):
    """A listed source that is not copied after all; the message ends the line that names it."""


VANISHED = "went away before it was copied (a live run's file)"


def open_listed(source: SourceFile) -> int:
    """A read-only descriptor of the file that was listed, or LeftOut. Between the listing and the copy a file
    (or a folder above it) can be swapped for a symbolic link out of the tree, or for a FIFO that would block
    the backup forever: neither is followed. A file replaced in place (live.json, written by rename) is read.
    The path opened is the one resolved at the listing, so a file the user named through a link is still read."""
    where = source.real or source.path
    try:
        fd = os.open(where, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise LeftOut(VANISHED) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LeftOut("became a symbolic link after it was listed (not followed)") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise LeftOut("is no longer a regular file (a FIFO or a device since it was listed; not read)")
        os.set_blocking(fd, True)
        try:
            opened = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            opened = None   # no /proc: the last part of the path was checked, the folders above it cannot be
        if opened is not None and source.real is not None and opened != str(source.real):
            if opened.endswith(" (deleted)"):
                raise LeftOut(VANISHED)
            raise LeftOut("lies behind a symbolic link since it was listed (a folder above it was swapped; "
                          "not followed)")
    except BaseException:
        os.close(fd)
        raise
    return fd


def copy_file(source: SourceFile, target: Path, on_bytes: OnBytes) -> Entry:
    """Copy ``source`` to ``target`` (a new file) with its permission bits, and fsync it; its entry holds the sum
    of the bytes written. A 0600 `.env` stays 0600: a backup must not make a secret world-readable."""
    fd = open_listed(source)
    with os.fdopen(fd, "rb") as src:
        info = os.fstat(fd)   # as it was when opened: a later change shows at the next backup
        target.parent.mkdir(parents=True, exist_ok=True)
        # created with the source's bits (never wider), set again after the umask; the owner keeps read so the
        # backup can read back what it wrote; set-id bits are not carried
        mode = (info.st_mode & 0o777) | 0o400
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(out, "wb") as dst:
            os.fchmod(out, mode)
            digest, size = copy_hashing(src, dst, on_bytes)
            dst.flush()
            os.fsync(dst.fileno())
    return Entry(digest, size, info.st_mtime_ns, str(source.path), info.st_mode & 0o777)


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


def to_prune(complete: list[str], latest: str, keep: int) -> list[str]:
    """The oldest complete snapshots beyond the ``keep`` newest; never the latest."""
    others = sorted(name for name in complete if name != latest)
    return others[:max(0, len(others) - (keep - 1))]

"""The weights' pages dropped from the page cache before a cold start reads them, and the drop measured (torch-free).

``posix_fadvise(POSIX_FADV_DONTNEED)`` drops a file's clean pages without root (a file just written is flushed
first: dirty pages stay). Where pages are still resident after it and this process is root,
``/proc/sys/vm/drop_caches`` drops the whole cache (a container often mounts it read-only). ``mincore(2)`` on a
mapping of each file counts its resident pages, so the state the result says is measured, not assumed: "cold" when
at most ``COLD_AT`` of the bytes are resident, else "warm" with the reason.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from workloads.cold_start.words import reason_message
from workloads.errors import first_line

COLD_AT = 0.05   # a few pages (the header a listing read, readahead of a neighbour) leave a read cold
COLD, WARM = "cold", "warm"
_DROP_CACHES = Path("/proc/sys/vm/drop_caches")
_IN_MEMORY = ("tmpfs", "ramfs", "hugetlbfs")


@dataclass(frozen=True)
class ReadState:
    """Whether the weights were read from the storage ("cold") or from memory ("warm"), and why it is said so: how
    the state came about (the catalogue's ``workload.cold_start.how.<how>``), the share of the bytes resident before
    the read (mincore; None where it cannot count) and, where something was refused, what (the tool's words)."""

    state: str
    how: str
    resident: float | None = None
    refused: str = ""

    @property
    def reason(self) -> str:
        """Why, in English (the result's; the report's table says it in either language from the parts)."""
        return str(reason_message(self.how, self.resident, self.refused))


def resident_share(paths: Sequence[Path]) -> float | None:
    """The share of the files' bytes in the page cache (mincore), or None where it cannot be counted (not Linux,
    no libc, a file that cannot be mapped)."""
    if not sys.platform.startswith("linux"):
        return None
    total = resident = 0
    for path in paths:
        size = os.path.getsize(path)
        counted = _resident_pages(path, size) if size else 0
        if counted is None:
            return None
        total += size
        resident += min(counted * mmap.PAGESIZE, size)
    return resident / total if total else 0.0


def _resident_pages(path: Path, size: int) -> int | None:
    """mincore's count of ``path``'s pages in memory: a mapping reads no page, so counting changes nothing."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                              ctypes.c_long]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]
    except (OSError, AttributeError):
        return None
    with open(path, "rb") as f:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, f.fileno(), 0)
    if address in (None, ctypes.c_void_p(-1).value):
        return None
    try:
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vector = (ctypes.c_ubyte * pages)()
        if libc.mincore(address, size, vector) != 0:
            return None
        flags = bytes(vector)
        return pages - flags.count(0)   # the low bit says resident; the others are reserved (zero)
    finally:
        libc.munmap(address, size)


def _advise(path: Path) -> None:
    """The file's pages dropped: flushed first (a file just copied in has dirty pages, which DONTNEED keeps)."""
    with open(path, "rb") as f:
        try:
            os.fsync(f.fileno())
        except OSError:   # a filesystem that cannot flush a read-only file: DONTNEED still drops the clean pages
            pass
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def memory_filesystem(path: Path) -> str | None:
    """The filesystem ``path`` is on when its pages are the storage itself (tmpfs, ramfs), else None."""
    try:
        with open("/proc/mounts") as mounts:
            points = [line.split()[1:3] for line in mounts if len(line.split()) > 2]
    except OSError:
        return None
    real = os.path.realpath(path)
    under = [(point, kind) for point, kind in points if real == point or real.startswith(point.rstrip("/") + "/")]
    kind = max(under, key=lambda found: len(found[0]))[1] if under else None
    return kind if kind in _IN_MEMORY else None


def _drop_all() -> str | None:
    """The whole page cache dropped (root only): None when done, else why not."""
    if os.geteuid() != 0:
        return "not root"
    try:
        os.sync()
        _DROP_CACHES.write_text("1\n")
    except OSError as exc:
        return first_line(exc)
    return None


def drop(paths: Sequence[Path], advise: Callable[[Path], None] = _advise,
         drop_all: Callable[[], str | None] = _drop_all,
         measure: Callable[[Sequence[Path]], float | None] = resident_share,
         in_memory: Callable[[Path], str | None] = memory_filesystem) -> ReadState:
    """Each file's pages dropped, the whole cache where they stay and root may, and the state the read will find.
    A file on tmpfs is memory already: nothing is dropped, and the read is warm."""
    for path in paths:
        kind = in_memory(path)
        if kind is not None:
            return ReadState(WARM, "memory", refused=f"{path.name} is on {kind}")
    refused = []
    for path in paths:
        try:
            advise(path)
        except (OSError, AttributeError) as exc:   # AttributeError: no posix_fadvise on this platform
            refused.append(f"posix_fadvise refused on {path.name}: {first_line(exc)}")
    share = measure(paths)
    if share is not None and share <= COLD_AT:
        return ReadState(COLD, "fadvise", share)
    if share is None:
        return ReadState(WARM, "refused", refused="; ".join(refused)) if refused else ReadState(COLD, "unverified")
    return _drop_all_or_warm(paths, refused, share, drop_all, measure)


def _drop_all_or_warm(paths: Sequence[Path], refused: list[str], share: float, drop_all: Callable[[], str | None],
                      measure: Callable[[Sequence[Path]], float | None]) -> ReadState:
    """Pages posix_fadvise left: the whole cache dropped where root may (a trial machine's), else a warm read."""
    why_not = drop_all()
    after = measure(paths)
    if why_not is None and after is not None and after <= COLD_AT:
        return ReadState(COLD, "drop_caches", after)
    refused.append(f"drop_caches: {why_not or 'done, yet pages stay'}")
    share = after if after is not None else share
    return ReadState(WARM, "refused", share, "; ".join(refused))


def warm(paths: Sequence[Path]) -> ReadState:
    """Each file read once, so the timed read finds it in memory (``--cold-start warm``: the read to compare with)."""
    for path in paths:
        with open(path, "rb") as f:
            while f.read(1 << 24):
                pass
    return ReadState(WARM, "asked_warm", resident_share(paths))

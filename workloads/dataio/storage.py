"""How fast the data's storage gives files back: sequential MB/s over the largest files and files/s over the
others, cold (their page cache dropped first) then warm (read again), each part time-capped. Torch-free.

Cold: ``posix_fadvise(POSIX_FADV_DONTNEED)`` on each file asks the kernel to drop its clean cached pages; it
needs no privilege and touches no other file (a benchmark that drops every cache with
/proc/sys/vm/drop_caches needs root and slows the whole machine). Where the data is in memory (tmpfs) there is
no cold read to measure, and where the call is refused only the warm figures are given, and the report says
so. Files are opened read-only: nothing is written in the data directory.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

from workloads.facts.missing import NA
from workloads.safe_text import file_name

CHUNK = 1 << 20
SEQUENTIAL_SHARE = 0.25     # of the sampled files, the largest quarter is read for MB/s, the rest for files/s
SEQUENTIAL_MIN_BYTES = 64 << 20


def split(files: Sequence[tuple[str, int]]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(largest files for the sequential read, the others for the small-file rate), disjoint, so a cold read of
    one is never warmed by the other."""
    by_size = sorted(files, key=lambda f: -f[1])
    taken, total = 0, 0
    for _, size in by_size:
        if taken >= max(1, int(len(by_size) * SEQUENTIAL_SHARE)) and total >= SEQUENTIAL_MIN_BYTES:
            break
        if taken >= len(by_size) // 2 and taken:
            break
        taken += 1
        total += size
    return by_size[:taken], sorted(by_size[taken:]) or by_size[:taken]


def drop_cache(paths: Sequence[str]) -> tuple[int, str | None]:
    """(files whose cache was dropped, why not for the first refused)."""
    if not hasattr(os, "posix_fadvise"):
        return 0, "posix_fadvise is not available on this system"
    dropped, why = 0, None
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            why = why or f"{file_name(os.path.basename(path))}: {exc.strerror or exc}"
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            dropped += 1
        except OSError as exc:
            why = why or f"posix_fadvise refused: {exc.strerror or exc}"
        finally:
            os.close(fd)
    return dropped, why


def read_files(files: Sequence[tuple[str, int]], seconds: float, again_until: float = 0.0,
               clock: Callable[[], float] = time.perf_counter) -> dict[str, float | int]:
    """Read files in chunks until all are read or ``seconds`` pass, inside a file too (a sparse terabyte is read
    at memory speed for minutes): {files (read whole), bytes, seconds, failed}. With ``again_until`` the list
    is read again until that many seconds have passed (a warm pass over a few hundred files takes
    milliseconds: too short to time)."""
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    done = failed = nbytes = 0
    t0 = clock()
    deadline = t0 + seconds
    passes = 0
    while files and (passes == 0 or (clock() - t0 < again_until and done)):
        passes += 1
        for path, _ in files:
            if (done or nbytes or failed) and clock() >= deadline:
                break
            got = _read_one(path, view, deadline, clock)
            if got is None:
                failed += 1
            else:
                done, nbytes = done + got[1], nbytes + got[0]
        if clock() >= deadline:
            break
    return {"files": done, "bytes": nbytes, "seconds": max(clock() - t0, 1e-9), "failed": failed}


def _read_one(path: str, view: memoryview, deadline: float, clock: Callable[[], float]) -> tuple[int, bool] | None:
    """(bytes read, whether to the file's end) of one file, read a chunk at a time until its end or ``deadline``;
    None when it cannot be read."""
    nbytes = 0
    try:
        with open(path, "rb", buffering=0) as handle:
            while n := handle.readinto(view):
                nbytes += n
                if clock() >= deadline:
                    return nbytes, False
    except OSError:
        return None
    return nbytes, True


def measure(files: Sequence[tuple[str, int]], fs_kind: str | None, seconds: float) -> dict[str, object]:
    """Cold (when it can be had) and warm: MB/s over the largest files, files/s over the others."""
    big, small = split(files)
    out: dict[str, object] = {"sequential_files": len(big), "small_files": len(small)}
    if fs_kind == "memory":
        out["cold_note"] = "in memory (tmpfs): no cold read"
        cold = False
    else:
        dropped, why = drop_cache([p for p, _ in big + small])
        cold = dropped > 0
        out["cold_note"] = (f"page cache dropped for {dropped} file(s) (posix_fadvise DONTNEED)" if cold
                            else f"warm cache only: {why or 'no file could be opened'}")
    phases = (("cold", cold), ("warm", True))
    for phase, wanted in phases:
        if not wanted:
            continue
        again = seconds / 4 if phase == "warm" else 0.0
        seq = read_files(big, seconds, again)
        few = read_files(small, seconds, again)
        out[f"{phase}_seq_mb_s"] = round(seq["bytes"] / seq["seconds"] / 1e6, 1) if seq["bytes"] else None
        out[f"{phase}_files_s"] = round(few["files"] / few["seconds"], 1) if few["files"] else None
        out["read_failed"] = int(out.get("read_failed", 0)) + int(seq["failed"]) + int(few["failed"])
    return out


def describe(m: dict[str, object]) -> str:
    def fig(key: str, unit: str) -> str:
        v = m.get(key)
        return f"{v:,.0f} {unit}" if isinstance(v, (int, float)) else NA

    cold = (f"cold {fig('cold_seq_mb_s', 'MB/s')} sequential, {fig('cold_files_s', 'files/s')}; "
            if "cold_seq_mb_s" in m or "cold_files_s" in m else "")
    return (f"storage: {cold}warm {fig('warm_seq_mb_s', 'MB/s')} sequential, {fig('warm_files_s', 'files/s')} "
            f"({m.get('cold_note')})")

"""Reading a bundle or a run directory someone sent without letting it cost memory, disk or time: the inputs compare
accepts, the zip members it inflates and the run files it copies, each bounded before and while it is read.

A zip's header says how large a member inflates, but a crafted one can lie, so the cap is checked twice: on the
declared size and ratio before inflating, and on the bytes counted while streaming. Only a regular file or a
directory is an input, and only a regular file inside a run directory is read, never through a link: /dev/zero
would be read for ever, a FIFO would block the open, and a link may point at a secret outside the run.
"""

from __future__ import annotations

import io
import os
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from workloads.safe_text import file_name

MiB = 1 << 20


@dataclass(frozen=True)
class Cap:
    bytes: int
    what: str          # "a run's events.jsonl": named in the line that refuses it


# summary.json of a bundle of dozens of runs is ~100 kB (each run's summary and result); config.json a few kB
CAP_SUMMARY = Cap(16 * MiB, "a bundle's summary.json")
CAP_CONFIG = Cap(1 * MiB, "a run's config.json")
# a day-long soak at 10 steps/s writes ~200 MB of events.jsonl: room for two and a half. Not more: the run store
# rebuilds a run's events in memory at ~8x their size on disk (~4 GB at this cap, 1.6 GB for that soak)
CAP_EVENTS = Cap(512 * MiB, "a run's events.jsonl")
# all members of one bundle together, on the temporary disk compare uses, and the time spent inflating them
CAP_TOTAL = 1024 * MiB
# JSON lines deflate 10-30x; a bomb of one repeated byte ~1000x. Only checked above RATIO_FROM: a small member
# may compress as well as it likes
CAP_RATIO = 200
RATIO_FROM = 1 * MiB
CHUNK = 1 * MiB
# zipfile holds every member's ZipInfo in memory, ~1 kB each (a 20 MB zip of 200,000 empty members: 218 MB RSS), so
# a zip of millions is a bomb of its own. A real bundle holds a few files per run (events, config, log, telemetry
# segments) for at most shape.MAX_RUNS runs: some thousands. The directory's bytes are capped too, as names may be
# 64 kB each
CAP_MEMBERS = 100_000
CAP_DIRECTORY = 32 * MiB
# what zipfile raises on a damaged archive besides BadZipFile: a torn deflate stream (zlib.error, EOFError), an
# offset before the file's start (ValueError), a version or method it lacks (NotImplementedError), a name that is
# not UTF-8 (UnicodeDecodeError, a ValueError), an encrypted member (RuntimeError), a short header (struct.error)
DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError, RuntimeError, struct.error,
           OverflowError)


class BundleInputError(Exception):
    """What is wrong with an input, in words for one line (the caller names the input)."""


def _kind(mode: int) -> str:
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")


def check_input(path: Path) -> str:
    """"dir" or "file"; an input that is neither (a device, a FIFO, a socket) is refused without being opened."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise BundleInputError("does not exist") from None
    except OSError as exc:
        raise BundleInputError(f"cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    raise BundleInputError(f"is {_kind(mode)}, not a report bundle (.zip) or a run directory")


class Budget:
    """The bytes one input may still inflate or copy to (CAP_TOTAL), spent file by file."""

    def __init__(self, total: int | None = None):
        self.left = CAP_TOTAL if total is None else total


def _directory(path: Path) -> tuple[int, int] | None:
    """The member count and central directory size the archive's end record states, read before zipfile parses
    (and keeps) the whole directory; None where there is no end record (zipfile then says what is wrong).

    zipfile's own reader of that record (private, and unchanged since Python 2.6), so the figures checked are
    the ones ZipFile goes on to use, zip64 included."""
    with open(path, "rb") as fp:
        end = zipfile._EndRecData(fp)  # type: ignore[attr-defined]
    if not end:
        return None
    return end[zipfile._ECD_ENTRIES_TOTAL], end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]


def open_zip(path: Path) -> zipfile.ZipFile:
    """The bundle's archive; its central directory damaged or past its caps is a BundleInputError, not zipfile's
    own exception or its memory."""
    try:
        directory = _directory(path)
        if directory is not None:
            members, size = directory
            if members > CAP_MEMBERS:
                raise BundleInputError(f"holds {members:,} members, over the cap of {CAP_MEMBERS:,} members on a "
                                       "bundle")
            if size > CAP_DIRECTORY:
                raise BundleInputError(f"lists its members in {size:,} bytes, over the cap of {CAP_DIRECTORY:,} "
                                       "bytes on a bundle's central directory")
        return zipfile.ZipFile(path)
    except OSError as exc:
        raise BundleInputError(f"cannot be read: {exc.strerror or exc}") from None
    except DAMAGED as exc:
        raise BundleInputError(f"is a damaged zip: {file_name(str(exc) or type(exc).__name__, 120)}") from None


def pump(source: BinaryIO, out: BinaryIO, limit: int, what: str) -> int:
    """Copy in chunks, stopping past ``limit`` bytes whatever the source said its size was."""
    done = 0
    while chunk := source.read(CHUNK):
        done += len(chunk)
        if done > limit:
            raise BundleInputError(f"{what} grows past {limit:,} bytes, more than its header or size said")
        out.write(chunk)
    return done


def _check_size(what: str, size: int, cap: Cap, budget: Budget, verb: str = "inflates to") -> None:
    if size > cap.bytes:
        raise BundleInputError(f"{what} {verb} {size:,} bytes, over the cap of {cap.bytes:,} bytes on {cap.what}")
    if size > budget.left:
        raise BundleInputError(f"{what} would take the input past {CAP_TOTAL:,} bytes in all")


def copy_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, out: BinaryIO, cap: Cap, budget: Budget) -> int:
    """Inflate ``info`` into ``out`` in chunks, never past ``cap`` or the budget whatever the header said."""
    what = f"member {file_name(info.filename)}"
    _check_size(what, info.file_size, cap, budget)
    if info.file_size > RATIO_FROM and info.file_size > CAP_RATIO * max(1, info.compress_size):
        raise BundleInputError(f"{what} inflates {info.file_size / max(1, info.compress_size):,.0f}x "
                               f"({info.file_size:,} bytes from {info.compress_size:,}), over the cap of {CAP_RATIO}x "
                               "(a zip bomb?)")
    try:
        with zf.open(info) as member:
            done = pump(member, out, min(cap.bytes, budget.left), what)
    except DAMAGED as exc:
        # a CRC mismatch is BadZipFile; a lying header ends in one too, zipfile stopping at the declared size
        raise BundleInputError(f"{what} is damaged: {file_name(str(exc) or type(exc).__name__, 120)}") from None
    budget.left -= done
    return done


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, cap: Cap, budget: Budget) -> bytes:
    buffer = io.BytesIO()
    copy_member(zf, info, buffer, cap, budget)
    return buffer.getvalue()


def extract_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, cap: Cap, budget: Budget) -> None:
    """Into ``target``, a path compare chose (never a path from inside the archive)."""
    with open(target, "xb") as out:
        copy_member(zf, info, out, cap, budget)


def copy_file(source: Path, target: Path, cap: Cap, budget: Budget) -> bool:
    """A run directory's file into ``target`` as :func:`extract_member` does a member; False when there is none.

    Looked at with lstat before it is opened, and opened without following a link or waiting for a writer, so a
    FIFO or a link swapped in between the two is refused too.
    """
    what = source.name
    try:
        mode = os.lstat(source).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise BundleInputError(f"{what} cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISLNK(mode):
        raise BundleInputError(f"{what} is a link; compare follows no link inside a run directory")
    if not stat.S_ISREG(mode):
        raise BundleInputError(f"{what} is {_kind(mode)}, not a regular file")
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise BundleInputError(f"{what} cannot be read: {exc.strerror or exc}") from None
    with open(fd, "rb") as handle, open(target, "xb") as out:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise BundleInputError(f"{what} is {_kind(info.st_mode)}, not a regular file")
        _check_size(what, info.st_size, cap, budget, verb="is")
        try:
            # a live run's events.jsonl grows while it is read: counted, it is refused past the cap all the same
            done = pump(handle, out, min(cap.bytes, budget.left), what)
        except OSError as exc:
            raise BundleInputError(f"{what} cannot be read: {exc.strerror or exc}") from None
    budget.left -= done
    return True

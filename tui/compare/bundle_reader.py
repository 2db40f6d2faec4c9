"""Reading a bundle someone sent without letting it cost memory, disk or time: the inputs compare accepts and
the zip members it inflates, each bounded before and while it is read.

A zip's header says how large a member inflates, but a crafted one can lie, so the cap is checked twice: on the
declared size and ratio before inflating, and on the bytes counted while streaming. Only a regular file or a
directory is an input: /dev/zero would be read forever and a FIFO would block the open.
"""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO

from workloads.safe_text import file_name

MiB = 1 << 20
# summary.json of a bundle of dozens of runs is ~100 kB; config.json a few kB
CAP_SUMMARY = 16 * MiB
CAP_CONFIG = 1 * MiB
# a day-long soak at 10 steps/s writes ~200 MB of events.jsonl: room for twice that and more
CAP_EVENTS = 512 * MiB
# all members of one bundle together, on the temporary disk compare uses
CAP_TOTAL = 1024 * MiB
# JSON lines deflate 10-30x; a bomb of one repeated byte ~1000x. Only checked above RATIO_FROM: a small member
# may compress as well as it likes
CAP_RATIO = 200
RATIO_FROM = 1 * MiB
CHUNK = 1 * MiB


class BundleInputError(Exception):
    """What is wrong with an input, in words for one line (the caller names the input)."""


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
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
    raise BundleInputError(f"is {kind}, not a report bundle (.zip) or a run directory")


class Budget:
    """The bytes one bundle may still inflate to (CAP_TOTAL), spent member by member."""

    def __init__(self, total: int | None = None):
        self.left = CAP_TOTAL if total is None else total


def _check_declared(info: zipfile.ZipInfo, cap: int, budget: Budget) -> None:
    name = file_name(info.filename)
    if info.file_size > cap:
        raise BundleInputError(f"member {name} inflates to {info.file_size:,} bytes, over the cap of {cap:,}")
    if info.file_size > budget.left:
        raise BundleInputError(f"member {name} would take the bundle past {CAP_TOTAL:,} bytes inflated")
    if info.file_size > RATIO_FROM and info.file_size > CAP_RATIO * max(1, info.compress_size):
        raise BundleInputError(f"member {name} inflates {info.file_size / max(1, info.compress_size):,.0f}x, "
                               f"over the cap of {CAP_RATIO}x (a zip bomb?)")


def copy_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, out: BinaryIO, cap: int, budget: Budget) -> int:
    """Inflate ``info`` into ``out`` in chunks, never past ``cap`` or the budget whatever the header said."""
    _check_declared(info, cap, budget)
    limit = min(cap, budget.left)
    done = 0
    try:
        with zf.open(info) as member:
            while chunk := member.read(CHUNK):
                done += len(chunk)
                if done > limit:
                    raise BundleInputError(f"member {file_name(info.filename)} inflates past the {limit:,} bytes "
                                           "its header allowed (a crafted zip?)")
                out.write(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        # a CRC mismatch is BadZipFile; a torn deflate stream zlib.error; an encrypted member RuntimeError
        raise BundleInputError(f"member {file_name(info.filename)} is damaged: {file_name(str(exc), 120)}") from None
    budget.left -= done
    return done


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int, budget: Budget) -> bytes:
    import io

    buffer = io.BytesIO()
    copy_member(zf, info, buffer, cap, budget)
    return buffer.getvalue()


def extract_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, cap: int, budget: Budget) -> None:
    """Into ``target``, a path compare chose (never a path from inside the archive)."""
    with open(target, "xb") as out:
        copy_member(zf, info, out, cap, budget)

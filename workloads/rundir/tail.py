"""A run's JSON-lines file read in bounded memory and time: whole lines of at most :data:`MAX_LINE` bytes, and a
file's last lines read from its end. Torch- and UI-free.

    splitter = LineSplitter()                     # a stream of chunks (a file followed as it grows) into lines
    lines = splitter.feed(chunk)                  # whole lines; a longer one is passed over as it goes, counted
    last = last_lines(handle, keep=100_000, budget=ATTACH_BYTES)  # the newest whole lines, from the end
    part = segment_lines(path, budget)            # a rotated segment's lines, gunzipped within a budget
    tail = FileTail(path); tail.lines()           # new whole lines since the last call, across rotations

The workbench attaches to run directories someone else may have written (issue 37 item 11: ten million short
lines took 95 s and 6.3 GB, one 2 GiB line raised MemoryError and stayed resident): no line longer than a run
writes is ever held, and no more bytes than a budget are read, whatever the files hold.
"""

from __future__ import annotations

import gzip
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from workloads.rundir.segments import segment_number, segment_paths

# the runner reads a workload's event lines with this limit (workloads/runner.py), so no run writes a longer one
MAX_LINE = 1 << 20
CHUNK = 1 << 20
# bytes an attach reads of a run's events at most: the last 100,000 events of a run are ~20 MB, a rotated segment
# 64 MiB; a file larger than a run writes is read no further (a 1 TiB sparse file takes a fraction of a second)
ATTACH_BYTES = 128 << 20
# what one poll reads of a file at most: a run appends a few KB between two polls; the rest waits for the next
POLL_BYTES = 16 << 20


class LineSplitter:
    """Whole lines of a stream of chunks, each at most ``max_line`` bytes. A longer line is dropped as it comes
    (never held past ``max_line``) and counted in :attr:`too_long`; ``dropping``: the stream starts inside one."""

    def __init__(self, max_line: int = MAX_LINE, dropping: bool = False):
        self.max_line = max_line
        self.rest = b""          # the line being written: no newline yet
        self.dropping = dropping  # inside a line already too long: passed over up to its newline
        self.too_long = 0

    def feed(self, data: bytes) -> list[bytes]:
        if self.dropping:
            cut = data.find(b"\n")
            if cut < 0:
                return []
            data, self.dropping = data[cut + 1:], False
            self.too_long += 1
        *lines, rest = (self.rest + data).split(b"\n") if self.rest else data.split(b"\n")
        if len(rest) > self.max_line:
            rest, self.dropping = b"", True
        self.rest = rest
        if any(len(line) > self.max_line for line in lines):
            kept = [line for line in lines if len(line) <= self.max_line]
            self.too_long += len(lines) - len(kept)
            lines = kept
        return lines


@dataclass
class LastLines:
    """The newest whole lines of a file, oldest first, and where the reading stopped."""

    lines: list[bytes] = field(default_factory=list)
    end: int = 0             # the offset after the last newline: a follower reads on from here
    inside_line: bool = False  # ``end`` is inside a line too long to be a run's (no newline within the budget)
    more: bool = False       # lines before these were left out (``keep`` reached, or the budget spent)
    whole: bool = True       # the file was read from its first byte (nothing before ``lines`` but blank lines)
    too_long: int = 0        # lines longer than ``max_line``, passed over
    scanned: int = 0         # bytes read


def last_lines(handle: BinaryIO, keep: int, budget: int = ATTACH_BYTES, max_line: int = MAX_LINE) -> LastLines:
    """The last ``keep`` non-blank whole lines of the open binary file ``handle`` (read up to its size now),
    reading at most ``budget`` bytes backwards from its end; what follows its last newline is a line still being
    written, left for a follower (from :attr:`LastLines.end`). A line longer than ``max_line`` is passed over."""
    size = handle.seek(0, 2)
    out = LastLines(end=size)
    newest: list[bytes] = []   # newest first
    pos, carry, long, found_end = size, b"", False, False
    while pos > 0 and out.scanned < budget and len(newest) < keep:
        n = min(CHUNK, pos, budget - out.scanned)
        pos -= n
        handle.seek(pos)
        data = handle.read(n)
        out.scanned += n
        if not found_end:
            cut = data.rfind(b"\n")
            if cut < 0:
                continue
            found_end, out.end, data = True, pos + cut + 1, data[:cut]
        pieces = data.split(b"\n")
        # the last piece ends the line ``carry`` holds the end of (``long``: too long already); the first piece
        # begins before this chunk
        for piece in reversed(pieces[1:]):
            if long or len(piece) + len(carry) > max_line:
                out.too_long += 1
            elif (piece + carry).strip():
                if len(newest) < keep:
                    newest.append(piece + carry)
                else:
                    out.more = True
            carry, long = b"", False
        if long or len(pieces[0]) + len(carry) > max_line:
            carry, long = b"", True
        else:
            carry = pieces[0] + carry
    if not found_end:
        # no newline within the budget: one line longer than any run writes (or nothing); followed from its end
        out.end, out.inside_line = (0, False) if pos == 0 else (size, True)
        out.more, out.whole = pos > 0, pos == 0
        return out
    if pos > 0:
        out.more = True   # the budget spent, or ``keep`` lines found, before the file's start
    elif long or len(carry) > max_line:
        out.too_long += 1
    elif carry.strip():   # the file's first line
        if len(newest) < keep:
            newest.append(carry)
        else:
            out.more = True
    out.whole = not out.more
    out.lines = newest[::-1]
    return out


def _open_part(path: Path) -> BinaryIO:
    """A run file or segment opened to read its bytes (gunzipped for a .gz). A plain segment listed while it was
    being gzipped may be gone since: its .gz, whole by then, is read instead (as `segments.read_bytes` does)."""
    if path.suffix == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    try:
        return open(path, "rb")
    except FileNotFoundError:
        packed = path.with_name(path.name + ".gz")
        if not packed.exists():
            raise
        return gzip.open(packed, "rb")  # type: ignore[return-value]


def segment_lines(path: Path, budget: int, max_line: int = MAX_LINE) -> LastLines:
    """A rotated segment's whole lines, oldest first (gunzipped when it is a .gz), reading at most ``budget``
    bytes of it (gunzipped: a segment is 64 MiB of JSON, a .gz that inflates further is not one), or none of them
    (``whole`` false) when that is not enough. Raises OSError when it cannot be read."""
    splitter = LineSplitter(max_line)
    out = LastLines(whole=False)
    lines: list[bytes] = []
    try:
        with _open_part(path) as handle:
            while out.scanned <= budget:
                data = handle.read(CHUNK)
                if not data:
                    if splitter.rest.strip():
                        lines.append(splitter.rest)   # a segment's last line, whole even without its newline
                    out.lines, out.whole, out.too_long = lines, True, splitter.too_long
                    return out
                out.scanned += len(data)
                lines += splitter.feed(data)
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise OSError(f"{path.name}: {exc}") from None
    out.more = True
    return out


def first_line(path: Path, max_line: int = MAX_LINE) -> bytes | None:
    """The first line of a run's file or segment (the run's start event), reading at most ``max_line`` bytes of
    it; None when it cannot be read or its first line is longer."""
    try:
        with _open_part(path) as handle:
            data = handle.read(max_line + 1)
    except (OSError, EOFError, zlib.error):
        return None
    cut = data.find(b"\n")
    return data[:cut] if cut >= 0 else (data if len(data) <= max_line else None)


class FileTail:
    """New whole lines of one file, following it across rotations (a new file at the same path, the old one a
    segment: workloads.rundir.segments), each line once: the one rotation-safe tailer (the workbench's attach,
    the soak's and serve's telemetry). The open file is drained to its end when it is
    replaced; of the segments made since it was opened, the one that is that file (known by its inode, or by
    its gzip size and first bytes once gzipped) is passed over, and any other (a rotation between two reads)
    is read whole."""

    HEAD = 256   # the first bytes of the open file, to know its segment once gzipped

    def __init__(self, path: Path):
        self.path = path
        self.handle: Any = None
        self.splitter = LineSplitter()   # whole lines, none longer than a run writes
        self.last_segment = 0
        self.size = 0      # bytes read from the open file
        self.head = b""
        self.too_long = 0  # lines passed over as longer than a run writes, not yet counted by the follower

    def _open(self) -> bool:
        try:
            self.handle = open(self.path, "rb")
        except OSError:
            return False
        self._count_too_long()
        self.splitter, self.size, self.head = LineSplitter(), 0, b""
        # listed after the open: the file opened is this segment or a later one, never an earlier one
        self.last_segment = max(map(segment_number, segment_paths(self.path)), default=0)
        return True

    def resume(self, offset: int, inside_line: bool) -> None:
        """Read the open file on from ``offset`` (what is before it was read from the end: `last_lines`);
        ``inside_line``: it falls inside a line too long to be a run's, passed over up to its newline."""
        self.head = os.pread(self.handle.fileno(), self.HEAD, 0)
        self.handle.seek(offset)
        self.size = offset
        self.splitter.dropping = inside_line

    def _drain(self, budget: int) -> list[bytes]:
        out: list[bytes] = []
        while budget > 0:
            data = self.handle.read(min(CHUNK, budget))
            if not data:
                break
            budget -= len(data)
            if len(self.head) < self.HEAD:
                self.head += data[:self.HEAD - len(self.head)]
            self.size += len(data)
            out += self.splitter.feed(data)
        return out

    def _count_too_long(self) -> None:
        self.too_long += self.splitter.too_long
        self.splitter.too_long = 0

    def pop_too_long(self) -> int:
        """Lines passed over as too long since the last call."""
        self._count_too_long()
        count, self.too_long = self.too_long, 0
        return count

    def lines(self, budget: int = POLL_BYTES) -> list[bytes]:
        """New whole lines, reading at most ``budget`` bytes of the open file (the rest at the next call), and
        when it was replaced, what its rotation left (each bounded too: `workloads.rundir.tail`)."""
        if self.handle is None and not self._open():
            return []
        out = self._drain(budget)
        try:
            replaced = os.stat(self.path).st_ino != os.fstat(self.handle.fileno()).st_ino
        except OSError:
            replaced = False  # rotated and not yet made again: the next read looks again
        if replaced:
            out += self._drain(ATTACH_BYTES)  # what reached the old file after the last read: now all of it
            for segment in segment_paths(self.path):
                if segment_number(segment) > self.last_segment and not self._is_open_file(segment):
                    try:
                        part = segment_lines(segment, ATTACH_BYTES)
                    except OSError:
                        continue
                    out += part.lines
                    self.too_long += part.too_long
            self.handle.close()
            self.handle = None
            if self._open():
                out += self._drain(budget)
        return out

    def _is_open_file(self, segment: Path) -> bool:
        """Whether ``segment`` is the file this tail has open (and so has read): the same inode while it is
        plain; gzipped, the same length (gzip's trailer holds it, modulo 2**32) and the same first bytes."""
        try:
            if segment.suffix != ".gz":
                return os.stat(segment).st_ino == os.fstat(self.handle.fileno()).st_ino
            with open(segment, "rb") as handle:
                handle.seek(-4, os.SEEK_END)
                length = int.from_bytes(handle.read(4), "little")
            if length != self.size % 2**32:
                return False
            with gzip.open(segment, "rb") as handle:
                return handle.read(len(self.head)) == self.head
        except (OSError, EOFError, gzip.BadGzipFile):
            return False

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None

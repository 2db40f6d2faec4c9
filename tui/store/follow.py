"""Follow a run directory as another process writes it: whole new lines of events and telemetry. UI-free.

    follower = RunFollower(run_dir)
    record = follower.record()            # the run so far, as `tui.store.load_run` builds it (a long run's
                                          # telemetry 1 sample in ``follower.stride``: see ATTACH_SAMPLES)
    events, samples = follower.read()     # what was appended since, in order; ([], []) when nothing was

Each file is read from where the last read stopped; a line still being written
(no newline yet) waits for the next read. When the file at the path is a new one
(telemetry.jsonl rotated by `tui.store.Run`; events.jsonl too once it is capped), the rest of the old one is read
first, then the new one from its start, so nothing is read twice or lost. A line
that is not a well-formed event or sample is skipped and counted, as load_run does.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import time
from pathlib import Path
from typing import Any, Iterable

from tui.store.live import LiveRun, is_alive
from tui.store.telemetry import Telemetry
from tui.store import RunRecord, check_run, telemetry_sample_ok
from workloads import protocol
from workloads.rundir import EVENTS, TELEMETRY
from workloads.rundir import segments as run_segments
from workloads.rundir.read import read_config, read_rotated
from workloads.rundir.segments import read_bytes, segment_number, segment_paths, thin_path

_CHUNK = 1 << 20
# the workbench reads a rotated segment's thinned copy (1 sample in THIN_EVERY, workloads.rundir.segments), and past
# this many samples even those 1 in k (a day of 1 Hz, thinned, is 3,000-odd: not thinned further); the
# report (tui.store.load_run) reads every one
ATTACH_SAMPLES = 20_000
LIVE_WHOLE = 600   # the last samples of a thinned run's live file read whole: its last 10 minutes at 1 Hz


class _Tail:
    """New whole lines of one file, following it across rotations (a new file at the same path, the old one a
    segment: workloads.rundir.segments), each line once. The open file is drained to its end when it is
    replaced; of the segments made since it was opened, the one that is that file (known by its inode, or by
    its gzip size and first bytes once gzipped) is passed over, and any other (a rotation between two reads)
    is read whole."""

    HEAD = 256   # the first bytes of the open file, to know its segment once gzipped

    def __init__(self, path: Path):
        self.path = path
        self.handle: Any = None
        self.rest = b""
        self.last_segment = 0
        self.size = 0      # bytes read from the open file
        self.head = b""

    def _open(self) -> bool:
        try:
            self.handle = open(self.path, "rb")
        except OSError:
            return False
        self.rest, self.size, self.head = b"", 0, b""
        # listed after the open: the file opened is this segment or a later one, never an earlier one
        self.last_segment = max(map(segment_number, segment_paths(self.path)), default=0)
        return True

    def _drain(self) -> list[bytes]:
        data = b"".join(iter(lambda: self.handle.read(_CHUNK), b""))
        if len(self.head) < self.HEAD:
            self.head += data[:self.HEAD - len(self.head)]
        self.size += len(data)
        *lines, self.rest = (self.rest + data).split(b"\n")
        return lines

    def lines(self) -> list[bytes]:
        if self.handle is None and not self._open():
            return []
        out = self._drain()
        try:
            replaced = os.stat(self.path).st_ino != os.fstat(self.handle.fileno()).st_ino
        except OSError:
            replaced = False  # rotated and not yet made again: the next read looks again
        if replaced:
            out += self._drain()  # what reached the old file after the last read: now all of it
            for segment in segment_paths(self.path):
                if segment_number(segment) > self.last_segment and not self._is_open_file(segment):
                    try:
                        out += read_bytes(segment).split(b"\n")
                    except OSError:
                        continue
            self.handle.close()
            self.handle = None
            if self._open():
                out += self._drain()
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


def _decode(raw: bytes) -> Any:
    if not raw.strip():
        return None
    try:
        return json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return False  # not JSON: counted as skipped


class RunFollower:
    """The events and telemetry appended to a run directory since the last read."""

    def __init__(self, path: str | os.PathLike[str], max_samples: int = ATTACH_SAMPLES):
        self.path = Path(path)
        self.max_samples = max_samples
        self.stride = 1   # record() read 1 sample in this many
        self.thinned = 0  # rotated segments record() read from their thinned copy (1 sample in THIN_EVERY)
        self._events = _Tail(self.path / EVENTS)
        self._telemetry = _Tail(self.path / TELEMETRY)
        self.skipped_events = 0
        self.skipped_samples = 0
        self._last_t: float | None = None   # the newest sample read: a rotated segment read twice is not doubled

    def record(self) -> RunRecord:
        """The run so far, as `tui.store.load_run` builds it (raises its RunStoreError), read through this
        follower: what is appended after it comes from :meth:`read`, once. Call it first, once."""
        check_run(self.path)
        problems: list[str] = []
        config = read_config(self.path, problems)
        # each live file opened before its rotated segments are listed: a rotation meanwhile is in one or the other
        self._telemetry._open()
        self._events._open()
        earlier = self._segment_events(problems)   # a rotated run's first events, read whole once
        lines: list[bytes] = []
        for segment in segment_paths(self.path / TELEMETRY):
            thin = thin_path(segment)
            try:
                try:
                    data = read_bytes(thin)  # enough to plot a long run, and read many times faster
                    self.thinned += 1
                except OSError:
                    data = read_bytes(segment)
                lines += [line for line in data.split(b"\n") if line.strip()]
            except OSError as exc:
                problems.append(f"{segment.name} cannot be read ({exc}); the run's {TELEMETRY} has a gap there")
        live = [line for line in self._telemetry.lines() if line.strip()]
        if self.thinned:  # a long run: its live file thinned as its segments are, but for its last minutes
            live = live[:-LIVE_WHOLE][::run_segments.THIN_EVERY] + live[-LIVE_WHOLE:]
        lines += live
        # every k-th line of a very long run (and its last): decoding is most of an attach's time, and the plots
        # hold 25,000 points a series anyway
        self.stride = stride = max(1, -(-len(lines) // self.max_samples))
        if stride > 1:
            lines = lines[::stride] + ([lines[-1]] if (len(lines) - 1) % stride else [])
        telemetry = Telemetry()   # decoded in C, as load_run does: most of an attach's time was decoding
        self.skipped_samples += telemetry.add_lines(lines, after=-math.inf)
        if len(telemetry):
            self._last_t = telemetry.t[-1]
        events, samples = self.read()
        for sample in samples:
            telemetry.add(sample, checked=True)
        return RunRecord(path=self.path, config=config, events=earlier + events, skipped_lines=self.skipped_events,
                         telemetry=telemetry, skipped_telemetry_lines=self.skipped_samples,
                         problems=problems)

    def _segment_events(self, problems: list[str]) -> list[protocol.Event]:
        # the run directory's one reader; its None (a line that does not decode) is this tail's False
        return self._events_from(False if data is None else data
                                 for data in read_rotated(self._events.path, problems))

    def read(self) -> tuple[list[protocol.Event], list[dict[str, Any]]]:
        """New events and telemetry samples, in order."""
        return self._events_of(self._events.lines()), self._samples(self._telemetry.lines())

    def _events_of(self, lines: list[bytes]) -> list[protocol.Event]:
        return self._events_from(_decode(raw) for raw in lines)

    def _events_from(self, decoded: Iterable[Any]) -> list[protocol.Event]:
        """Events of decoded lines: None (a blank line) passed over, False (not JSON) or a malformed event counted."""
        events: list[protocol.Event] = []
        for data in decoded:
            if data is None:
                continue
            try:
                if data is False:
                    raise protocol.MalformedLine("not JSON")
                events.append(protocol.from_dict(data))
            except protocol.MalformedLine:
                self.skipped_events += 1
        return events

    def _samples(self, lines: list[bytes]) -> list[dict[str, Any]]:
        """The well-formed samples of these lines that are newer than any read before: the tail gives each line
        once; this keeps the plots' time axis in order when a sample is older than the last (the clock stepped back)."""
        samples: list[dict[str, Any]] = []
        for raw in lines:
            data = _decode(raw)
            if data is None:
                continue
            if not telemetry_sample_ok(data):
                self.skipped_samples += 1
            elif self._last_t is None or data["t"] > self._last_t:
                samples.append(data)
                self._last_t = data["t"]
        return samples

    def close(self) -> None:
        self._events.close()
        self._telemetry.close()


class AttachedRun:
    """A run in progress that the workbench follows: what it appended since the last poll, and whether it goes on.

    ``ended`` is its end event once read; ``gone`` is true when its recording process died without one
    (a SIGKILL, a crash): its record ends where the files end.
    """

    CHECK_EVERY_S = 2.0   # how often the recording process is looked for, between its events

    def __init__(self, live: LiveRun, follower: RunFollower):
        self.live = live
        self.follower = follower
        self.ended: protocol.End | None = None
        self.gone = False
        self._checked = time.monotonic()

    @property
    def following(self) -> bool:
        return self.ended is None and not self.gone

    def poll(self) -> tuple[list[protocol.Event], list[dict[str, Any]]]:
        if not self.following:
            return [], []
        events, samples = self.follower.read()
        if self.following and time.monotonic() - self._checked >= self.CHECK_EVERY_S:
            self._checked = time.monotonic()
            if not is_alive(self.live):
                last_events, last_samples = self.follower.read()  # what it wrote as it went
                events += last_events
                samples += last_samples
                self.gone = not any(isinstance(e, protocol.End) for e in events)
        self.ended = next((e for e in reversed(events) if isinstance(e, protocol.End)), self.ended)
        if not self.following:
            self.follower.close()
        return events, samples

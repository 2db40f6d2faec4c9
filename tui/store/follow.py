"""Follow a run directory as another process writes it: whole new lines of events and telemetry. UI-free.

    follower = RunFollower(run_dir)
    record = follower.record()            # the run so far, as `tui.store.load_run` builds it (a long run's
                                          # telemetry 1 sample in ``follower.stride``: see ATTACH_SAMPLES)
    events, samples = follower.read()     # what was appended since, in order; ([], []) when nothing was

Each file is read from where the last read stopped; a line still being written
(no newline yet) waits for the next read. Reading is bounded whatever the files hold (issue 37 item 11): the
attach shows a run's last :data:`ATTACH_EVENTS` events (and its start), read from the end of its events,
``older_events`` saying when it has more; a line longer than a run writes
(`workloads.rundir.tail.MAX_LINE`) is passed over as it is read, never held, and counted as skipped; a poll reads
at most `workloads.rundir.tail.POLL_BYTES` of a file, the rest at the next. When the file at the path is a new
one (telemetry.jsonl rotated by `tui.store.Run`; events.jsonl too once it is capped), the rest of the old one is
read first, then the new one from its start, so nothing is read twice or lost (`workloads.rundir.tail.FileTail`,
the one rotation-safe tailer, which the soak's and serve's telemetry reading share). A line
that is not a well-formed event or sample is skipped and counted, as load_run does.
"""

from __future__ import annotations

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
from workloads.rundir.read import read_config
from workloads.rundir.sample_fields import T
from workloads.rundir.segments import read_bytes, segment_paths, thin_path
from workloads.rundir.tail import ATTACH_BYTES, FileTail, first_line, last_lines, segment_lines

# the workbench reads a rotated segment's thinned copy (1 sample in THIN_EVERY, workloads.rundir.segments), and past
# this many samples even those 1 in k (a day of 1 Hz, thinned, is 3,000-odd: not thinned further); the
# report (tui.store.load_run) reads every one
ATTACH_SAMPLES = 20_000
LIVE_WHOLE = 600   # the last samples of a thinned run's live file read whole: its last 10 minutes at 1 Hz
# the newest events an attach shows (and the run's start): 3 hours of 10 steps a second; the plots draw 25,000
# points a series and the log pane keeps 5,000 lines. The report (tui.store.load_run) reads every one.
ATTACH_EVENTS = 100_000


def _decode(raw: bytes) -> Any:
    if not raw.strip():
        return None
    try:
        return json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return False  # not JSON: counted as skipped


def _start_of(raw: bytes | None) -> protocol.Start | None:
    """The start event a run's first line is, else None (it was left out with the older events, not skipped)."""
    data = _decode(raw) if raw else None
    if not isinstance(data, dict) or data.get("event") != protocol.Start.kind:
        return None
    try:
        event = protocol.from_dict(data)
    except protocol.MalformedLine:
        return None
    return event if isinstance(event, protocol.Start) else None


class RunFollower:
    """The events and telemetry appended to a run directory since the last read."""

    def __init__(self, path: str | os.PathLike[str], max_samples: int = ATTACH_SAMPLES,
                 max_events: int | None = None):
        self.path = Path(path)
        self.max_samples = max_samples
        self.stride = 1   # record() read 1 sample in this many
        self.thinned = 0  # rotated segments record() read from their thinned copy (1 sample in THIN_EVERY)
        self._events = FileTail(self.path / EVENTS)
        self._telemetry = FileTail(self.path / TELEMETRY)
        self.max_events = ATTACH_EVENTS if max_events is None else max_events
        self.older_events = False   # record() left the run's older events out: it has more than it reads
        self.last_events = 0        # the newest events record() read (its start, kept, not counted)
        self.long_lines = 0         # event lines passed over as longer than a run writes (counted as skipped too)
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
        earlier = self._last_events(problems)   # the newest events, read from the end, bounded
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
        live = [line for line in self._telemetry.lines(ATTACH_BYTES) if line.strip()]
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

    def _last_events(self, problems: list[str]) -> list[protocol.Event]:
        """The run's last ``max_events`` events, read backwards from the end of events.jsonl and then its rotated
        segments, newest first, ATTACH_BYTES in all at most; the events tail reads on from there. When older ones
        are left out (:attr:`older_events`), the run's first line is kept too: its start names the run."""
        tail = self._events
        if tail.handle is None:
            return []   # no events.jsonl yet
        last = last_lines(tail.handle, self.max_events)
        tail.resume(last.end, last.inside_line)
        lines, more, budget = last.lines, last.more, ATTACH_BYTES - last.scanned
        self.long_lines += last.too_long
        segments = segment_paths(tail.path)
        for segment in reversed(segments if not more else []):
            try:
                part = segment_lines(segment, budget)
            except OSError as exc:
                problems.append(f"{segment.name} cannot be read ({exc}); the run's {EVENTS} has a gap there")
                continue
            self.long_lines += part.too_long
            budget -= part.scanned
            more = not part.whole or len(part.lines) + len(lines) > self.max_events
            lines = (part.lines + lines)[-self.max_events:] if part.whole else lines
            if more:
                break
        self.older_events = more
        self.skipped_events += self.long_lines
        events = self._events_of(lines)
        self.last_events = len(events)
        if more:
            start = _start_of(first_line(segments[0] if segments else tail.path))
            events[:0] = [start] if start is not None else []
        return events

    def read(self) -> tuple[list[protocol.Event], list[dict[str, Any]]]:
        """New events and telemetry samples, in order."""
        events, samples = self._events_of(self._events.lines()), self._samples(self._telemetry.lines())
        long = self._events.pop_too_long()
        self.long_lines += long
        self.skipped_events += long
        self.skipped_samples += self._telemetry.pop_too_long()
        return events, samples

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
            elif self._last_t is None or data[T] > self._last_t:
                samples.append(data)
                self._last_t = data[T]
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

"""The run's telemetry.jsonl, read as it grows: the soak's view of the device without importing tui/.

The runner's sampler appends one JSON object per tick (``{"t": ..., "devices": [...], "host": {...}}``).
A workload may not import ``tui``, so the few fields the soak needs are read from the decoded dicts here.
Only whole lines are taken (a line being written is read on the next call), and a line that is not a
sample (torn, not JSON, not an object with a finite ``t``) is skipped and counted, never fatal.

The run store rotates a long telemetry.jsonl (renamed to a numbered segment, a new file started at the
same path): the file is held open, so the renamed segment is read to its end before the new file is
opened, and no sample is lost or read twice across the rotation.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, BinaryIO, Iterator

from workloads import rundir
from workloads.facts.missing import finite_or_none

TELEMETRY = rundir.TELEMETRY
_CHUNK = 1 << 20   # read in pieces: a backlog is never in memory at once


class TelemetryTail:
    """New samples of one telemetry.jsonl since the last call, across the store's rotations."""

    def __init__(self, path: Path | None):
        self.path = path
        self.skipped = 0
        self._file: BinaryIO | None = None
        self._rest = b""      # a line not yet whole

    def samples(self) -> Iterator[dict[str, Any]]:
        """The samples appended since the last call, oldest first; nothing when there is no file yet."""
        if self.path is None:
            return
        while True:
            if self._file is None:
                try:
                    self._file = open(self.path, "rb")
                except OSError:
                    return
                self._rest = b""
            yield from self._whole_lines(self._file)
            if not self._rotated(self._file):
                return
            self._file.close()   # the renamed segment is read to its end: on with the new file
            self._file = None

    def new_samples(self) -> list[dict[str, Any]]:
        return list(self.samples())

    def _whole_lines(self, f: BinaryIO) -> Iterator[dict[str, Any]]:
        while chunk := f.read(_CHUNK):
            lines = (self._rest + chunk).split(b"\n")
            self._rest = lines.pop()
            for raw in lines:
                sample = _sample(raw)
                if sample is None:
                    self.skipped += raw.strip() != b""
                else:
                    yield sample

    def _rotated(self, f: BinaryIO) -> bool:
        try:
            return os.stat(self.path).st_ino != os.fstat(f.fileno()).st_ino
        except OSError:
            return False     # not there at this moment (being replaced): look again next time

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _sample(raw: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    t = data.get("t")
    if finite_or_none(t) is None:
        return None
    devices = data.get("devices")
    data["devices"] = [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []
    return data



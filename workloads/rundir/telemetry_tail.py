"""A run's telemetry.jsonl, read as it grows, as decoded samples: the view of the device that the workloads
reading their own run (the soak, serve) have without importing tui/.

The runner's sampler appends one JSON object per tick (``{T: ..., DEVICES: [...], HOST: {...}}``, the names in
workloads.rundir.sample_fields). Lines come from the one rotation-safe tailer (workloads.rundir.tail.FileTail):
only whole ones, each once across the store's rotations, at most POLL_BYTES a call (the rest at the next), a
line longer than a run writes passed over. A line that is not a sample (torn, not JSON, not an object with a
finite ``t``) is skipped and counted, never fatal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from workloads.facts.missing import finite_or_none
from workloads.rundir import TELEMETRY
from workloads.rundir.sample_fields import DEVICES, T
from workloads.rundir.tail import FileTail


class TelemetryTail:
    """New samples of one telemetry.jsonl since the last call, across the store's rotations."""

    def __init__(self, path: Path | None):
        self.skipped = 0
        self._tail = FileTail(path) if path is not None else None

    @classmethod
    def of_run(cls, run_dir: str | os.PathLike[str] | None) -> TelemetryTail:
        """The tail of ``run_dir``'s telemetry.jsonl; one that reads nothing when the run has no directory."""
        return cls(Path(run_dir) / TELEMETRY if run_dir else None)

    def samples(self) -> list[dict[str, Any]]:
        """The samples appended since the last call, oldest first; none when there is no file yet."""
        if self._tail is None:
            return []
        found = []
        for raw in self._tail.lines():
            sample = _sample(raw)
            if sample is None:
                self.skipped += raw.strip() != b""
            else:
                found.append(sample)
        self.skipped += self._tail.pop_too_long()
        return found

    def close(self) -> None:
        if self._tail is not None:
            self._tail.close()


def _sample(raw: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or finite_or_none(data.get(T)) is None:
        return None
    devices = data.get(DEVICES)
    data[DEVICES] = [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []
    return data

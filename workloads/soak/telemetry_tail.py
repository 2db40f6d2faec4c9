"""The run's telemetry.jsonl, read as it grows: the soak's view of the device without importing tui/.

The runner's sampler appends one JSON object per tick (``{"t": ..., "devices": [...], "host": {...}}``).
A workload may not import ``tui``, so the few fields the soak needs are read from the decoded dicts here.
Only whole lines are taken (a line being written is read on the next call), and a line that is not a
sample (torn, not JSON, not an object with a finite ``t``) is skipped and counted, never fatal.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

TELEMETRY = "telemetry.jsonl"
_CHUNK = 1 << 20   # at most this much per call, so a day of backlog is read in pieces, never all at once


class TelemetryTail:
    """New samples of one telemetry.jsonl since the last call."""

    def __init__(self, path: Path | None):
        self.path = path
        self.offset = 0
        self.skipped = 0
        self.read_lines = 0

    def new_samples(self) -> list[dict[str, Any]]:
        """The samples appended since the last call (whole lines only); [] when there is no file yet."""
        if self.path is None:
            return []
        out: list[dict[str, Any]] = []
        try:
            with open(self.path, "rb") as f:
                while True:
                    f.seek(self.offset)
                    chunk = f.read(_CHUNK)
                    end = chunk.rfind(b"\n")
                    if end < 0:
                        break
                    self.offset += end + 1
                    for raw in chunk[:end].split(b"\n"):
                        sample = _sample(raw)
                        if sample is None:
                            self.skipped += raw.strip() != b""
                        else:
                            out.append(sample)
                    if len(chunk) < _CHUNK:
                        break
        except OSError:
            return out
        self.read_lines += len(out)
        return out


def _sample(raw: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    t = data.get("t")
    if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
        return None
    devices = data.get("devices")
    data["devices"] = [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []
    return data


def number(value: Any) -> float | None:
    """A reading as a float, or None when it is missing or not a finite number (a bool is not a reading)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None

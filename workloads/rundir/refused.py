"""A run its workload refused before it measured anything: told apart from one that holds data, and removed.

A workload child that finds bad input only once it runs (a device this machine does not have, a batch above the
free memory: it takes torch or the model's shape to know) ends with exit 2 after the run directory exists. For
`cardbench run` that is bad input like any other, and bad input leaves no run behind; but bad input never loses
data already gathered, so a directory goes only when nothing in it was measured:

- its files are the ones every run has (config.json, events.jsonl, run.log, telemetry.jsonl): no rotated segment,
  no file of the workload's own (the scan's ops.csv, the serve run's requests.csv), no live marker;
- every event is a start, a warning, an error or the end (a step, a result, a fallback, or a line that does not
  decode is data, or may be), and the end is exit 2.

The telemetry is the sampler's reading of the device while the child refused: not the run's measurement.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from workloads import exit_codes, protocol
from workloads.rundir import CONFIG, EVENTS, LOG, TELEMETRY
from workloads.rundir.read import Unreadable, read_jsonl

_PLAIN = frozenset({CONFIG, EVENTS, LOG, TELEMETRY})
# events that carry no figure: what a run refused before its first step may hold
_UNMEASURED = frozenset({protocol.Start.kind, protocol.WorkloadWarning.kind, protocol.Error.kind, protocol.End.kind})


def measured_nothing(path: Path) -> bool:
    """Whether the run directory ``path`` is a refusal and nothing more: only the files every run has, only events
    that carry no figure, ending with exit 2. False whenever it cannot tell (a file unreadable, a line torn)."""
    try:
        names = set(os.listdir(path))
        events = read_jsonl(path / EVENTS)
    except (OSError, Unreadable):
        return False
    if not names <= _PLAIN or not events:
        return False
    if not all(isinstance(e, dict) and e.get("event") in _UNMEASURED for e in events):
        return False
    last = events[-1]
    return last.get("event") == protocol.End.kind and last.get("exit_code") == exit_codes.BAD_INPUT


def remove_refused(path: Path) -> bool:
    """Remove the run directory ``path`` when it holds a refusal and nothing measured (:func:`measured_nothing`);
    whether it is gone. A directory that holds anything more is left as it is."""
    if not measured_nothing(path):
        return False
    shutil.rmtree(path, ignore_errors=True)
    return not path.exists()

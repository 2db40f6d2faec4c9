"""A cold start's child started and read (torch-free): a fresh ``python -m`` of the workload's child module with this
process's interpreter and environment; the wall clock just before the start, and each line the child writes
(`workloads.cold_start.child.Stamper`: a phase's end, a note, an error).

The child's stderr is this process's (its log lines land in run.log as they come). A child that dies without its
error line (killed, out of memory) is said by its exit status and the last phase it ended; what it stamped is kept.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from workloads.child.harness import log


@dataclass
class Stamps:
    """What one child said: the parent's wall clock at the start, each phase's end, its notes and its error."""

    spawned: float
    at: dict[str, float] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def take(self, line: str) -> None:
        """One line of the child's stdout; a line that is not the child's JSON is passed on to the log."""
        try:
            said = json.loads(line)
        except ValueError:
            said = None
        if not isinstance(said, dict):
            if line.strip():
                log(line.rstrip("\n"))
            return
        if isinstance(said.get("phase"), str) and isinstance(said.get("at"), (int, float)):
            self.at[said["phase"]] = float(said["at"])
        elif isinstance(said.get("note"), dict):
            self.notes.update(said["note"])
        elif said.get("error") is not None:
            self.error = str(said["error"])


def run_child(module: str, request: dict[str, Any]) -> Stamps:
    """``python -m module REQUEST`` run to its end; its stamps. Stopping this process stops the child too."""
    command = [sys.executable, "-m", module, json.dumps({**request, "parent": os.getpid()})]
    stamps = Stamps(spawned=time.time())
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert child.stdout is not None
        for line in child.stdout:
            stamps.take(line)
        code = child.wait()
    finally:
        if child.poll() is None:   # this process was stopped (SIGTERM) while the child ran
            child.kill()
            child.wait()
    if code != 0 and stamps.error is None:
        stamps.error = died(code, stamps)
    return stamps


def died(code: int, stamps: Stamps) -> str:
    """A child that ended without saying why: its status and the last phase it ended."""
    how = f"killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.Signals._value2member_map_ \
        else f"exit status {code}"
    last = max(stamps.at, key=stamps.at.__getitem__) if stamps.at else None
    return f"the child process ended ({how})" + (f" after its {last} phase" if last else " before its first phase")

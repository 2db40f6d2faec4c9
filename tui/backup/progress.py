"""A backup's progress as text: bytes done out of bytes to do, for `cardbench backup` on stderr and for the
workbench's `b` in its log (one stream interface for both)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from workloads.facts.formatting import format_bytes

# a copy shorter than this shows no progress; past it, a line at most this often when stderr is not a terminal
QUIET_S = 1.0
LINE_EVERY_S = 5.0


class ProgressLine:
    """Bytes done out of the bytes to do, after the first second: redrawn in place on a terminal, else a line
    every few seconds (a log over SSH stays readable)."""

    def __init__(self, stream: TextIO | None = None, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr   # the stderr of now, not of the first import
        self.clock = clock
        self.start = clock()
        self.last = float("-inf")   # the first line comes as soon as the quiet second is over
        self.tty = self.stream.isatty()
        self.drawn = False
        self.first: tuple[float, int, str] | None = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = self.clock()
        if now - self.start < QUIET_S or (not self.tty and now - self.last < LINE_EVERY_S):
            return
        self.last = now
        if self.first is None or self.first[2] != phase:   # a rate per phase, from its first bytes
            self.first = (now, done, phase)
        rate = (done - self.first[1]) / max(now - self.first[0], 1e-9)
        line = f"backup: {phase} {100 * done / total if total else 100:.0f} % ({format_bytes(done)} of {format_bytes(total)}"
        line += f", {format_bytes(rate)}/s)" if rate > 0 else ")"
        if self.tty:
            self.stream.write(f"\r{line}\x1b[K")
            self.drawn = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()

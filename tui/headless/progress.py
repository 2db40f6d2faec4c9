"""The headless commands' progress on stderr: a bar on a terminal, plain lines otherwise (ssh without a TTY, nohup, CI)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """A bar on a terminal, else a line per phase and one every few seconds; never fails the export."""

    LINE_EVERY_S = 10.0

    def __init__(self, phases: int, stream: TextIO | None = None, tty: bool | None = None):
        self.stream = stream or sys.stderr
        try:
            self.tty = self.stream.isatty() if tty is None else tty
        except (AttributeError, ValueError):
            self.tty = False
        self.phases = max(phases, 1)
        self.done = 0
        self.current = ""
        self._last_line = 0.0
        self._bar_shown = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed SSH session: keep working, the bundle matters more
            pass

    def say(self, message: str) -> None:
        if self._bar_shown:
            self._write("\r\033[K")
            self._bar_shown = False
        self._write(f"cardbench: {message}\n")

    def begin(self, name: str) -> None:
        self.current = name
        self.say(f"[{self.done + 1}/{self.phases}] {name}")
        self._last_line = time.monotonic()

    def update(self, fraction: float | None, detail: str) -> None:
        fraction = None if fraction is None else max(0.0, min(1.0, fraction))
        if self.tty:
            overall = (self.done + (fraction or 0.0)) / self.phases
            width = 24
            filled = int(round(overall * width))
            line = f"[{'#' * filled}{'-' * (width - filled)}] {overall * 100:3.0f}%  {self.current}: {detail}"
            self._write("\r\033[K" + line[:200])
            self._bar_shown = True
        elif time.monotonic() - self._last_line >= self.LINE_EVERY_S:
            self._last_line = time.monotonic()
            self.say(f"  {self.current}: {detail}")

    def end(self) -> None:
        self.done += 1
        if self._bar_shown:
            self._write("\r\033[K")
            self._bar_shown = False

"""The job's output, split into lines as a terminal shows them, and copied to the run's log.

A line ends at `\\n`; a bar redrawn in place ends at `\\r` (`\\r\\n` is one line end). Every line
goes to the log as the job wrote it, less escape sequences and control characters (it reaches run.log
through this child's stderr, with run.log's time stamp in front). Redraws are the exception: a tqdm
bar redraws up to ten times a second, so the log keeps one redraw every :data:`REDRAW_LOG_S` and the
last one before the next full line (each redraw is still read for progress); a redraw that only
blanks the line (tqdm's clear before a `tqdm.write`) carries nothing and is not kept.
"""

from __future__ import annotations

import re
import time
from collections import deque
from typing import Callable, Iterator

from workloads.safe_text import printable

REDRAW_LOG_S = 5.0
LONGEST = 64 * 1024  # a "line" this long with no end yet is cut here, so memory stays bounded
NEWLINE, REDRAW, CUT, PEEK = "\n", "\r", "", "peek"
_ENDS = re.compile(rb"\r\n|\r|\n")


class Splitter:
    """Bytes in, (text, how it ended) out; a `\\r` at the end of a chunk waits for the next one.

    tqdm writes each redraw as `\\r` then the bar, so a redraw ends only when the next one begins: the
    text after the chunk's last `\\r` is also handed out at once as :data:`PEEK` (the bar as it stands,
    to read, not yet a line to log). A redraw is one write below the pipe's atomic size, so it comes whole.
    """

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> Iterator[tuple[str, str]]:
        buffer = self._buffer + data
        start = 0
        after_cr = False
        for end in _ENDS.finditer(buffer):
            if end.group() == b"\r" and end.end() == len(buffer):
                break  # a `\r\n` may be cut between two reads
            after_cr = end.group() == b"\r"
            yield _text(buffer[start:end.start()]), REDRAW if after_cr else NEWLINE
            start = end.end()
        rest = buffer[start:]
        while len(rest) > LONGEST:
            yield _text(rest[:LONGEST]), CUT
            rest = rest[LONGEST:]
        self._buffer = rest
        shown = rest[:-1] if rest.endswith(b"\r") else rest
        if shown and (after_cr or rest.endswith(b"\r")):
            yield _text(shown), PEEK

    def close(self) -> Iterator[tuple[str, str]]:
        """The job's last words when they had no line end."""
        rest, self._buffer = self._buffer, b""
        if rest.endswith(b"\r"):
            rest = rest[:-1]
        if rest:
            yield _text(rest), NEWLINE


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


class LogCopy:
    """Writes the job's lines to the log (``write``), keeping the redraws as the module says; the last
    lines it wrote are ``tail`` (what a failure names)."""

    def __init__(self, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic,
                 tail: int = 20):
        self._write = write
        self._clock = clock
        self._redraw: str | None = None       # the newest redraw not yet written
        self._redraw_written_at: float | None = None
        self.tail: deque[str] = deque(maxlen=tail)
        self.lines = 0

    def line(self, text: str, ended: str) -> None:
        if ended == PEEK:
            return  # the same text comes again as a redraw or a line once it has ended
        if ended == REDRAW:
            if not text.strip():
                return
            now = self._clock()
            if self._redraw_written_at is None or now - self._redraw_written_at >= REDRAW_LOG_S:
                self._redraw = None
                self._redraw_written_at = now
                self._out(text)
            else:
                self._redraw = text
            return
        self.flush()
        self._redraw_written_at = None  # the next bar's first redraw is written at once
        self._out(text)

    def flush(self) -> None:
        if self._redraw is not None:
            self._out(self._redraw)
            self._redraw = None

    def _out(self, text: str) -> None:
        self.lines += 1
        # this child's stderr reaches a terminal when it runs on its own (python -m workloads.command): a line
        # that retitles the window or writes the clipboard (OSC 0, OSC 52) is written without its escapes
        text = printable(text)
        if text.strip():
            self.tail.append(text)
        self._write(text)

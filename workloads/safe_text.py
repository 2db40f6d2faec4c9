"""Text that came from outside (a job's output, a bundle someone sent, a file name) made safe to show.

A terminal obeys what it prints: ESC ] 0 ; retitles the window, ESC [ 2 J clears it, ESC ] 52 writes the
clipboard, and C1 controls (U+0080-U+009F) start the same sequences on many terminals without an ESC.
Bidirectional overrides reorder what the reader sees (CVE-2021-42574). So every string from outside goes
through :func:`printable` (or :func:`one_line`) before it reaches a terminal, a log line or a Markdown
report. Whole escape sequences are removed, not just their ESC, so an OSC's payload does not leak as text.

Torch-free and dependency-free: the workload children and the UI both import it.
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC (ESC P/X/^/_ ... ST), and two-byte escapes;
# an unterminated OSC/DCS runs to the end of the text, as a terminal would swallow it
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x90\x98\x9d\x9e\x9f][^\x1b\x9c\x07]*(?:\x07|\x1b\\|\x9c)?"
)
# C0 (but tab and newline), DEL, C1, and the bidirectional embeddings, overrides and isolates
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NEWLINES = re.compile(r"[\r\n\u2028\u2029\x85]+")


def printable(text: object, limit: int | None = None) -> str:
    """`text` without escape sequences or control characters; newlines and tabs kept, cut to `limit` chars."""
    s = str(text)
    s = s.replace("\r\n", "\n")
    s = _ESCAPES.sub("", s)
    s = s.replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    s = _CONTROLS.sub("", s)
    return _cut(s, limit)


def one_line(text: object, limit: int | None = None) -> str:
    """:func:`printable` on one line: line breaks become spaces, tabs a space."""
    s = _ESCAPES.sub("", str(text))
    s = _NEWLINES.sub(" ", s).replace("\t", " ")
    s = _CONTROLS.sub("", s)
    return _cut(s.strip(), limit)


def _cut(s: str, limit: int | None) -> str:
    if limit is None or len(s) <= limit:
        return s
    return s[: max(0, limit - 1)] + "…"


def file_name(path: object, limit: int | None = 200) -> str:
    """A file name as bytes read it, for a terminal: bytes that are not UTF-8 as \\xNN (a surrogate from
    os.fsdecode would fail to print), control characters and escapes removed."""
    raw = path if isinstance(path, bytes) else str(path).encode("utf-8", "surrogateescape")
    return one_line(raw.decode("utf-8", "backslashreplace"), limit)

"""The one way an exception becomes a one-line message, for events, hints and the terminal.

Torch-free and tiny: the UI process and every workload child import it. :class:`WorkloadError` lives here too,
so the UI process can catch what a workload's planning raises without importing `workloads.child`.
"""

from __future__ import annotations

from workloads import exit_codes
from workloads.catalogue import Message


def first_line(exc: BaseException, *, typed: bool = False, limit: int | None = None) -> str:
    """The first non-empty line of ``str(exc)``, or the exception's type name when it says nothing.

    ``typed`` prefixes the type name ("RuntimeError: ..."), for messages that would be
    ambiguous without it; ``limit`` cuts a very long line (an op's full signature).
    """
    text = str(exc).strip()
    line = text.splitlines()[0].strip() if text else ""
    if not line:
        return type(exc).__name__
    if typed:
        line = f"{type(exc).__name__}: {line}"
    return line[:limit] if limit else line


class WorkloadError(Exception):
    """A failure the user can act on: printed as one line with a hint, no traceback."""

    def __init__(self, message: str, hint: str | Message | None = None, *, bad_input: bool = True):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.exit_code = exit_codes.BAD_INPUT if bad_input else exit_codes.FAILED


def clipped(text: str, keep: int = 40, *, quote: bool = False) -> str:
    """``text`` for a one-line refusal: whole when short, else its start and its length, so a 127 KB argument or
    a 400-digit number is named without being repeated. ``quote`` puts it in quotes as ``repr`` would."""
    if len(text) <= 2 * keep:
        return repr(text) if quote else text
    start = repr(text[:keep]) if quote else text[:keep]
    return f"{start}... ({len(text):,} characters)"

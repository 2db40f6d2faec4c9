"""The one way an exception becomes a one-line message, for events, hints and the terminal.

Torch-free and tiny: the UI process and every workload child import it.
"""

from __future__ import annotations


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

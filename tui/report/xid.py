"""Xid events (NVIDIA's driver error codes) from the kernel log: the stability record nvidia-smi does not keep."""

from __future__ import annotations

import calendar
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime

from tui.formatting import utc
from tui.telemetry.cli_tool import run_bounded

_XID = re.compile(r"NVRM: Xid \((?P<where>[^)]*)\): (?P<code>\d+),")
# the codes a reviewer asks about, and what they usually mean (NVIDIA's Xid catalogue)
MEANING = {
    13: "graphics engine exception (often an application bug or bad memory access)",
    31: "GPU memory page fault (MMU fault)",
    43: "GPU stopped processing (user application fault)",
    45: "preemptive cleanup after another error",
    48: "double-bit ECC error",
    61: "internal micro-controller breakpoint/warning",
    62: "internal micro-controller halt",
    63: "ECC page retirement or row remapping recorded",
    64: "ECC page retirement or row remapping failure",
    74: "NVLink error",
    79: "GPU has fallen off the bus",
    92: "high single-bit ECC error rate",
    94: "contained ECC error",
    95: "uncontained ECC error",
    109: "context switch timeout",
    119: "GSP RPC timeout",
    120: "GSP error",
}


@dataclass
class XidReport:
    readable: bool
    note: str
    events: list[tuple[int, str]] = field(default_factory=list)  # (code, the log line)

    @property
    def counts(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for code, _line in self.events:
            out[code] = out.get(code, 0) + 1
        return out


def parse(text: str) -> list[tuple[int, str]]:
    return [(int(m.group("code")), line.strip()) for line in text.splitlines() if (m := _XID.search(line))]


# dmesg's stamps, asked for in UTC: ISO 8601 with the offset (util-linux >= 2.24), else ctime ("-T")
_ISO = re.compile(r"^(?P<at>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)[,.]\d+(?P<zone>[+-]\d\d:?\d\d) ")
_CTIME = re.compile(r"^\[(?P<at>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ")


def _iso_utc(m: re.Match[str]) -> str:
    return utc(datetime.fromisoformat(m["at"] + m["zone"]).timestamp()) + " "


def _ctime_utc(m: re.Match[str]) -> str:
    return utc(calendar.timegm(time.strptime(m["at"], "%a %b %d %H:%M:%S %Y"))) + " "


def _stamps_in_utc(text: str, stamp: re.Pattern[str], to_utc) -> str:
    """Each line's stamp as '2026-12-02 21:04:35 UTC'; a line whose stamp does not read stays as it is."""
    out = []
    for line in text.splitlines():
        try:
            out.append(stamp.sub(to_utc, line, count=1))
        except ValueError:
            out.append(line)
    return "\n".join(out)


def read_kernel_log(timeout: float = 5.0) -> XidReport:
    """Xid lines since boot from `dmesg`, their times in UTC; unreadable (no permission, no dmesg) is said,
    not hidden."""
    if not shutil.which("dmesg"):
        return XidReport(False, "dmesg is not available: Xid events could not be checked")
    env = {**os.environ, "TZ": "UTC", "LC_ALL": "C"}  # the stamps in UTC, the month names in English
    note = "read with dmesg, since boot; times in UTC"
    done = run_bounded(["dmesg", "--time-format=iso"], timeout, env=env)
    text = _stamps_in_utc(done.stdout, _ISO, _iso_utc) if done.returncode == 0 else ""
    if done.returncode not in (0, None):  # an older dmesg without ISO stamps
        done = run_bounded(["dmesg", "-T"], timeout, env=env)
        text = _stamps_in_utc(done.stdout, _CTIME, _ctime_utc) if done.returncode == 0 else ""
    if done.returncode not in (0, None):  # some dmesg builds have no -T
        done = run_bounded(["dmesg"], timeout, env=env)
        text, note = done.stdout, "read with dmesg, since boot; times in seconds since boot"
    if done.problem is not None:
        return XidReport(False, f"the kernel log is not readable ({done.problem}): Xid events could not be checked")
    return XidReport(True, note, parse(text))

"""Xid events (NVIDIA's driver error codes) from the kernel log: the stability record nvidia-smi does not keep."""

from __future__ import annotations

from dataclasses import dataclass, field

from workloads.facts.formatting import utc
from workloads.catalogue import Message, message
from workloads.kernel_log import CTIME, ISO, read_dmesg, stamp, xid_lines

# the codes a reviewer asks about, and what they usually mean (NVIDIA's Xid catalogue)
MEANING = {
    13: Message("report.xid.13"),
    31: Message("report.xid.31"),
    43: Message("report.xid.43"),
    45: Message("report.xid.45"),
    48: Message("report.xid.48"),
    61: Message("report.xid.61"),
    62: Message("report.xid.62"),
    63: Message("report.xid.63"),
    64: Message("report.xid.64"),
    74: Message("report.xid.74"),
    79: Message("report.xid.79"),
    92: Message("report.xid.92"),
    94: Message("report.xid.94"),
    95: Message("report.xid.95"),
    109: Message("report.xid.109"),
    119: Message("report.xid.119"),
    120: Message("report.xid.120"),
}

# how the kernel log was read, said in the report's sentence about Xid events
READ_UTC = Message("report.xid.read_utc")
READ_SINCE_BOOT = Message("report.xid.read_since_boot")
NO_DMESG = Message("report.xid.no_dmesg")


def _unreadable(problem: str) -> Message:
    return message("report.xid.unreadable", problem=problem)


@dataclass
class XidReport:
    readable: bool
    note: Message   # how the log was read, or why it could not be
    events: list[tuple[int, str]] = field(default_factory=list)  # (code, the log line)

    @property
    def counts(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for code, _line in self.events:
            out[code] = out.get(code, 0) + 1
        return out


def parse(text: str) -> list[tuple[int, str]]:
    return [(code, line) for code, _where, line in xid_lines(text)]


def _in_utc(line: str) -> str:
    """The line's stamp as '2026-12-02 21:04:35 UTC' (the report's times); a line whose stamp does not read stays."""
    t = stamp(line)
    if t is None:
        return line
    m = ISO.match(line) or CTIME.match(line)
    return utc(t) + " " + line[m.end():]


def read_kernel_log(timeout: float = 5.0) -> XidReport:
    """Xid lines since boot from `dmesg` (workloads.kernel_log, the soak's reader too), their times in UTC;
    unreadable (no permission, no dmesg) is said, not hidden."""
    log = read_dmesg(timeout)
    if log.text is None:
        return XidReport(False, NO_DMESG if log.problem == "dmesg is not available" else _unreadable(log.problem or ""))
    if not log.dated:
        return XidReport(True, READ_SINCE_BOOT, parse(log.text))
    return XidReport(True, READ_UTC, [(code, _in_utc(line)) for code, line in parse(log.text)])

"""Xid events (NVIDIA's driver error codes) from the kernel log: the stability record nvidia-smi does not keep."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field

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


def read_kernel_log(timeout: float = 5.0) -> XidReport:
    """Xid lines since boot from `dmesg`; unreadable (no permission, no dmesg) is said, not hidden."""
    if not shutil.which("dmesg"):
        return XidReport(False, "dmesg is not available: Xid events could not be checked")
    done = run_bounded(["dmesg", "-T"], timeout)
    if done.returncode not in (0, None):  # some dmesg builds have no -T
        done = run_bounded(["dmesg"], timeout)
    if done.problem is not None:
        return XidReport(False, f"the kernel log is not readable ({done.problem}): Xid events could not be checked")
    events = parse(done.stdout)
    return XidReport(True, "read with dmesg, since boot", events)

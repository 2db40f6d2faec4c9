"""New Xid lines (NVIDIA's driver error codes) since the soak started, with their time.

The soak reads the log (`workloads.kernel_log`: dated where dmesg can) at its start and at each interval's
close; a line that was there at the start is not the soak's. A line without a wall-clock stamp is dated when
the soak first saw it. A log that cannot be read is said once: the verdict then says Xid events were not checked.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from workloads.kernel_log import XID, read_dmesg, stamp


@dataclass(frozen=True)
class Xid:
    t: float          # when the kernel logged it (or when the soak first saw it, if the log has no dates)
    code: int
    where: str        # "PCI:0000:cb:00"
    line: str


class KernelLog:
    """New Xid lines since the soak started."""

    def __init__(self) -> None:
        self.problem: str | None = None
        self._seen: Counter[str] | None = None

    def _read(self) -> str | None:
        log = read_dmesg()
        if log.text is None:
            self.problem = ("dmesg is not available" if log.problem == "dmesg is not available" else
                            f"dmesg could not be read ({log.problem}; permission? see kernel.dmesg_restrict)")
        return log.text

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
                when = stamp(line)
                out.append(Xid(when if when is not None else now, int(m["code"]), m["where"], line.strip()))
        self._seen = fresh | self._seen
        return out
